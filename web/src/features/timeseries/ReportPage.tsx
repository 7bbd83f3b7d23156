import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import InfoGrid from '../../components/InfoGrid';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { formatMetric } from '../training/labels';
import { type Bucket, downloadTsModel, downloadTsReport, signals, thresholdPath, thresholdStats, useSeries, useTsCatalogue, useTsReport } from './api';
import { ContributionBars, MetricCards } from './Metrics';
import ScoreChart from './ScoreChart';
import { fullTime } from '../../lib/timeAxis';

type Report = NonNullable<ReturnType<typeof useTsReport>['data']>['report'];

/** Labelled events of the evaluated part: how many were caught, and each with its delay or as missed. */
function EventMetrics({ event }: { event: NonNullable<Report['metrics']['event']> }) {
  const { t } = useTranslation('timeseries');
  return (
    <>
      <Typography variant="subtitle2" sx={{ mt: 2 }}>
        {t('report.event')}
      </Typography>
      <InfoGrid
        items={[
          { label: t('metrics.events'), value: `${event.events_detected} / ${event.events}` },
          { label: t('metrics.precision'), value: formatMetric(event.precision) },
          { label: t('metrics.recall'), value: formatMetric(event.recall) },
          { label: t('metrics.f1'), value: formatMetric(event.f1) },
        ]}
      />
      <Typography variant="subtitle2" sx={{ mt: 1 }}>
        {t('report.perEvent')}
      </Typography>
      {event.per_event.slice(0, 20).map((e) => {
        // by the time-column values of the event's first and last rows (row positions only in a report without them)
        const span = { start: e.start_time != null ? fullTime(e.start_time) : e.start, end: e.end_time != null ? fullTime(e.end_time) : e.end };
        return (
          <Typography key={e.start} variant="body2">
            {!e.detected
              ? t('report.eventMissed', span)
              : e.delay_seconds != null
                ? t('report.eventDetectedSeconds', { ...span, rows: e.delay_rows, seconds: e.delay_seconds })
                : t('report.eventDetected', { ...span, rows: e.delay_rows })}
          </Typography>
        );
      })}
    </>
  );
}

/** /training/time-series/report/{project_id}/{model}: score and alarms over time, signals, metrics, contributions. */
/** A detector's figure as read: the rule that chose its components in words, numbers formatted. */
const figureValue = (t: TFunction, k: string, v: unknown) => (k === 'components_rule' ? t(`report.componentRules.${String(v)}`, { defaultValue: String(v) }) : formatMetric(v));

