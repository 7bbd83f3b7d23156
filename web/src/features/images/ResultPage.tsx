import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import FormControlLabel from '@mui/material/FormControlLabel';
import Paper from '@mui/material/Paper';
import Switch from '@mui/material/Switch';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { download, predictImages, useDetail } from './api';
import { AuthImage, ConfusionMatrix, fmt, MetricsTable, NS, ImageFilesButton } from './shared';

/** Results of one image model: test metrics, confusion matrix, a gallery of test images with heat-maps, downloads and prediction. */
export default function ResultPage() {
  const { t } = useTranslation(NS);
  const { project_id: id, model_key: key } = useParams();
  const navigate = useNavigate();
  const { data } = useDetail(id, key);
  const [errorsOnly, setErrorsOnly] = useState(false);
  const [heat, setHeat] = useState(true);
  const [files, setFiles] = useState<File[]>([]);
  const [busy, setBusy] = useState(false);
  usePageTitle(data ? `${data.project.name} · ${key}` : null);
  if (!data) return <PageLoading />;
  const { project: p, report } = data;
  const enc = encodeURIComponent;
  const items = report.gallery.filter((g) => !errorsOnly || g.predicted !== g.label);
  const predict = async () => {
    setBusy(true);
    try {
      const r = await predictImages(p.project_id, key!, files);
      navigate(`/prediction/report/${r.report_type}/${enc(r.id)}`);
    } catch {
      setBusy(false);
    }
  };
  return (
    <Box sx={{ maxWidth: 1200 }}>
      <PageHeader
        title={t('result.title', { model: `${p.name} · ${t(`algo.${data.model.algorithm}`)}` })}
        subtitle={data.threshold !== null ? t('result.thresholdRule', { t: fmt(data.threshold, 4), rule: data.threshold_rule ?? '' }) : undefined}
        actions={
          <>
            {p.project_type === 'analysis' && (
              <Button variant="contained" component={RouterLink} to={`/training/result/threshold/${enc(p.project_id)}/${enc(key!)}`}>
                {t('result.openThreshold')}
              </Button>
            )}
            <Button variant="outlined" component={RouterLink} to={`/training/prediction/register/${enc(p.project_id)}/${enc(key!)}`}>
              {t('wizard.title')}
            </Button>
            {p.project_type === 'classification' && (
              <Button variant="outlined" component={RouterLink} to={`/training/classification/class?project_id=${enc(p.project_id)}&model_key=${enc(key!)}`}>
                {t('browse.byClass')}
              </Button>
            )}
            <Button variant="outlined" onClick={() => download(`/api/report/${enc(p.project_id)}/${enc(key!)}`, `${key}-report.html`)}>
              {t('result.downloadReport')}
            </Button>
            <Button variant="outlined" onClick={() => download(`/api/image/model/download/${enc(p.project_id)}/${enc(key!)}`, `${key}.pt`)}>
              {t('result.downloadModel')}
            </Button>
          </>
        }
      />
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', mb: 2 }}>
        <Paper variant="outlined" sx={{ p: 2, flex: '1 1 320px' }}>
          <Typography variant="h6">{t('result.metrics')}</Typography>
          <MetricsTable metrics={report.metrics} />
        </Paper>
        <Paper variant="outlined" sx={{ p: 2, flex: '1 1 320px' }}>
          <Typography variant="h6">{t('result.confusion')}</Typography>
          <ConfusionMatrix cm={report.metrics.confusion_matrix} />
        </Paper>
      </Box>
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap' }}>
          <Typography variant="h6" sx={{ flex: 1 }}>
            {t('result.gallery')} ({items.length})
          </Typography>
          <FormControlLabel control={<Switch checked={errorsOnly} onChange={(e) => setErrorsOnly(e.target.checked)} />} label={t('result.errorsOnly')} />
          <FormControlLabel control={<Switch checked={heat} onChange={(e) => setHeat(e.target.checked)} />} label={t('result.heatmap')} />
        </Box>
        {heat && (
          <Typography variant="caption" color="text.secondary" component="p">
            {t(data.model.algorithm === 'patchcore' ? 'result.heatLegendPatchcore' : 'result.heatLegendGradcam')}
            {data.model.algorithm === 'patchcore' && report.threshold !== undefined && report.threshold !== data.threshold && t('result.heatAtTraining', { t: fmt(report.threshold, 4) })}
          </Typography>
        )}
        {!items.length && <Typography color="text.secondary">{t('result.none')}</Typography>}
        <Box role="list" aria-label={t('result.gallery')} sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(160px, 1fr))', gap: 1.5, mt: 1 }}>
          {items.map((g) => (
            <Box role="listitem" key={g.id} sx={{ border: 2, borderColor: g.predicted === g.label ? 'success.light' : 'error.main', borderRadius: 1, p: 0.5 }}>
              <AuthImage
                size={150}
                alt={`${g.label} → ${g.predicted}`}
                path={heat && g.heatmap ? `/api/image/train/heatmap/${enc(p.project_id)}/${enc(key!)}/${g.id}` : `/api/image/dataset/${enc(p.dataset_id)}/image/${g.id}?thumb=1`}
              />
              <Typography variant="caption" component="div">
                {g.label} → <b>{g.predicted}</b> · {t('result.score')} {fmt(g.score)}
              </Typography>
            </Box>
          ))}
        </Box>
      </Paper>
      <Paper variant="outlined" sx={{ p: 2 }}>
        <Typography variant="h6">{t('result.predict')}</Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          {t('result.predictHelp')}
        </Typography>
        <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap' }}>
          <ImageFilesButton files={files} onChange={setFiles} testId="predict-files" />
          <Button variant="contained" disabled={!files.length || busy} onClick={predict}>
            {t('result.run')}
          </Button>
        </Box>
      </Paper>
    </Box>
  );
}
