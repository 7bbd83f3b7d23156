import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../../lib/format';
import { type Invoice, money } from './api';
import { NS } from './common';

/** The line items of an invoice (the PDF prints the same rows). */
export default function InvoiceLines({ invoice }: { invoice: Invoice }) {
  const { t, i18n } = useTranslation(NS);
  const m = (v: number) => money(v, invoice.currency, i18n.language);
  return (
    <Table size="small" aria-label={t('details.lines')}>
      <TableHead>
        <TableRow>
          <TableCell>{t('details.item')}</TableCell>
          <TableCell>{t('details.linePeriod')}</TableCell>
          <TableCell align="right">{t('details.quantity')}</TableCell>
          <TableCell align="right">{t('details.unitPrice')}</TableCell>
          <TableCell align="right">{t('col.amount')}</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {invoice.lines.map((l) => (
          <TableRow key={l.item} data-line={l.item}>
            <TableCell>{t(`item.${l.item}`)}</TableCell>
            <TableCell>
              {l.period_from} – {l.period_to}
            </TableCell>
            <TableCell align="right">{formatNumber(l.quantity)}</TableCell>
            <TableCell align="right">{m(l.unit_price)}</TableCell>
            <TableCell align="right">{m(l.amount)}</TableCell>
          </TableRow>
        ))}
        <TableRow>
          <TableCell colSpan={4} sx={{ fontWeight: 600 }}>
            {t('details.total')}
          </TableCell>
          <TableCell align="right" sx={{ fontWeight: 600 }} data-testid="invoice-total">
            {m(invoice.amount)}
          </TableCell>
        </TableRow>
      </TableBody>
    </Table>
  );
}
