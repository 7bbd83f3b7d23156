import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { showSnackbar } from '../../lib/feedback';
import { contributions, reportPath, saveThreshold, type ThresholdStats, thresholdStats, tsKeys, useSeries, useTsProject } from './api';
import { ContributionBars, MetricCards } from './Metrics';
import ScoreChart from './ScoreChart';

/** /training/result/threshold/{project_id}/{model_key}: drag the threshold, see exact metrics at once, save it. */
/** What the chart's colours mean, and that its figures are exact over every row. */
function ChartLegend({ rows }: { rows: number }) {
  const { t } = useTranslation('timeseries');
  return (
    <Box sx={{ display: 'flex', gap: 2, fontSize: 12, color: 'text.secondary', mt: 0.5, flexWrap: 'wrap' }}>
      <span>
        <Box component="span" sx={{ display: 'inline-block', width: 12, height: 8, bgcolor: '#e53935', mr: 0.5 }} />
        {t('threshold.alarmSpans')}
      </span>
      <span>
        <Box component="span" sx={{ display: 'inline-block', width: 12, height: 8, bgcolor: '#bdbdbd', mr: 0.5 }} />
        {t('threshold.events')}
      </span>
      <span>
        <Box component="span" sx={{ display: 'inline-block', width: 12, height: 8, bgcolor: '#e3f2fd', mr: 0.5 }} />
        {t('threshold.trainPart')}
      </span>
      <span>{t('threshold.exact', { rows: rows.toLocaleString() })}</span>
    </Box>
  );
}

/** The signals behind the alarm span clicked on the chart. */
function ContributionsPanel({ contrib }: { contrib: { available: boolean; items: { signal: string; value: number }[] } | null }) {
  const { t } = useTranslation('timeseries');
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Typography variant="subtitle1" gutterBottom>
        {t('threshold.contributions')}
      </Typography>
      {!contrib && <Typography variant="body2">{t('threshold.clickAlarm')}</Typography>}
      {contrib && !contrib.available && <Typography variant="body2">{t('threshold.noContributions')}</Typography>}
      {contrib?.available && <ContributionBars items={contrib.items} />}
    </Paper>
  );
}

