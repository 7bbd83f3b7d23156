import AddIcon from '@mui/icons-material/Add';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import OpenInBrowserIcon from '@mui/icons-material/OpenInBrowser';
import type { SxProps, Theme } from '@mui/material/styles';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { usePageTitle } from '../app/pageTitle';
import ListTable, { type ListAction, type ListColumn, PAGE_SIZES } from './ListTable';
import PageHeader from './PageHeader';
import SearchField from './SearchField';
import { type PendingAction, useConfirmedAction } from './useConfirmedAction';
import type { ListPageState } from './useListPage';

interface Props<T> {
  title: string;
  subtitle?: ReactNode;
  /** The header's buttons (links to other pages, downloads). */
  actions?: ReactNode;
  /** The header's New button, last: a page of its own (`to`) or a dialog on this one (`onClick`). */
  create?: Create;
  /** Between the header and the list's bar (a card to start something). */
  lead?: ReactNode;
  /** The list's state in the URL (`useListPage`): paged, searched and maybe sorted by the server. Absent: `rows` is the
   * whole list, paged and sorted in the browser. */
  list?: ListPageState;
  /** The search box's label and accessible name (a server-paged list only). */
  searchLabel?: string;
  /** The filters beside the search box (selects, state tabs). */
  filters?: ReactNode;
  /** The list endpoint's answer (a query of the typed client). */
  result: { data?: { items: T[]; total?: number }; isFetching: boolean; isPlaceholderData?: boolean };
  columns: ListColumn<T>[];
  rowKey: (row: T) => string;
  /** A row's own page: the first action opens it (or, with `openOnClick`, a click anywhere in the row). */
  rowPath?: (row: T) => string;
  openOnClick?: boolean;
  /** The row's actions between open and delete. */
  rowActions?: (row: T) => ListAction<T>[];
  /** The delete action, last, and what its confirmation says and runs. */
  remove?: { label: string; confirm: (row: T) => Omit<PendingAction, 'confirmLabel' | 'destructive'> };
  pageSizes?: number[];
  initialPageSize?: number;
  roomy?: boolean;
  empty: ReactNode;
  /** The list's box (its height; 560 px unless said). */
  sx?: SxProps<Theme>;
  /** The list's box as high as its rows (a short list), no fixed height. */
  autoHeight?: boolean;
  /** Dialogs of the page. */
  children?: ReactNode;
}

type Create = { label: string } & ({ to: string } | { onClick: () => void });

function CreateButton({ create }: { create: Create }) {
  return 'to' in create ? (
    <Button variant="contained" startIcon={<AddIcon />} component={RouterLink} to={create.to}>
      {create.label}
    </Button>
  ) : (
    <Button variant="contained" startIcon={<AddIcon />} onClick={create.onClick}>
      {create.label}
    </Button>
  );
}

/** A row's name as the link to its page. */
export function RowLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Link component={RouterLink} to={to} underline="hover" sx={{ fontWeight: 500 }}>
      {children}
    </Link>
  );
}

/**
 * The one list page (ARCHITECTURE "Web pages"): the header, the search and filters, the list through ListTable with
 * its paging, order, row link, open and delete actions, the empty state and the confirmation. A page gives its
 * columns and its endpoint's answer.
 */
export default function ListPage<T>(p: Props<T>) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const confirm = useConfirmedAction();
  usePageTitle(p.title);
  const { list, result, remove, rowPath } = p;
  const bar = (list && p.searchLabel) || p.filters;
  const actions = (row: T): ListAction<T>[] => [
    ...(rowPath && !p.openOnClick ? [{ key: 'open', icon: <OpenInBrowserIcon fontSize="small" />, label: t('common.open'), onClick: () => navigate(rowPath(row)) }] : []),
    ...(p.rowActions?.(row) ?? []),
    ...(remove ? [{ key: 'delete', icon: <DeleteOutlineIcon fontSize="small" />, label: remove.label, onClick: () => confirm.ask({ ...remove.confirm(row), confirmLabel: remove.label, destructive: true }) }] : []),
  ];
  const hasActions = (rowPath && !p.openOnClick) || p.rowActions || remove;
  return (
    <>
      <PageHeader
        title={p.title}
        subtitle={p.subtitle}
        actions={
          p.create ? (
            <>
              {p.actions}
              <CreateButton create={p.create} />
            </>
          ) : (
            p.actions
          )
        }
      />
      {p.lead}
      {bar && (
        <Paper variant="outlined" sx={{ p: 1.5, mb: 1.5, display: 'flex', gap: 1.5, flexWrap: 'wrap', alignItems: 'center' }}>
          {list && p.searchLabel && <SearchField label={p.searchLabel} value={list.search} onChange={list.setSearch} sx={{ flex: 1, minWidth: 240 }} />}
          {p.filters}
        </Paper>
      )}
      <Paper variant="outlined" sx={p.autoHeight ? undefined : (p.sx ?? { height: 560 })}>
        <ListTable
          label={p.title}
          rows={result.data?.items}
          rowKey={p.rowKey}
          columns={p.columns}
          actions={hasActions ? actions : undefined}
          // the first answer and a new page or filter, not the polls of a list that shows running work
          loading={result.isFetching && (!result.data || !!result.isPlaceholderData)}
          {...(list
            ? {
                total: result.data?.total ?? 0,
                page: list.page,
                pageSize: list.pageSize,
                onPage: list.setPage,
                ...(list.sorted ? { sort: list.order, onSort: list.setOrder } : {}),
              }
            : { initialPageSize: p.initialPageSize })}
          pageSizes={p.pageSizes ?? (list ? [...list.pageSizes] : PAGE_SIZES)}
          onOpen={rowPath && p.openOnClick ? (row) => navigate(rowPath(row)) : undefined}
          roomy={p.roomy}
          empty={p.empty}
        />
      </Paper>
      {remove && confirm.dialog}
      {p.children}
    </>
  );
}
