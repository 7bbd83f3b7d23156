import { useCanWrite } from '../../api/me';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Pagination from '@mui/material/Pagination';
import Paper from '@mui/material/Paper';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import QueryStatsIcon from '@mui/icons-material/QueryStats';
import ReplayIcon from '@mui/icons-material/Replay';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Dataset, StatisticsJob, StatisticsResult } from '../../api/types';
import PageLoading from '../../components/PageLoading';
import SearchField from '../../components/SearchField';
import { formatDateTime, formatInteger } from '../../lib/format';
import { datasetKeys, fetchStatistics, startStatistics } from './api';
import ColumnStatsCard from './ColumnStatsCard';

export const STATISTICS_POLL_MS = 1000;
const CARDS_PER_PAGE = 10;
const isActive = (s: string | undefined) => s === 'queued' || s === 'running';

function ResultView({ result }: { result: StatisticsResult }) {
  const { t } = useTranslation();
  const [filter, setFilter] = useState('');
  const [kind, setKind] = useState<string>('all');
  const [page, setPage] = useState(1);
  const columns = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return result.columns.filter((c) => (kind === 'all' || c.kind === kind) && (!f || c.name.toLowerCase().includes(f)));
  }, [result.columns, filter, kind]);
  const pages = Math.max(1, Math.ceil(columns.length / CARDS_PER_PAGE));
  const current = Math.min(page, pages);
  const kinds = Array.from(new Set(result.columns.map((c) => c.kind)));
  return (
    <Box>
      <Box sx={{ display: 'flex', gap: 1.5, alignItems: 'center', flexWrap: 'wrap', mb: 2 }}>
        <SearchField
          label={t('stats.filterColumns')}
          value={filter}
          onChange={(text) => {
            setFilter(text);
            setPage(1);
          }}
          sx={{ minWidth: 240 }}
        />
        {kinds.length > 1 && (
          <ToggleButtonGroup
            size="small"
            exclusive
            value={kind}
            onChange={(_, v: string | null) => {
              if (v) {
                setKind(v);
                setPage(1);
              }
            }}
          >
            <ToggleButton value="all">{t('common.all')}</ToggleButton>
            {kinds.map((k) => (
              <ToggleButton key={k} value={k}>
                {t(`stats.kinds.${k}`, { defaultValue: k })}
              </ToggleButton>
            ))}
          </ToggleButtonGroup>
        )}
        <Box sx={{ flex: 1 }} />
        <Typography variant="body2" color="text.secondary">
          {t('stats.shownColumns', { shown: columns.length, total: result.columns.length })}
        </Typography>
      </Box>
      {columns.length === 0 ? (
        <Paper variant="outlined" sx={{ p: 4, textAlign: 'center', color: 'text.secondary' }}>
          {t('common.noResults')}
        </Paper>
      ) : (
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', xl: '1fr 1fr' }, gap: 2 }}>
          {columns.slice((current - 1) * CARDS_PER_PAGE, current * CARDS_PER_PAGE).map((c) => (
            <ColumnStatsCard key={c.name} column={c} />
          ))}
        </Box>
      )}
      {pages > 1 && (
        <Box sx={{ display: 'flex', justifyContent: 'center', mt: 2 }}>
          <Pagination count={pages} page={current} onChange={(_, p) => setPage(p)} color="primary" shape="rounded" />
        </Box>
      )}
    </Box>
  );
}

/**
 * Full statistics made by the engine: start with POST /api/statistics/{id}, then poll
 * POST /api/statistics/result/{id} every second while queued or running (SPEC §4: succeeds or fails, can be re-run).
 */
