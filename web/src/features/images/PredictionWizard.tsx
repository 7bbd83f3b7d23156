import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import WizardSteps from '../../components/WizardSteps';
import { useAllDatasets } from '../datasets/api';
import { predictDataset, predictImages, useImageProject } from './api';
import { ImageFilesButton, MetricsTable, NS } from './shared';

const STEPS = ['overview', 'dataset', 'preview'] as const;
const enc = encodeURIComponent;

/**
 * The inference wizard (SPEC §2: overview, test dataset choice, preview) for an image project: a trained model,
 * then an image dataset of the organisation (a ZIP registered as inference or training data) or image files
 * from this computer, then the prediction job; its report is /prediction/report/{analysis|classification}/{id}.
 */
export default function PredictionWizard() {
  const { t } = useTranslation(NS);
  const params = useParams();
  const navigate = useNavigate();
  const { data: p } = useImageProject(params.project_id);
  const datasets = useAllDatasets();
  const [step, setStep] = useState(0);
  const [modelKey, setModelKey] = useState(params.model_key ?? '');
  const [source, setSource] = useState<'dataset' | 'files'>('dataset');
  const [datasetId, setDatasetId] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  usePageTitle(t('wizard.title'));
  if (!p || datasets.isLoading) return <PageLoading />;
  const done = p.models.filter((m) => m.state === 'done');
  const model = done.find((m) => m.model_key === modelKey) ?? done[0] ?? null;
  const imageSets = (datasets.data ?? []).filter((d) => d.file_name.toLowerCase().endsWith('.zip'));
  const dataset = imageSets.find((d) => d.id === datasetId) ?? null;
  const next = () => {
    if (step === 0 && !model) return setError(t('wizard.chooseModel'));
    if (step === 1 && (source === 'dataset' ? !dataset : !files.length)) return setError(t('wizard.chooseInput'));
    setError('');
    setStep(step + 1);
  };
  const execute = async () => {
    setBusy(true);
    try {
      const r =
        source === 'files'
          ? await predictImages(p.project_id, model!.model_key, files)
          : await predictDataset(p.project_id, model!.model_key, dataset!.id);
      navigate(`/prediction/report/${r.report_type}/${enc(r.id)}`);
    } catch {
      setBusy(false);
    }
  };
  return (
    <>
      <PageHeader title={t('wizard.title')} subtitle={`${p.name} · ${t(`type.${p.project_type}`)}`} />
      <WizardSteps labels={STEPS.map((k) => t(`wizard.steps.${k}`))} step={step} error={error} panel={{ maxWidth: 900 }}>
        {step === 0 && (
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
            {!done.length && <Alert severity="warning">{t('wizard.noModels')}</Alert>}
            <TextField select label={t('wizard.model')} value={model?.model_key ?? ''} onChange={(e) => setModelKey(e.target.value)} required>
              {done.map((m) => (
                <MenuItem key={m.model_key} value={m.model_key}>
                  {m.model_key} · {t(`algo.${m.algorithm}`)}
                </MenuItem>
              ))}
            </TextField>
            {model && <MetricsTable metrics={model.metrics} />}
          </Box>
        )}
        {step === 1 && (
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
            <TextField select label={t('wizard.source')} value={source} onChange={(e) => setSource(e.target.value as 'dataset' | 'files')}>
              <MenuItem value="dataset">{t('wizard.fromDataset')}</MenuItem>
              <MenuItem value="files">{t('wizard.fromFiles')}</MenuItem>
            </TextField>
            {source === 'dataset' ? (
              <TextField select label={t('wizard.dataset')} value={datasetId} onChange={(e) => setDatasetId(e.target.value)} helperText={!imageSets.length ? t('wizard.noImageDatasets') : undefined}>
                {imageSets.map((d) => (
                  <MenuItem key={d.id} value={d.id}>
                    {d.name} · {t('pre.imageCount', { n: d.row_count })}
                  </MenuItem>
                ))}
              </TextField>
            ) : (
              <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap' }}>
                <ImageFilesButton files={files} onChange={setFiles} testId="wizard-files" />
              </Box>
            )}
          </Box>
        )}
        {step === 2 && model && (
          <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: 2, rowGap: 1, m: 0 }}>
            <Typography component="dt" color="text.secondary">
              {t('wizard.model')}
            </Typography>
            <Typography component="dd" sx={{ m: 0 }}>
              {model.model_key} · {t(`algo.${model.algorithm}`)}
            </Typography>
            <Typography component="dt" color="text.secondary">
              {t('wizard.input')}
            </Typography>
            <Typography component="dd" sx={{ m: 0 }}>
              {source === 'dataset' ? dataset?.name : files.map((f) => f.name).join(', ')}
            </Typography>
            {model.threshold !== null && (
              <>
                <Typography component="dt" color="text.secondary">
                  {t('wizard.threshold')}
                </Typography>
                <Typography component="dd" sx={{ m: 0 }}>
                  {model.threshold.toFixed(4)}
                </Typography>
              </>
            )}
          </Box>
        )}
        <Box sx={{ display: 'flex', gap: 1, mt: 3 }}>
          {step > 0 && <Button onClick={() => setStep(step - 1)}>{t('pre.back')}</Button>}
          {step < 2 ? (
            <Button variant="contained" onClick={next}>
              {t('pre.next')}
            </Button>
          ) : (
            <Button variant="contained" onClick={execute} disabled={busy}>
              {t('wizard.execute')}
            </Button>
          )}
        </Box>
      </WizardSteps>
    </>
  );
}
