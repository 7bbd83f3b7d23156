import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import FilterSelect from '../../components/FilterSelect';
import ListTable, { type ListColumn } from '../../components/ListTable';
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
  const period = (row: Invoice) => `${row.bill_from} – ${row.bill_to}`;
  const columns: ListColumn<Invoice>[] = [
    { field: 'number', headerName: t('col.number'), sortable: true, width: 170 },
    { field: 'project_name', headerName: t('col.project'), sortable: true, minWidth: 140 },
    { field: 'period', headerName: t('col.period'), sortable: true, width: 190, render: period, sortValue: period },
    { field: 'date', headerName: t('col.date'), sortable: true, width: 140, render: (row) => formatDateTime(row.date) },
    { field: 'due_date', headerName: t('col.due'), sortable: true, width: 140, render: (row) => formatDateTime(row.due_date) },
    { field: 'amount', headerName: t('col.amount'), sortable: true, width: 110, numeric: true, render: (row) => m(row.amount, row) },
    { field: 'amount_due', headerName: t('col.due_amount'), sortable: true, width: 110, numeric: true, render: (row) => m(row.amount_due, row) },
    { field: 'state', headerName: t('col.state'), sortable: true, width: 160, render: (row) => <StateChip state={row.state} /> },
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
      <Paper variant="outlined" sx={{ height: 520 }}>
        <ListTable
          label={t('title')}
          rows={list.data?.items}
          rowKey={(row) => String(row.id)}
          columns={columns}
          loading={list.isLoading}
          pageSizes={[25, 50, 100]}
          onOpen={(row) => navigate(invoicePath(String(row.id)))}
          roomy
          empty={t('empty')}
        />
      </Paper>
    </>
  );
}
