import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageLoading from '../../components/PageLoading';
import WizardFrame from '../../components/WizardFrame';
import { showSnackbar } from '../../lib/feedback';
import { formatInteger } from '../../lib/format';
import { useDataset } from '../datasets/api';
import { detailsPath, registerTs, trainTs, type TsType } from './api';
import { useTsForm } from './wizardForm';
import { DataStep, FeaturesStep, ModelsStep, PeriodStep, PreviewStep, type StepProps } from './wizardSteps';

// the period the models learn from comes before the windowing: the suggestion of drifting signals looks at it
const STEPS = [
  ['data', DataStep],
  ['training', PeriodStep],
  ['features', FeaturesStep],
  ['models', ModelsStep],
  ['preview', PreviewStep],
] as const satisfies readonly (readonly [string, (p: StepProps) => ReactNode])[];

/** /training/time_series_anomaly_detection_{supervised,unsupervised}/register/{dataset_id}. */
export default function RegisterWizard({ type }: { type: TsType }) {
  const { t } = useTranslation('timeseries');
  const { dataset_id: datasetId = '' } = useParams();
  const navigate = useNavigate();
  usePageTitle(t('wizard.title'));
  const dataset = useDataset(datasetId);
  const d = dataset.data;
  const [step, setStep] = useState(0);
  const form = useTsForm(type, datasetId, d, t(`types.${type}`), step);
  // once Next has found a problem, the message follows the fields: it goes when they are put right
  const [checked, setChecked] = useState(false);
  const [busy, setBusy] = useState(false);

  if (!d || !form.catalogue.data) return <PageLoading />;
  const shownError = checked ? form.stepError(step) : null;
  const next = () => {
    setChecked(true);
    if (!form.stepError(step)) setStep(step + 1);
  };
  const create = async (train: boolean) => {
    setBusy(true);
    try {
      const p = await registerTs(datasetId, form.body());
      if (train) await trainTs(p.project_id);
      showSnackbar(t(train ? 'wizard.createdTraining' : 'wizard.created'), 'success');
      navigate(detailsPath(p.project_id));
    } finally {
      setBusy(false);
    }
  };
  const Body = STEPS[step][1];
  return (
    <WizardFrame
      title={t('wizard.title')}
      subtitle={`${t(`types.${type}`)} · ${d.name} · ${t('wizard.rowsCount', { count: Number(d.row_count), rows: formatInteger(Number(d.row_count)) })}`}
      steps={STEPS.map(([key], i) => ({ key, label: t(`wizard.steps.${key}`), error: i === step && !!shownError }))}
      step={step}
      onBack={() => {
        setChecked(false);
        setStep(step - 1);
      }}
      onNext={next}
      onFinish={() => void create(true)}
      onCreateOnly={() => void create(false)}
      busy={busy}
      error={shownError ? t(shownError) : null}
    >
      <Body datasetId={datasetId} d={d} form={form} />
    </WizardFrame>
  );
}
