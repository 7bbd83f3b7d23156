import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { download, useImagePrediction } from './api';
import { AuthImage, fmt, NS } from './shared';

/** /prediction/report/{analysis|classification}/{prediction_id}: each image with its class, score and heat-map; CSV. */
export default function PredictionReport() {
  const { t } = useTranslation(NS);
  const { prediction_id: id } = useParams();
  const { data } = useImagePrediction(id);
  usePageTitle(t('prediction.title'));
  if (!data) return <PageLoading />;
  const enc = encodeURIComponent;
  return (
    <Box sx={{ maxWidth: 1200 }}>
      <PageHeader
        title={`${t('prediction.title')} · ${data.name}`}
        subtitle={data.result?.threshold != null ? t('prediction.threshold', { t: fmt(data.result.threshold, 4) }) : undefined}
        actions={data.state === 'done' && <Button variant="outlined" onClick={() => download(`/api/image/prediction/${enc(data.id)}/csv`, `prediction-${data.id}.csv`)}>{t('prediction.csv')}</Button>}
      />
      {(data.state === 'queued' || data.state === 'running') && (
        <Box>
          <LinearProgress variant="determinate" value={Math.round(data.progress * 100)} />
          <Typography variant="caption">{t('prediction.running')}</Typography>
        </Box>
      )}
      {data.state === 'failed' && <Alert severity="error">{data.error ?? t('prediction.failed')}</Alert>}
      {data.state === 'done' && data.result && <LeftOut title={t('prediction.unreadable', { count: data.result.failed.length })} items={data.result.failed} testId="prediction-failed" />}
      {data.state === 'done' && data.result && <LeftOut title={t('prediction.skipped', { count: data.result.skipped.length })} items={data.result.skipped} testId="prediction-skipped" />}
      {data.state === 'done' && (
        <Typography variant="caption" color="text.secondary" component="p" sx={{ mb: 1 }}>
          {t(data.result?.algorithm === 'patchcore' ? 'result.heatLegendPatchcore' : 'result.heatLegendGradcam')}
        </Typography>
      )}
      <Box role="list" aria-label={t('prediction.title')} sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(180px, 1fr))', gap: 1.5 }}>
        {data.result?.rows.map((r, i) => (
          <Box role="listitem" key={i} sx={{ border: 1, borderColor: r.predicted === 'NG' ? 'error.main' : 'divider', borderRadius: 1, p: 0.5 }}>
            <AuthImage size={170} alt={r.name} path={`/api/image/prediction/${enc(data.id)}/heatmap/${String(i).padStart(6, '0')}`} />
            <Typography variant="body2" noWrap title={r.name}>
              {r.name}
            </Typography>
            <Typography variant="body2">
              {t('prediction.predicted')}: <b>{r.predicted}</b> · {t('prediction.score')} {fmt(r.score)}
            </Typography>
            {r.label && (
              <Typography variant="caption" color="text.secondary">
                {t('prediction.label')}: {r.label}
              </Typography>
            )}
          </Box>
        ))}
      </Box>
    </Box>
  );
}

/** Images or ZIP entries that got no result: each under the user's own name, with why (in the reader's language). */
function LeftOut({ title, items, testId }: { title: string; items: { entry: string; reason: string }[]; testId: string }) {
  if (!items.length) return null;
  return (
    <Alert severity="warning" sx={{ mb: 1 }} data-testid={testId}>
      <Typography variant="body2" sx={{ fontWeight: 500 }}>
        {title}
      </Typography>
      <Box component="ul" sx={{ m: 0, pl: 2.5 }}>
        {items.map((s, i) => (
          <li key={i}>
            <Typography variant="body2">
              <b>{s.entry}</b>: {s.reason}
            </Typography>
          </li>
        ))}
      </Box>
    </Alert>
  );
}
