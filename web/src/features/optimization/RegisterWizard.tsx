import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import WizardFrame from '../../components/WizardFrame';
import { showSnackbar } from '../../lib/feedback';
import { useProjectList } from '../training/api';
import { type Algorithm, DEFAULT_TRIALS, detailsPath, type ModelRef, optKeys, registerProject, useFeaturesStep } from './api';
import { type ConstraintForm, defaultFeature, defaultTarget, type FeatureForm, type FormError, isFormError, type TargetForm, toSettings } from './form';
import { NS } from './labels';
import { AlgorithmStep, DetailsStep, FeaturesStep, InfoStep, ModelsStep, ParametersStep, PreviewStep, type StepProps } from './wizardSteps';

const STEPS = [
  ['models', ModelsStep],
  ['details', DetailsStep],
  ['parameters', ParametersStep],
  ['features', FeaturesStep],
  ['algorithm', AlgorithmStep],
  ['info', InfoStep],
  ['preview', PreviewStep],
] as const satisfies readonly (readonly [string, (p: StepProps) => ReactNode])[];
const same = (a: ModelRef, b: ModelRef) => a.project_id === b.project_id && a.model_key === b.model_key;

/** The wizard's form: the chosen models, what follows from them, and every field of the later steps. */
function useOptWizard() {
  const { t } = useTranslation(NS);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { project_id: fromProject, model_key: fromModel } = useParams();
  const [step, setStep] = useState(0);
  const [models, setModels] = useState<ModelRef[]>(fromProject && fromModel ? [{ project_id: fromProject, model_key: fromModel }] : []);
  const [targets, setTargets] = useState<TargetForm[]>([]);
  const [features, setFeatures] = useState<FeatureForm[]>([]);
  const [constraints, setConstraints] = useState<ConstraintForm[]>([]);
  const [algorithms, setAlgorithms] = useState<Algorithm[]>(['tpe']);
  const [nTrials, setNTrials] = useState(String(DEFAULT_TRIALS));
  const [seed, setSeed] = useState('0');
  const [forbid, setForbid] = useState(false);
  const [name, setName] = useState('');
  const [comment, setComment] = useState('');
  const [error, setError] = useState<FormError | null>(null);
  const [busy, setBusy] = useState(false);

  const regression = useProjectList('', 'regression', 1, 200);
  const softSensor = useProjectList('', 'soft_sensor', 1, 200);
  const trained = useMemo(
    () =>
      [...(regression.data?.items ?? []), ...(softSensor.data?.items ?? [])].flatMap((p) =>
        p.models.filter((m) => m.state === 'done' && !p.lags.length && !p.windows.length).map((m) => ({ project: p, model: m })),
      ),
    [regression.data, softSensor.data],
  );
  const chosen = trained.filter((x) => models.some((r) => same(r, { project_id: x.project.project_id, model_key: x.model.model_key })));
  const info = useFeaturesStep(models);

  // the features step follows the chosen models: new inputs get their training range, kept ones keep their edits
  useEffect(() => {
    if (!info.data) return;
    setFeatures((prev) => info.data.features.map((f) => prev.find((p) => p.name === f.name) ?? defaultFeature(f)));
    setTargets((prev) => info.data.targets.map((tg) => prev.find((p) => p.name === tg.name) ?? defaultTarget(tg.name)));
    const { targets, dataset_name } = info.data;
    if (targets.length) setName((prev) => prev || `${targets.map((x) => x.name).join(', ')} · ${dataset_name}`);
  }, [info.data]);

  const isChosen = (ref: ModelRef) => models.some((r) => same(r, ref));
  const toggle = (ref: ModelRef) => setModels((prev) => (prev.some((r) => same(r, ref)) ? prev.filter((r) => !same(r, ref)) : [...prev, ref]));
  const settings = toSettings({ models, targets, features, constraints, algorithms, nTrials, seed, forbidExtrapolation: forbid });
  const setTarget = (i: number, patch: Partial<TargetForm>) => setTargets((prev) => prev.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  const setFeature = (i: number, patch: Partial<FeatureForm>) => setFeatures((prev) => prev.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  const setConstraint = (i: number, patch: Partial<ConstraintForm>) => setConstraints((prev) => prev.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  const range = (n: string) => info.data?.features.find((f) => f.name === n);

  async function submit() {
    setError(null);
    if (isFormError(settings)) return setError(settings);
    if (!name.trim()) return setError({ key: 'errors.name' });
    setBusy(true);
    try {
      const p = await registerProject(info.data!.dataset_id, { ...settings, name: name.trim(), comment });
      await queryClient.invalidateQueries({ queryKey: optKeys.all });
      showSnackbar(t('register.started'));
      navigate(detailsPath(p.id));
    } catch {
      /* the API client has shown the server's message */
    } finally {
      setBusy(false);
    }
  }

  const next = () => {
    setError(null);
    if (step === 0 && !models.length) return setError({ key: 'errors.noModel' });
    setStep((s) => Math.min(STEPS.length - 1, s + 1));
  };

  return { trained, models, isChosen, toggle, chosen, info, targets, setTarget, nTrials, setNTrials, seed, setSeed, forbid, setForbid, features, setFeature, range, constraints, setConstraint, setConstraints, algorithms, setAlgorithms, name, setName, comment, setComment, settings, step, setStep, next, submit, busy, error };
}
export type OptWizardState = ReturnType<typeof useOptWizard>;

/** The optimisation wizard (SPEC §2): model list, details, parameters, features, algorithm, project info, preview. */
export default function RegisterWizard() {
  const { t } = useTranslation(NS);
  usePageTitle(t('register.title'));
  const w = useOptWizard();
  const { step, setStep, models, info, next, submit, busy, error } = w;
  const Body = STEPS[step][1];
  return (
    <WizardFrame
      title={t('register.title')}
      subtitle={t('register.subtitle')}
      steps={STEPS.map(([key]) => ({ key, label: t(`steps.${key}`) }))}
      step={step}
      onStep={(i) => (models.length || i === 0 ? setStep(i) : undefined)}
      onBack={() => setStep((s) => s - 1)}
      onNext={next}
      nextDisabled={step > 0 && !info.data}
      onFinish={() => void submit()}
      finishDisabled={!info.data}
      busy={busy}
      error={error ? t(error.key, error.params) : null}
    >
      <Body w={w} />
    </WizardFrame>
  );
}

