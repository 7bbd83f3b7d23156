import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { showSnackbar } from '../../lib/feedback';
import { formatDateTime } from '../../lib/format';
import { billingKey, decideInvoice, decideTopup, money, runSweep, useIsPlatformAdmin, usePending } from './api';
import { NS, TableCard, useConfirm } from './common';

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
  const decide = (kind: 'invoice' | 'topup', id: string, decision: 'confirm' | 'return', v: { amount: string; reference: string; organisation: string }) =>
    ask({
      title: t(`admin.${decision}`),
      text: t(decision === 'confirm' ? 'admin.confirmText' : 'admin.returnText', v),
      done: t(decision === 'confirm' ? 'admin.confirmed' : 'admin.returned'),
      run: () => (kind === 'invoice' ? decideInvoice(id, decision) : decideTopup(id, decision)).then(refresh),
    });
  const actions = (kind: 'invoice' | 'topup', id: string, v: { amount: string; reference: string; organisation: string }) => (
    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
      <Button size="small" color="error" onClick={() => decide(kind, id, 'return', v)}>
        {t('admin.return')}
      </Button>
      <Button size="small" variant="contained" onClick={() => decide(kind, id, 'confirm', v)}>
        {t('admin.confirm')}
      </Button>
    </TableCell>
  );
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
      <TableCard title={t('admin.invoices')} empty={!invoices.length && t('admin.none')} mb={2}>
        <TableHead>
          <TableRow>
            <TableCell>{t('col.number')}</TableCell>
            <TableCell>{t('admin.organisation')}</TableCell>
            <TableCell>{t('pay.reference')}</TableCell>
            <TableCell align="right">{t('col.due_amount')}</TableCell>
            <TableCell>{t('admin.reported')}</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {invoices.map((i) => (
            <TableRow key={i.id} data-invoice={i.number}>
              <TableCell>
                {i.number}
                <Typography variant="caption" component="div" color="text.secondary">
                  {i.project_name} · {i.bill_from} – {i.bill_to}
                </Typography>
              </TableCell>
              <TableCell>{i.organisation_name}</TableCell>
              <TableCell>{i.transfer_reference}</TableCell>
              <TableCell align="right">{m(i.amount_due, i.currency)}</TableCell>
              <TableCell>{formatDateTime(i.reported_at)}</TableCell>
              {actions('invoice', i.id, { amount: m(i.amount_due, i.currency), reference: i.transfer_reference, organisation: i.organisation_name })}
            </TableRow>
          ))}
        </TableBody>
      </TableCard>
      <TableCard title={t('admin.topups')} empty={!topups.length && t('admin.none')}>
        <TableHead>
          <TableRow>
            <TableCell>{t('admin.organisation')}</TableCell>
            <TableCell>{t('pay.reference')}</TableCell>
            <TableCell align="right">{t('col.amount')}</TableCell>
            <TableCell>{t('admin.reported')}</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {topups.map((x) => (
            <TableRow key={x.id} data-topup={x.organisation_name}>
              <TableCell>{x.organisation_name}</TableCell>
              <TableCell>{x.transfer_reference}</TableCell>
              <TableCell align="right">{m(x.amount, x.currency)}</TableCell>
              <TableCell>{formatDateTime(x.reported_at)}</TableCell>
              {actions('topup', x.id, { amount: m(x.amount, x.currency), reference: x.transfer_reference, organisation: x.organisation_name })}
            </TableRow>
          ))}
        </TableBody>
      </TableCard>
      {dialog}
    </>
  );
}