export default function ReportPage() {
  const { t } = useTranslation('timeseries');
  const { project_id: id = '', model: key = '' } = useParams();
  const rep = useTsReport(id, key);
  const catalogue = useTsCatalogue();
  const [zoom, setZoom] = useState<[number, number] | null>(null);
  const series = useSeries(id, key, zoom?.[0], zoom?.[1]);
  const stats = useQuery({ queryKey: ['timeseries', 'stats', id, key], queryFn: ({ signal }) => thresholdStats(id, key, {}, signal) });
  const [alarm, setAlarm] = useState(0);
  const data = rep.data;
  const r = data?.report;
  const shown: string[] = r ? (r.alarms[alarm]?.contributions ?? []).slice(0, 4).map((c) => c.signal) : [];
  const sig = useQuery({
    queryKey: ['timeseries', 'signals', id, key, shown.join(','), zoom?.[0], zoom?.[1]],
    queryFn: () => signals(id, key, shown.length ? shown : (r?.signals ?? []).slice(0, 4), zoom?.[0], zoom?.[1]),
    enabled: !!r,
  });
  usePageTitle(data ? `${data.project.name} · ${data.model.label}` : undefined);
  if (!data || !series.data || !stats.data) return <PageLoading />;
  const report = data.report;
  const m = report.metrics;
  const s = series.data;
  // the raw signals are downsampled on their own buckets: each is labelled by the time of the score bucket it falls in
  const timesAt = (pts: Bucket[]) =>
    pts.map(([pos]) => {
      const i = s.points.findIndex((b) => b[0] >= pos);
      return s.times[i < 0 ? s.times.length - 1 : i] ?? null;
    });
  // a detector's figures: its parameters by their catalogue labels, the fitted values (limits, components) from here
  const params = catalogue.data?.[data.project.mode]?.find((a) => a.key === data.model.algorithm)?.params ?? [];
  const figureLabel = (k: string) => params.find((p) => p.name === k)?.label ?? t(`report.figures.${k}`, { defaultValue: k });
  return (
    <Box>
      <PageHeader
        title={`${t('report.title')}: ${data.model.label}`}
        subtitle={`${data.project.name} · ${t(`types.${data.project.project_type}`)}`}
        actions={
          <>
            <Button component={RouterLink} to={thresholdPath(id, key)}>
              {t('details.thresholdPage')}
            </Button>
            <Button onClick={() => downloadTsReport(data.project, data.model)}>{t('report.downloadHtml')}</Button>
            <Button onClick={() => downloadTsModel(data.project, data.model)}>{t('details.download')}</Button>
          </>
        }
      />
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <ScoreChart
          label={t('threshold.score')}
          points={s.points}
          times={s.times}
          start={s.start}
          end={s.end}
          threshold={stats.data.threshold}
          spans={stats.data.spans}
          events={s.events}
          trainPart={s.parts.filter((x) => x.part === 'train')}
          onZoom={setZoom}
          onSpanClick={(span) => {
            const i = report.alarms.findIndex((a: { start: number }) => a.start === span[0]);
            if (i >= 0) setAlarm(i);
          }}
        />
        <Typography variant="caption" color="text.secondary">
          {t('threshold.zoomHelp')}
        </Typography>
        {data.project.drift_signals.length > 0 && (
          <Typography variant="body2" color="text.secondary" data-testid="report-drift">
            {t('details.drift')}: {t('details.driftValue', { signals: data.project.drift_signals.join(', '), rows: data.project.drift_rows })}
          </Typography>
        )}
        {sig.data && (
          <Box sx={{ mt: 1 }}>
            <Typography variant="subtitle2">{t('report.signals')}</Typography>
            {sig.data.columns.map((c) => (
              <Box key={c}>
                <Typography variant="caption">{c}</Typography>
                <ScoreChart label={c} points={sig.data.series[c]} times={timesAt(sig.data.series[c])} start={s.start} end={s.end} threshold={NaN} spans={stats.data.spans} />
              </Box>
            ))}
          </Box>
        )}
      </Paper>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, gap: 2, mb: 2 }}>
        <Paper variant="outlined" sx={{ p: 2 }}>
          <Typography variant="h6" gutterBottom>
            {t(stats.data.evaluated_part === 'validation' ? 'report.metricsHeldBack' : stats.data.evaluated_part === 'train' ? 'report.metricsInSample' : 'report.metrics')}
          </Typography>
          <MetricCards s={stats.data} />
          {m.event && <EventMetrics event={m.event} />}
        </Paper>
        <Paper variant="outlined" sx={{ p: 2 }}>
          <Typography variant="h6" gutterBottom>
            {t('report.detector')}
          </Typography>
          <InfoGrid items={Object.entries({ ...report.detector, ...report.hyperparameters }).map(([k, v]) => ({ label: figureLabel(k), value: figureValue(t, k, v) }))} />
          {report.alarms[alarm]?.contributions && (
            <>
              <Typography variant="subtitle2" sx={{ mt: 2 }}>
                {t('threshold.contributions')} ({fullTime(report.alarms[alarm].start_time)} – {fullTime(report.alarms[alarm].end_time)})
              </Typography>
              <ContributionBars items={report.alarms[alarm].contributions.filter((c): c is { signal: string; value: number } => c.value !== null)} />
            </>
          )}
        </Paper>
      </Box>
      <Paper variant="outlined">
        <Typography variant="h6" sx={{ p: 2, pb: 0 }} data-testid="alarms-heading">
          {t('report.alarmsAt', { threshold: Number(stats.data.threshold.toPrecision(4)).toString(), saved: stats.data.saved_threshold !== null ? t('report.savedMark') : '', count: report.alarms.length })}
        </Typography>
        <Table size="small" aria-label={t('report.alarms')}>
          <TableHead>
            <TableRow>
              <TableCell>{t('report.start')}</TableCell>
              <TableCell>{t('report.end')}</TableCell>
              <TableCell>{t('report.peak')}</TableCell>
              <TableCell>{t('report.part')}</TableCell>
              <TableCell>{t('report.top')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {report.alarms.slice(0, 50).map((a, i) => (
              <TableRow key={a.start} hover selected={i === alarm} onClick={() => setAlarm(i)} sx={{ cursor: 'pointer' }}>
                <TableCell>{a.start_time != null ? fullTime(a.start_time) : '—'}</TableCell>
                <TableCell>{a.end_time != null ? fullTime(a.end_time) : '—'}</TableCell>
                <TableCell>{formatMetric(a.peak_score)}</TableCell>
                <TableCell>{t(`report.parts.${a.part}`, { defaultValue: a.part })}</TableCell>
                <TableCell>{(a.contributions ?? []).slice(0, 3).map((c) => c.signal).join(', ') || '—'}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </Paper>
    </Box>
  );
}
