import Button from '@mui/material/Button';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { DataGrid, type GridColDef } from '@mui/x-data-grid';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import { useGridLocale } from '../../components/gridLocale';
import { formatDateTime } from '../../lib/format';
import { type Invoice, type InvoiceState, money, STATES, useInvoices, useIsPlatformAdmin } from './api';
import { invoicePath, NS, StateChip } from './common';

/** SPEC §2 'Other': the invoices list with the state filter (all, billed, pending confirmation, cleared, overdue). */
export default function ListPage() {
  const { t, i18n } = useTranslation(NS);
  usePageTitle(t('title'));
  const navigate = useNavigate();
  const localeText = useGridLocale();
  const [state, setState] = useState<InvoiceState | 'all'>('all');
  const list = useInvoices(state);
  const admin = useIsPlatformAdmin();
  const m = (v: number, row: Invoice) => money(v, row.currency, i18n.language);
  const columns: GridColDef<Invoice>[] = [
    { field: 'number', headerName: t('col.number'), width: 170 },
    { field: 'project_name', headerName: t('col.project'), flex: 1, minWidth: 140 },
    { field: 'period', headerName: t('col.period'), width: 190, valueGetter: (_v, row) => `${row.bill_from} – ${row.bill_to}` },
    { field: 'date', headerName: t('col.date'), width: 140, valueFormatter: (v) => formatDateTime(v as string) },
    { field: 'due_date', headerName: t('col.due'), width: 140, valueFormatter: (v) => formatDateTime(v as string) },
    { field: 'amount', headerName: t('col.amount'), width: 110, align: 'right', headerAlign: 'right', renderCell: (p) => m(p.row.amount, p.row) },
    { field: 'amount_due', headerName: t('col.due_amount'), width: 110, align: 'right', headerAlign: 'right', renderCell: (p) => m(p.row.amount_due, p.row) },
    { field: 'state', headerName: t('col.state'), width: 160, renderCell: (p) => <StateChip state={p.row.state} /> },
  ];
  return (
    <>
      <PageHeader
        title={t('title')}
        subtitle={t('subtitle')}
        actions={
          <>
            {admin.data?.platform_admin && (
              <Button component={RouterLink} to="/admin/billing" variant="outlined">
                {t('adminLink')}
              </Button>
            )}
            <Button component={RouterLink} to="/wallet" variant="outlined">
              {t('walletLink')}
            </Button>
          </>
        }
      />
      <TextField select size="small" label={t('filter')} value={state} onChange={(e) => setState(e.target.value as InvoiceState | 'all')} sx={{ mb: 2, minWidth: 220 }} data-testid="state-filter">
        <MenuItem value="all">{t('all')}</MenuItem>
        {STATES.map((s) => (
          <MenuItem key={s} value={s}>
            {t(`state.${s}`)}
          </MenuItem>
        ))}
      </TextField>
      <Paper variant="outlined" sx={{ height: 520 }}>
        <DataGrid
          rows={list.data?.items ?? []}
          columns={columns}
          loading={list.isLoading}
          localeText={localeText}
          onRowClick={(p) => navigate(invoicePath(String(p.id)))}
          sx={{ border: 0, '& .MuiDataGrid-row': { cursor: 'pointer' } }}
          slots={{ noRowsOverlay: () => <Typography sx={{ p: 3, color: 'text.secondary', textAlign: 'center' }}>{t('empty')}</Typography> }}
        />
      </Paper>
    </>
  );
}
