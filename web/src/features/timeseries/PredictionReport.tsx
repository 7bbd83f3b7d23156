import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useParams } from 'react-router';
import { apiBlob } from '../../api/client';
import type { Bucket } from './api';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { saveBlob } from '../../lib/browser';
import '../prediction/i18nBundle';
import { PredictionState } from '../prediction/PredictionListPage';
import InfoGrid from '../../components/InfoGrid';
import { formatDateTime } from '../../lib/format';
import { resultPath, useTsPrediction, useTsPredictionSeries, type ThresholdStats } from './api';
import { ContributionBars, MetricCards } from './Metrics';
import ScoreChart from './ScoreChart';
import { fullTime } from '../../lib/timeAxis';

const enc = encodeURIComponent;

/** /prediction/time-series/report/{prediction_id}: scores, alarms and contributions on new data; CSV download. */
export default function PredictionReport() {
  const { t } = useTranslation('timeseries');
  const { prediction_id: id = '' } = useParams();
  const [span, setSpan] = useState(0);
  // [first, last] row shown: a drag across the chart zooms, the server downsamples that window again
  const [zoom, setZoom] = useState<[number, number] | null>(null);
  const pred = useTsPrediction(id);
  const done = pred.data?.state === 'done';
  const series = useTsPredictionSeries(id, zoom, done);
  usePageTitle(pred.data?.name);
  if (!pred.data) return <PageLoading />;
  const p = pred.data;
  const a = p.result?.anomaly;
  // the first alarm's time: the start of the first alarm span, which the series gives with its time
  const firstSpan = series.data?.spans[0];
  const firstAlarmTime = a && firstSpan && firstSpan.start === a.first_alarm_row ? firstSpan.start_time : null;
  const d = series.data;
  const timed = !!d?.time_column;
  return (
    <Box>
      <PageHeader
        title={
          <Box component="span" sx={{ display: 'inline-flex', gap: 1.5, alignItems: 'center' }}>
            {`${t('prediction.title')}: ${p.name}`} <PredictionState state={p.state} />
          </Box>
        }
        actions={
          <>
            <Button component={RouterLink} to="/prediction">
              {t('prediction.back')}
            </Button>
            <Button component={RouterLink} to={resultPath(p.project_id)}>
              {t('prediction.project')}
            </Button>
            {done && (
            <Button
              onClick={async () => {
                const { blob, fileName } = await apiBlob(`/api/inference/download/${enc(p.project_id)}/${enc(p.id)}`, `${p.name}-predictions.csv`);
                saveBlob(blob, fileName);
              }}
            >
              {t('prediction.download')}
            </Button>
            )}
          </>
        }
      />
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }} data-testid="prediction-about">
        <InfoGrid
          items={[
            { label: t('prediction.projectName'), value: p.project_name },
            { label: t('prediction.model'), value: p.model_key },
            { label: t('prediction.dataset'), value: p.test_dataset },
            { label: t('prediction.created'), value: formatDateTime(p.created_at) },
            { label: t('prediction.finished'), value: p.finished_at ? formatDateTime(p.finished_at) : '—' },
          ]}
        />
      </Paper>
      {!done && p.state !== 'failed' && <LinearProgress variant="determinate" value={p.progress * 100} />}
      {p.state === 'failed' && <Typography color="error">{p.error}</Typography>}
      {a && (
        <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
          <Typography data-testid="prediction-summary">
            {t('prediction.alarms', { count: a.alarms, rows: a.alarm_rows, scored: a.scored_rows, threshold: a.threshold === null ? '—' : Number(a.threshold.toPrecision(6)) })}
          </Typography>
          {a.first_alarm_row !== null && (
            <Typography variant="body2" data-testid="first-alarm">
              {firstAlarmTime !== null ? t('prediction.firstAlarmAt', { time: fullTime(firstAlarmTime), row: a.first_alarm_row + 1, column: series.data?.time_column, context: series.data?.time_kind }) : t('prediction.firstAlarm', { row: a.first_alarm_row + 1 })}
            </Typography>
          )}
        </Paper>
      )}
      {d?.labelled && (
        <Paper variant="outlined" sx={{ p: 2, mb: 2 }} data-testid="prediction-labelled">
          <Typography variant="h6" component="h2" gutterBottom>
            {t('prediction.labelled', { column: d.labelled.column, rows: d.labelled.rows })}
          </Typography>
          <MetricCards s={{ ...d.labelled, labelled: true, heldout_far: null } as unknown as ThresholdStats} />
          <Typography variant="body2" sx={{ mt: 1 }} data-testid="prediction-events">
            {t('prediction.events', { detected: d.labelled.event.events_detected, events: d.labelled.event.events, spans: d.labelled.event.alarm_spans, trueSpans: d.labelled.event.alarm_spans_true })}
          </Typography>
        </Paper>
      )}
      {series.data && (
        <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1 }}>
            <Typography variant="body2" color="text.secondary" sx={{ flex: 1 }} data-testid="prediction-window">
              {timed
                ? t('prediction.windowTimes', { column: d!.time_column, start: fullTime(d!.start_time), end: fullTime(d!.end_time), rows: d!.end - d!.start + 1, total: d!.rows })
                : t('prediction.window', { start: series.data.start + 1, end: series.data.end + 1, rows: series.data.rows })}
            </Typography>
            <Button size="small" onClick={() => setZoom(null)} disabled={!zoom}>
              {t('prediction.resetZoom')}
            </Button>
          </Box>
          <ScoreChart
            label={t('threshold.score')}
            points={series.data.points as Bucket[] /* [position, min, max]: the generator writes tuples as arrays */}
            start={series.data.start}
            end={series.data.end}
            times={timed ? series.data.times : series.data.points.map((b) => (b[0] as number) + 1) /* the rows' times; without the time column, row numbers from 1 */}
            threshold={series.data.threshold ?? NaN}
            spans={series.data.spans.map((s) => [s.start, s.end])}
            onZoom={(r) => setZoom(r && r[1] > r[0] ? r : null)}
            onSpanClick={(s) => setSpan(Math.max(0, series.data!.spans.findIndex((x) => x.start === s[0])))}
          />
          <Typography variant="caption" color="text.secondary">
            {t('threshold.zoomHelp')}
          </Typography>
          {series.data.spans[span]?.contributions.length ? (
            <Box sx={{ mt: 2 }}>
              <Typography variant="subtitle2">
                {t('prediction.spans')}:{' '}
                {timed
                  ? `${fullTime(series.data.spans[span].start_time)} – ${fullTime(series.data.spans[span].end_time)}`
                  : `${series.data.spans[span].start + 1}–${series.data.spans[span].end + 1}`}
              </Typography>
              <ContributionBars items={series.data.spans[span].contributions} />
            </Box>
          ) : null}
        </Paper>
      )}
    </Box>
  );
}
