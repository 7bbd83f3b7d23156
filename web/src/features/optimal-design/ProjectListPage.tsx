import Chip from '@mui/material/Chip';
import { useTranslation } from 'react-i18next';
import ListPage, { RowLink } from '../../components/ListPage';
import type { ListColumn } from '../../components/ListTable';
import { useListPage } from '../../components/useListPage';
import { formatDateTime } from '../../lib/format';
import { type ProjectSummary, useProjects } from './api';

const PAGE_SIZES = [10, 20, 50];

export const detailsPath = (id: string, round?: number) => `/optimal-design/details/${encodeURIComponent(id)}${round ? `/${round}` : ''}`;

export function StateChip({ state }: { state: string }) {
  const { t } = useTranslation('optimalDesign');
  const color = state === 'done' ? 'success' : state === 'failed' ? 'error' : 'info';
  return <Chip size="small" color={color} label={t(`state.${state}`, { defaultValue: state })} />;
}

export default function ProjectListPage() {
  const { t } = useTranslation('optimalDesign');
  const list = useListPage({ pageSizes: PAGE_SIZES });
  const result = useProjects(list.params);
  const columns: ListColumn<ProjectSummary>[] = [
    { field: 'name', headerName: t('col.name'), render: (p) => <RowLink to={detailsPath(p.id)}>{p.name}</RowLink> },
    { field: 'state', headerName: t('col.state'), render: (p) => <StateChip state={p.state} /> },
    { field: 'rounds', headerName: t('col.rounds') },
    { field: 'variables', headerName: t('col.variables') },
    { field: 'created', headerName: t('col.created'), render: (p) => formatDateTime(p.created_at) },
    { field: 'updated', headerName: t('col.updated'), render: (p) => formatDateTime(p.updated_at) },
  ];
  return (
    <ListPage
      title={t('title')}
      create={{ label: t('new'), to: '/optimal-design/register' }}
      list={list}
      searchLabel={t('search')}
      result={result}
      columns={columns}
      rowKey={(p) => p.id}
      autoHeight
      empty={t('noProjects')}
    />
  );
}
