import Button from '@mui/material/Button';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import FilterSelect from '../../components/FilterSelect';
import ListPage from '../../components/ListPage';
import type { ListColumn } from '../../components/ListTable';
import { formatDateTime } from '../../lib/format';
import { type Invoice, type InvoiceState, money, STATES, useInvoices, useIsPlatformAdmin } from './api';
import { invoicePath, NS, StateChip } from './common';

/** SPEC §2 'Other': the invoices list with the state filter (all, billed, pending confirmation, cleared, overdue). */
export default function InvoiceListPage() {
  const { t, i18n } = useTranslation(NS);
  const [state, setState] = useState<InvoiceState | 'all'>('all');
  const invoices = useInvoices(state);
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
    <ListPage
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
      filters={<FilterSelect ns={NS} prefix="state" allValue="all" value={state} values={STATES} onChange={setState} testId="state-filter" />}
      result={invoices}
      columns={columns}
      rowKey={(row) => String(row.id)}
      rowPath={(row) => invoicePath(String(row.id))}
      openOnClick
      pageSizes={[25, 50, 100]}
      roomy
      sx={{ height: 520 }}
      empty={t('empty')}
    />
  );
}
