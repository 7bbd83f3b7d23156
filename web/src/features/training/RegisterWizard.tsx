import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageLoading from '../../components/PageLoading';
import WizardFrame from '../../components/WizardFrame';
import { showSnackbar } from '../../lib/feedback';
import { useDataset } from '../datasets/api';
import { detailsPath, type ProjectType, registerProject, trainProject, useCatalogue } from './api';
import { NS } from './labels';
import { useTrainingForm } from './wizardForm';
import { DatasetStep, ModelsStep, OverviewStep, ParametersStep, PreprocessingStep, PreviewStep, type StepProps } from './wizardSteps';

/** SPEC §2 training project wizard: dataset overview, training overview, preprocessing, training parameters, model selection, preview. */
const STEPS = [
  ['dataset', DatasetStep],
  ['overview', OverviewStep],
  ['preprocessing', PreprocessingStep],
  ['parameters', ParametersStep],
  ['models', ModelsStep],
  ['preview', PreviewStep],
] as const satisfies readonly (readonly [string, (p: StepProps) => ReactNode])[];

export default function RegisterWizard({ type }: { type: ProjectType }) {
  const { t } = useTranslation(NS);
  const { dataset_id: datasetId = '' } = useParams();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const typeLabel = t(`types.${type}`);
  usePageTitle(t('wizard.title', { type: typeLabel }));
  const dataset = useDataset(datasetId);
  const catalogue = useCatalogue();
  const algorithms = useMemo(() => catalogue.data?.types.find((x) => x.type === type)?.algorithms ?? [], [catalogue.data, type]);
  const d = dataset.data;
  const form = useTrainingForm(type, d, algorithms, t('wizard.cvDefaultWord'), typeLabel);
  const { errors } = form;
  const [step, setStep] = useState(0);
  // the steps whose errors are shown: those Next or Create found wrong
  const [shown, setShown] = useState<Set<number>>(new Set());
  const [busy, setBusy] = useState(false);

  const go = (next: number) => {
    if (next > step && errors[step]?.length) return setShown(new Set([...shown, step]));
    setStep(next);
  };

  const submit = async (train: boolean) => {
    const all = Object.keys(errors).map(Number);
    if (all.length) {
      setShown(new Set([...shown, ...all]));
      return setStep(all[0]);
    }
    setBusy(true);
    try {
      const p = await registerProject(type, datasetId, form.body());
      if (train) await trainProject(p.project_id);
      await qc.invalidateQueries({ queryKey: ['training'] });
      showSnackbar(train ? t('details.started') : p.name);
      navigate(detailsPath(type, p.project_id));
    } finally {
      setBusy(false);
    }
  };

  if (dataset.isLoading || catalogue.isLoading) return <PageLoading />;
  if (!d) return null;
  const last = step === STEPS.length - 1;
  // the preview lists every error once any step has shown one
  const shownErrors = last ? (shown.size ? [...new Set(Object.values(errors).flat())] : []) : shown.has(step) ? (errors[step] ?? []) : [];
  const Body = STEPS[step][1];
  return (
    <WizardFrame
      title={t('wizard.title', { type: typeLabel })}
      subtitle={t(`typeHelp.${type}`)}
      steps={STEPS.map(([key], i) => ({ key, label: t(`wizard.steps.${key}`), error: shown.has(i) && !!errors[i]?.length }))}
      step={step}
      onStep={go}
      onBack={() => setStep(step - 1)}
      onNext={() => go(step + 1)}
      onFinish={() => void submit(true)}
      onCreateOnly={() => void submit(false)}
      busy={busy}
    >
      <Body type={type} d={d} form={form} algorithms={algorithms} shownErrors={shownErrors} />
    </WizardFrame>
  );
}