export default function ThresholdPage() {
  const { t } = useTranslation('timeseries');
  const { project_id: id = '', model_key: key = '' } = useParams();
  const qc = useQueryClient();
  const { data: p } = useTsProject(id);
  const [zoom, setZoom] = useState<[number, number] | null>(null);
  const series = useSeries(id, key, zoom?.[0], zoom?.[1]);
  const [threshold, setThreshold] = useState<number | null>(null);
  const [text, setText] = useState('');
  const [far, setFar] = useState('1');
  const [stats, setStats] = useState<ThresholdStats | null>(null);
  const [selected, setSelected] = useState<[number, number] | null>(null);
  const [contrib, setContrib] = useState<{ available: boolean; items: { signal: string; value: number }[] } | null>(null);
  const pending = useRef<AbortController | null>(null);
  const model = p?.models.find((m) => m.model_key === key);
  usePageTitle(p ? `${p.name} · ${t('threshold.title')}` : undefined);

  const ask = (q: { threshold?: number; target_far?: number }) => {
    pending.current?.abort();
    const ctl = new AbortController();
    pending.current = ctl;
    thresholdStats(id, key, q, ctl.signal)
      .then((s) => {
        if (ctl.signal.aborted) return;
        setStats(s);
        if (q.target_far !== undefined || threshold === null) {
          setThreshold(s.threshold);
          setText(String(Number(s.threshold.toPrecision(6))));
        }
      })
      .catch(() => undefined);
  };
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(() => ask({}), [id, key]);

  const move = (v: number) => {
    setThreshold(v);
    setText(String(Number(v.toPrecision(6))));
    ask({ threshold: v });
  };

  if (!p || !model || !series.data || !stats || threshold === null) return <PageLoading />;
  const s = series.data;
  const save = async () => {
    await saveThreshold(id, key, threshold);
    await qc.invalidateQueries({ queryKey: tsKeys.project(id) });
    // the report's figures and alarm list follow the threshold in force: drop what was read at the old one
    await Promise.all([qc.invalidateQueries({ queryKey: ['timeseries', 'report', id] }), qc.invalidateQueries({ queryKey: ['timeseries', 'stats', id] })]);
    showSnackbar(t('threshold.saved'), 'success');
    ask({ threshold });
  };

  return (
    <Box>
      <PageHeader
        title={`${t('threshold.title')}: ${model.label}`}
        subtitle={`${p.name} · ${t(`types.${p.project_type}`)}`}
        actions={
          <>
            <Button component={RouterLink} to={reportPath(id, key)}>
              {t('details.report')}
            </Button>
            <Button variant="contained" onClick={save}>
              {t('threshold.save')}
            </Button>
          </>
        }
      />
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          {t('threshold.drag')}
        </Typography>
        <ScoreChart
          label={t('threshold.score')}
          thresholdLabel={t('threshold.value')}
          points={s.points}
          times={s.times}
          start={s.start}
          end={s.end}
          threshold={threshold}
          spans={stats.spans}
          events={s.events}
          trainPart={s.parts.filter((x) => x.part === 'train')}
          onThreshold={(v) => {
            setText(String(Number(v.toPrecision(6))));
            ask({ threshold: v });
          }}
          onThresholdEnd={move}
          onZoom={setZoom}
          selected={selected}
          onSpanClick={async (span) => {
            setSelected(span);
            setContrib(await contributions(id, key, span[0], span[1]));
          }}
        />
        <ChartLegend rows={s.rows} />
      </Paper>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '2fr 1fr' }, gap: 2 }}>
        <Paper variant="outlined" sx={{ p: 2 }}>
          <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', mb: 2, alignItems: 'center' }}>
            <TextField
              size="small"
              label={t('threshold.value')}
              value={text}
              onChange={(e) => setText(e.target.value)}
              onBlur={() => Number.isFinite(Number(text)) && text.trim() !== '' && move(Number(text))}
              onKeyDown={(e) => e.key === 'Enter' && Number.isFinite(Number(text)) && text.trim() !== '' && move(Number(text))}
              slotProps={{ htmlInput: { 'aria-label': t('threshold.value'), inputMode: 'decimal' } }}
            />
            <TextField size="small" label={t('threshold.targetFar')} value={far} onChange={(e) => setFar(e.target.value)} sx={{ width: 190 }} />
            <Button onClick={() => Number(far) >= 0 && Number(far) <= 100 && ask({ target_far: Number(far) / 100 })}>{t('threshold.apply')}</Button>
            <Button disabled={stats.trained_threshold === null} onClick={() => stats.trained_threshold !== null && move(stats.trained_threshold)}>{t('threshold.reset')}</Button>
          </Box>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
            {stats.trained_threshold !== null && t('threshold.trained', { value: Number(stats.trained_threshold.toPrecision(6)) })}
            {stats.saved_threshold !== null && `${stats.trained_threshold !== null ? ' · ' : ''}${t('threshold.savedValue', { value: Number(stats.saved_threshold.toPrecision(6)) })}`}
            {` · ${t(stats.evaluated_part === 'train' ? 'metrics.evaluatedTrain' : stats.evaluated_part === 'validation' ? 'metrics.evaluatedHeldBack' : 'metrics.evaluated')}: ${stats.evaluated_rows.toLocaleString()}`}
          </Typography>
          {!stats.labelled && (
            <Alert severity="info" sx={{ mb: 1 }}>
              {t('threshold.noLabels')}
            </Alert>
          )}
          <MetricCards s={stats} />
        </Paper>
        <ContributionsPanel contrib={contrib} />
      </Box>
    </Box>
  );
}
