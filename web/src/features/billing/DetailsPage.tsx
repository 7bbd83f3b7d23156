import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import DownloadIcon from '@mui/icons-material/Download';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useParams } from 'react-router';
import { useCanWrite } from '../../api/me';
import { usePageTitle } from '../../app/pageTitle';
import InfoGrid from '../../components/InfoGrid';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { formatDateTime } from '../../lib/format';
import { downloadPdf, money, useInvoice } from './api';
import { invoicePath, NS, SectionCard, StateChip, TableCard } from './common';
import InvoiceLines from './InvoiceLines';

/** SPEC §2 'Other' invoice detail, §3 'Invoice' fields; the PDF is rendered from the same answer. */
export default function DetailsPage() {
  const { invoice_id = '' } = useParams();
  const { t, i18n } = useTranslation(NS);
  const canWrite = useCanWrite();
  const q = useInvoice(invoice_id);
  usePageTitle(q.data?.number ?? t('title'));
  if (!q.data) return <PageLoading />;
  const inv = q.data;
  const m = (v: number) => money(v, inv.currency, i18n.language);
  const payable = inv.state === 'billed' || inv.state === 'overdue';
  return (
    <>
      <PageHeader
        title={
          <Box component="span" sx={{ display: 'inline-flex', gap: 1.5, alignItems: 'center', flexWrap: 'wrap' }}>
            {inv.number} <StateChip state={inv.state} />
          </Box>
        }
        subtitle={`${inv.project_name} · ${inv.bill_from} – ${inv.bill_to}`}
        actions={
          <>
            <Button variant="outlined" startIcon={<DownloadIcon />} onClick={() => void downloadPdf(inv, i18n.language).catch(() => undefined)}>
              {t('details.pdf')}
            </Button>
            {payable && canWrite && (
              <Button variant="contained" component={RouterLink} to={`${invoicePath(inv.id)}/payment`}>
                {t('details.pay')}
              </Button>
            )}
          </>
        }
      />
      {inv.overdue && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {t('details.overdueLocked', { project: inv.project_name })}
        </Alert>
      )}
      {inv.state === 'pending_confirmation' && (
        <Alert severity="info" sx={{ mb: 2 }}>
          {t('details.pending', { at: formatDateTime(inv.reported_at) })}
        </Alert>
      )}
      {inv.state === 'cleared' && (
        <Alert severity="success" sx={{ mb: 2 }}>
          {t('details.cleared', { at: formatDateTime(inv.payment_date) })}
        </Alert>
      )}
      <SectionCard title={t('details.summary')} mb={2}>
        <InfoGrid
          items={[
            { label: t('col.number'), value: inv.number },
            { label: t('details.billedTo'), value: inv.organisation_name },
            { label: t('col.project'), value: inv.project_name },
            { label: t('col.date'), value: formatDateTime(inv.date) },
            { label: t('col.due'), value: formatDateTime(inv.due_date) },
            { label: t('col.paid'), value: inv.payment_date ? formatDateTime(inv.payment_date) : '' },
            { label: t('details.billFrom'), value: inv.bill_from },
            { label: t('details.billTo'), value: inv.bill_to },
            { label: t('details.cycle'), value: t(`cycle.${inv.billing_cycle}`) },
            { label: t('details.plan'), value: t(`plan.${inv.subscription_type}`, { defaultValue: inv.subscription_type }) },
            { label: t('details.subscriptionFee'), value: m(inv.subscription_fee) },
            { label: t('details.infrastructureFee'), value: m(inv.infrastructure_fee) },
            { label: t('col.amount'), value: m(inv.amount) },
            { label: t('col.due_amount'), value: <span data-testid="amount-due">{m(inv.amount_due)}</span> },
            { label: t('details.method'), value: inv.payment_method ? t(`method.${inv.payment_method}`) : '' },
            { label: t('pay.reference'), value: inv.transfer_reference },
          ]}
        />
      </SectionCard>
      <SectionCard title={t('details.lines')} mb={2}>
        <InvoiceLines invoice={inv} />
      </SectionCard>
      <TableCard title={t('details.history')}>
        <TableBody>
          {inv.history.map((h, i) => (
            <TableRow key={i} data-history={h.kind}>
              <TableCell sx={{ width: 200 }}>{formatDateTime(h.at)}</TableCell>
              <TableCell>{t(`history.${h.kind}`, { defaultValue: h.kind })}</TableCell>
              <TableCell align="right">{h.amount ? m(h.amount) : ''}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </TableCard>
    </>
  );
}