export default function StatisticsTab({ dataset }: { dataset: Dataset }) {
  const canWrite = useCanWrite();
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [started, setStarted] = useState(false);
  const known = (dataset.statistics?.state ?? 'none') !== 'none';
  const key = datasetKeys.statistics(dataset.id);

  const job = useQuery({
    queryKey: key,
    // Polled every second: silent, and excluded from the global progress bar.
    queryFn: ({ signal }) => fetchStatistics(dataset.id, signal),
    enabled: known || started,
    meta: { background: true },
    staleTime: 0,
    refetchInterval: (q) => (q.state.status === 'error' ? false : isActive(q.state.data?.state) ? STATISTICS_POLL_MS : false),
  });

  const start = useMutation({
    mutationFn: () => startStatistics(dataset.id),
    onSuccess: (r) => {
      queryClient.setQueryData<StatisticsJob>(key, {
        job_id: r.job_id,
        state: (r.state as StatisticsJob['state']) ?? 'queued',
        progress: 0,
        message: null,
        error: null,
        result: null,
      });
      setStarted(true);
      void queryClient.invalidateQueries({ queryKey: key });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: datasetKeys.one(dataset.id) }),
  });

  const data = job.data;
  const state = data?.state ?? 'none';
  const runButton = (label: string, icon = <ReplayIcon />) => (
    canWrite && <Button variant={state === 'succeeded' ? 'outlined' : 'contained'} startIcon={icon} onClick={() => start.mutate()} disabled={start.isPending || isActive(state)}>
      {label}
    </Button>
  );

  if (!known && !started) {
    return (
      <Paper variant="outlined" sx={{ p: { xs: 3, md: 6 }, textAlign: 'center' }}>
        <QueryStatsIcon sx={{ fontSize: 44, color: 'text.secondary' }} />
        <Typography variant="h6" component="p" sx={{ mt: 1 }}>
          {t('stats.noneTitle')}
        </Typography>
        <Typography color="text.secondary" sx={{ mt: 1, mb: 3, maxWidth: 560, mx: 'auto' }}>
          {t('stats.noneText')}
        </Typography>
        {runButton(t('stats.generate'), <PlayArrowIcon />)}
      </Paper>
    );
  }
  if (job.isPending) return <PageLoading />;
  if (job.isError) {
    return (
      <Alert severity="error" action={<Button onClick={() => void job.refetch()}>{t('common.retry')}</Button>}>
        {job.error instanceof Error ? job.error.message : t('errors.loadFailed')}
      </Alert>
    );
  }

  return (
    <Box>
      {isActive(state) && (
        <Paper variant="outlined" sx={{ p: 2.5, mb: 2 }} aria-live="polite">
          <Box sx={{ display: 'flex', justifyContent: 'space-between', mb: 1, gap: 2 }}>
            <Typography sx={{ fontWeight: 500 }}>{state === 'queued' ? t('stats.queued') : t('stats.running')}</Typography>
            <Typography color="text.secondary">{Math.round((data?.progress ?? 0) * 100)}%</Typography>
          </Box>
          <LinearProgress
            variant={state === 'queued' ? 'indeterminate' : 'determinate'}
            value={Math.round((data?.progress ?? 0) * 100)}
            aria-label={t('stats.running')}
          />
          {data?.message && (
            <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
              {data.message}
            </Typography>
          )}
        </Paper>
      )}
      {state === 'failed' && (
        <Alert severity="error" sx={{ mb: 2 }} action={runButton(t('stats.runAgain'))}>
          <AlertTitle>{t('stats.failed')}</AlertTitle>
          {data?.error || data?.message || t('errors.unknown')}
        </Alert>
      )}
      {state === 'cancelled' && (
        <Alert severity="info" sx={{ mb: 2 }} action={runButton(t('stats.runAgain'))}>
          {t('stats.cancelled')}
        </Alert>
      )}
      {state === 'none' && (
        <Alert severity="info" sx={{ mb: 2 }} action={runButton(t('stats.generate'), <PlayArrowIcon />)}>
          {t('stats.noneText')}
        </Alert>
      )}
      {state === 'succeeded' && data?.result && (
        <>
          <Paper variant="outlined" sx={{ p: 1.5, mb: 2, display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap' }}>
            <Typography variant="body2">
              {t('stats.summary', {
                rows: formatInteger(data.result.row_count),
                columns: formatInteger(data.result.column_count),
                at: formatDateTime(data.result.generated_at),
              })}
            </Typography>
            <Box sx={{ flex: 1 }} />
            {runButton(t('stats.runAgain'))}
          </Paper>
          <ResultView result={data.result} />
        </>
      )}
    </Box>
  );
}
