import Button from '@mui/material/Button';
import type { GridColDef } from '@mui/x-data-grid';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import ClientGrid from '../../components/ClientGrid';
import FilterSelect from '../../components/FilterSelect';
import PageHeader from '../../components/PageHeader';
import { formatDateTime } from '../../lib/format';
import { type Invoice, type InvoiceState, money, STATES, useInvoices, useIsPlatformAdmin } from './api';
import { invoicePath, NS, StateChip } from './common';

/** SPEC §2 'Other': the invoices list with the state filter (all, billed, pending confirmation, cleared, overdue). */
export default function ListPage() {
  const { t, i18n } = useTranslation(NS);
  usePageTitle(t('title'));
  const navigate = useNavigate();
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
      <FilterSelect
        label={t('filter')}
        allLabel={t('all')}
        allValue="all"
        value={state}
        values={STATES}
        labelOf={(s) => t(`state.${s}`)}
        onChange={setState}
        testId="state-filter"
      />
      <ClientGrid rows={list.data?.items} columns={columns} loading={list.isLoading} empty={t('empty')} onOpen={(row) => navigate(invoicePath(String(row.id)))} />
    </>
  );
}
