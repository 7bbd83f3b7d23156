import Alert from '@mui/material/Alert';
import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import type { Dataset } from '../../api/types';
import { usePageTitle } from '../../app/pageTitle';
import InfoGrid from '../../components/InfoGrid';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import WizardSteps from '../../components/WizardSteps';
import { formatInteger } from '../../lib/format';
import { useAllDatasets, useDatasetSchema } from '../datasets/api';
import { isProjectType, metricOf, useProject } from '../training/api';
import { formatMetric, PRIMARY_METRICS } from '../training/labels';
import '../timeseries/i18nBundle';
import { isTsType, modeOf, type TsModel, useTsProject } from '../timeseries/api';
import { executePrediction, reportPath } from './api';
import UploadInPlace from './UploadInPlace';
import { NS } from './PredictionListPage';

const STEPS = ['overview', 'dataset', 'preview'] as const;

const pct = (v: unknown) => (typeof v === 'number' ? `${(v * 100).toFixed(1)} %` : '—');
const num = (v: unknown) => (typeof v === 'number' ? Number(v.toPrecision(4)).toString() : '—');

/** SPEC §2 inference wizard: overview (model), test dataset choice, preview. */
export default function PredictionWizard() {
  const { t } = useTranslation(NS);
  const params = useParams();
  const projectId = params.project_id ?? '';
  const navigate = useNavigate();
  const qc = useQueryClient();
  const { data: project, isLoading } = useProject(projectId);
  const datasets = useAllDatasets();
  usePageTitle(t('wizard.title'));
  const [step, setStep] = useState(0);
  const [modelKey, setModelKey] = useState<string>(params.model_key ?? '');
  const [dataset, setDataset] = useState<Dataset | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const schema = useDatasetSchema(dataset?.id);
  // A detector predicts at the threshold in force (a saved one, else the trained one): the time-series view says which.
  const ts = useTsProject(project && isTsType(project.project_type) ? projectId : undefined);
  if (isLoading || datasets.isLoading || ts.isLoading) return <PageLoading />;
  if (!project) return null;

  const done = project.models.filter((m) => m.state === 'done');
  const model = done.find((m) => m.model_key === (modelKey || project.best_model_key)) ?? null;
  const key = model?.model_key ?? '';
  const have = new Set((schema.data?.columns ?? []).map((c) => c.name));
  const missing = dataset && schema.data ? project.feature_variables.filter((f) => !have.has(f)) : [];
  const items = (datasets.data ?? []).slice().sort((a, b) => (a.data_type === 'inference_data' ? -1 : 0) - (b.data_type === 'inference_data' ? -1 : 0));

  const next = () => {
    if (step === 0 && !model) return setError(t('wizard.chooseModel'));
    if (step === 1 && !dataset) return setError(t('wizard.chooseDataset'));
    setError('');
    setStep(step + 1);
  };

  const execute = async () => {
    if (!model || !dataset) return;
    setBusy(true);
    try {
      const p = await executePrediction(project.project_id, key, dataset.id, name.trim());
      await qc.invalidateQueries({ queryKey: ['prediction'] });
      navigate(reportPath(p));
    } finally {
      setBusy(false);
    }
  };

  const metrics = isProjectType(project.project_type) ? PRIMARY_METRICS[project.project_type] : [];
  const detectors = new Map((ts.data?.models ?? []).map((d) => [d.model_key, d]));
  const detectorFigures = (d: TsModel) => {
    const mt = (d.metrics ?? {}) as Record<string, unknown>;
    const threshold = `${t('details.threshold', { ns: 'timeseries' })} ${num(d.threshold)}${d.saved_threshold !== null ? ` (${t('details.saved', { ns: 'timeseries' })})` : ''}`;
    const far = `${t('metrics.far', { ns: 'timeseries' })} ${pct(mt.far)}`;
    return [...(modeOf(project.project_type) === 'supervised' ? [`${t('metrics.f1', { ns: 'timeseries' })} ${num(mt.f1)}`] : []), far, threshold];
  };
  const modelLabel = (m: (typeof done)[number]) => {
    const d = detectors.get(m.model_key);
    if (d) return `${d.label} — ${detectorFigures(d).join(' · ')}`;
    return `${m.model_key} — ${metrics.map((k) => `${t(`metrics.${k}`, { ns: 'training' })} ${formatMetric(metricOf(m, k))}`).join(' · ')}`;
  };
  return (
    <>
      <PageHeader title={t('wizard.title')} subtitle={`${project.name} · ${t(`types.${project.project_type}`, { ns: 'training' })}`} />
      <WizardSteps labels={STEPS.map((k) => t(`wizard.steps.${k}`))} step={step} error={error} panel={{ mb: 2 }}>
        {step === 0 && (
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 720 }}>
            {done.length === 0 && <Alert severity="warning">{t('wizard.noModels')}</Alert>}
            <TextField select label={t('wizard.model')} value={key} onChange={(e) => setModelKey(e.target.value)} required>
              {done.map((m) => (
                <MenuItem key={m.model_key} value={m.model_key}>
                  {modelLabel(m)}
                </MenuItem>
              ))}
            </TextField>
            <InfoGrid
              items={[
                { label: t('wizard.project'), value: project.name },
                ...(project.target_variables.length ? [{ label: t('wizard.target'), value: project.target_variables.join(', ') }] : []),
                { label: t('wizard.features'), value: project.feature_variables.join(', '), wide: true },
              ]}
            />
          </Box>
        )}
        {step === 1 && (
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 720 }}>
            <Autocomplete
              options={items}
              value={dataset}
              onChange={(_, v) => setDataset(v)}
              groupBy={(d) => t(`dataset.dataTypes.${d.data_type}`, { ns: 'translation', defaultValue: d.data_type })}
              getOptionLabel={(d) => `${d.name} (${formatInteger(d.row_count)} × ${d.column_count})`}
              isOptionEqualToValue={(a, b) => a.id === b.id}
              renderInput={(p) => <TextField {...p} label={t('wizard.dataset')} required helperText={t('wizard.datasetHelp', { features: project.feature_variables.join(', ') })} />}
            />
            {missing.length > 0 && <Alert severity="warning">{t('wizard.datasetHelp', { features: missing.join(', ') })}</Alert>}
            <UploadInPlace
              projectType={project.project_type}
              onRegistered={(d) => {
                setDataset(d);
                setError('');
              }}
            />
          </Box>
        )}
        {step === 2 && (
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 720 }}>
            <InfoGrid
              items={[
                { label: t('wizard.project'), value: project.name },
                { label: t('wizard.model'), value: key },
                { label: t('wizard.dataset'), value: dataset ? `${dataset.name} (${formatInteger(dataset.row_count)})` : '' },
              ]}
            />
            <TextField label={t('wizard.name')} value={name} onChange={(e) => setName(e.target.value)} slotProps={{ htmlInput: { maxLength: 200 } }} />
          </Box>
        )}
      </WizardSteps>
      <Box sx={{ display: 'flex', gap: 1, justifyContent: 'flex-end' }}>
        <Button disabled={step === 0 || busy} onClick={() => setStep(step - 1)}>
          {t('wizard.back')}
        </Button>
        {step < STEPS.length - 1 ? (
          <Button variant="contained" onClick={next}>
            {t('wizard.next')}
          </Button>
        ) : (
          <Button variant="contained" disabled={busy} onClick={() => void execute()}>
            {t('wizard.execute')}
          </Button>
        )}
      </Box>
    </>
  );
}
