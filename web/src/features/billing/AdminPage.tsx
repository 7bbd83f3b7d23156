import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { showSnackbar } from '../../lib/feedback';
import { formatDateTime } from '../../lib/format';
import { billingKey, decideInvoice, decideTopup, money, runSweep, useIsPlatformAdmin, usePending } from './api';
import { NS, TableCard, useConfirm } from './common';

type Kind = 'invoice' | 'topup';
type Decision = 'confirm' | 'return';
/** A transfer waiting for a platform administrator: an invoice's or a wallet top-up's, its texts ready to show. */
interface Transfer {
  id: string;
  /** The row's data-invoice or data-topup. */
  mark: string;
  /** An invoice's number and period (its first column). */
  invoice?: ReactNode;
  organisation: string;
  reference: string;
  amount: string;
  reported: string;
}

/** The invoices or the top-ups reported as transferred, each to confirm or return. */
function TransferTable({ kind, rows, onDecide, mb }: { kind: Kind; rows: Transfer[]; onDecide: (r: Transfer, decision: Decision) => void; mb?: number }) {
  const { t } = useTranslation(NS);
  const invoices = kind === 'invoice';
  return (
    <TableCard title={t(invoices ? 'admin.invoices' : 'admin.topups')} empty={!rows.length && t('admin.none')} mb={mb}>
      <TableHead>
        <TableRow>
          {invoices && <TableCell>{t('col.number')}</TableCell>}
          <TableCell>{t('admin.organisation')}</TableCell>
          <TableCell>{t('pay.reference')}</TableCell>
          <TableCell align="right">{t(invoices ? 'col.due_amount' : 'col.amount')}</TableCell>
          <TableCell>{t('admin.reported')}</TableCell>
          <TableCell />
        </TableRow>
      </TableHead>
      <TableBody>
        {rows.map((r) => (
          <TableRow key={r.id} {...{ [`data-${kind}`]: r.mark }}>
            {invoices && <TableCell>{r.invoice}</TableCell>}
            <TableCell>{r.organisation}</TableCell>
            <TableCell>{r.reference}</TableCell>
            <TableCell align="right">{r.amount}</TableCell>
            <TableCell>{r.reported}</TableCell>
            <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
              <Button size="small" color="error" onClick={() => onDecide(r, 'return')}>
                {t('admin.return')}
              </Button>
              <Button size="small" variant="contained" onClick={() => onDecide(r, 'confirm')}>
                {t('admin.confirm')}
              </Button>
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </TableCard>
  );
}

/** Platform administrators confirm transfers (invoices and wallet top-ups) across organisations. */
export default function AdminPage() {
  const { t, i18n } = useTranslation(NS);
  usePageTitle(t('admin.title'));
  const qc = useQueryClient();
  const admin = useIsPlatformAdmin();
  const pending = usePending();
  const { ask, dialog } = useConfirm();
  if (admin.data && !admin.data.platform_admin) return <Alert severity="warning">{t('admin.notAllowed')}</Alert>;
  if (!pending.data) return <PageLoading />;
  const refresh = () => qc.invalidateQueries({ queryKey: billingKey });
  const m = (v: number, c: string) => money(v, c, i18n.language);
  const decide = (kind: Kind) => (r: Transfer, decision: Decision) =>
    ask({
      title: t(`admin.${decision}`),
      text: t(decision === 'confirm' ? 'admin.confirmText' : 'admin.returnText', { amount: r.amount, reference: r.reference, organisation: r.organisation }),
      done: t(decision === 'confirm' ? 'admin.confirmed' : 'admin.returned'),
      run: () => (kind === 'invoice' ? decideInvoice(r.id, decision) : decideTopup(r.id, decision)).then(refresh),
    });
  const { invoices, topups } = pending.data;
  return (
    <>
      <PageHeader
        title={t('admin.title')}
        subtitle={t('admin.subtitle')}
        actions={
          <Button
            variant="outlined"
            onClick={async () => {
              try {
                const r = await runSweep();
                showSnackbar(t('admin.sweepDone', r));
                await refresh();
              } catch {
                /* error dialog */
              }
            }}
          >
            {t('admin.sweep')}
          </Button>
        }
      />
      <TransferTable
        kind="invoice"
        mb={2}
        onDecide={decide('invoice')}
        rows={invoices.map((i) => ({
          id: i.id,
          mark: i.number,
          invoice: (
            <>
              {i.number}
              <Typography variant="caption" component="div" color="text.secondary">
                {i.project_name} · {i.bill_from} – {i.bill_to}
              </Typography>
            </>
          ),
          organisation: i.organisation_name,
          reference: i.transfer_reference,
          amount: m(i.amount_due, i.currency),
          reported: formatDateTime(i.reported_at),
        }))}
      />
      <TransferTable
        kind="topup"
        onDecide={decide('topup')}
        rows={topups.map((x) => ({ id: x.id, mark: x.organisation_name, organisation: x.organisation_name, reference: x.transfer_reference, amount: m(x.amount, x.currency), reported: formatDateTime(x.reported_at) }))}
      />
      {dialog}
    </>
  );
}
