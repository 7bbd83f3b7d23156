import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import ListPage, { RowLink } from '../../components/ListPage';
import type { ListColumn } from '../../components/ListTable';
import { useListPage } from '../../components/useListPage';
import { formatDateTime, formatNumber } from '../../lib/format';
import { deleteProject, detailsPath, optKeys, type Project, registerPath, useProjects } from './api';
import { NS, StateChip } from './labels';

const STATES = ['done', 'running', 'failed', 'ready'] as const;

/** /optimization: projects with their state, searched and filtered, and the way to a new one. */
export default function ProjectListPage() {
  const { t } = useTranslation(NS);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const list = useListPage();
  const state = list.filter('state', STATES);
  const result = useProjects({ ...list.params, state });
  const data = result.data;

  const targets = (row: Project) => row.targets.map((x) => `${x.name} (${t(`goals.${x.goal}`)})`).join(', ');
  const algorithms = (row: Project) => row.algorithms.map((a) => t(`algorithms.${a}`)).join(', ');
  const best = (row: Project) => {
    const b = row.runs.find((r) => r.best)?.best;
    return b ? Object.entries(b.predictions).map(([k, v]) => `${k} ${formatNumber(v)}`).join(', ') : '';
  };
  const columns: ListColumn<Project>[] = [
    { field: 'name', headerName: t('list.name'), sortable: true, render: (row) => <RowLink to={detailsPath(row.id)}>{row.name}</RowLink> },
    { field: 'state', headerName: t('list.state'), sortable: true, width: 120, render: (row) => <StateChip state={row.state} /> },
    { field: 'targets', headerName: t('list.targets'), sortable: true, render: targets, sortValue: targets },
    { field: 'dataset_name', headerName: t('models.dataset'), sortable: true },
    { field: 'algorithms', headerName: t('algorithm.title'), sortable: true, render: algorithms, sortValue: algorithms },
    { field: 'best', headerName: t('list.best'), sortable: true, render: best, sortValue: best },
    { field: 'created_at', headerName: t('list.created'), sortable: true, width: 170, render: (row) => formatDateTime(row.created_at) },
  ];

  return (
    <ListPage
      title={t('title')}
      subtitle={t('subtitle')}
      create={{ label: t('list.new'), onClick: () => navigate(registerPath) }}
      list={list}
      searchLabel={t('list.search')}
      filters={
        <Tabs value={state} onChange={(_, v: string) => list.setFilter('state', v)}>
          {['', ...STATES].map((s) => (
            <Tab key={s || 'all'} value={s} label={`${t(`states.${s || 'all'}`)} (${data?.counts[s || 'all'] ?? 0})`} />
          ))}
        </Tabs>
      }
      result={result}
      columns={columns}
      rowKey={(r) => r.id}
      remove={{
        label: t('list.delete'),
        confirm: (row) => ({
          title: t('list.delete'),
          text: t('list.confirmDelete', { name: row.name }),
          run: async () => {
            await deleteProject(row.id);
            await queryClient.invalidateQueries({ queryKey: optKeys.all });
          },
          done: t('list.deleted'),
        }),
      }}
      roomy
      empty={t('list.empty')}
    />
  );
}
