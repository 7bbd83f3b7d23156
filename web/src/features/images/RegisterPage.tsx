import Alert from '@mui/material/Alert';
import { type ReactNode, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageLoading from '../../components/PageLoading';
import WizardFrame from '../../components/WizardFrame';
import { showSnackbar } from '../../lib/feedback';
import { type Augmentation, DEFAULT_SETTINGS, type ImageType, registerImageProject, type Settings, trainImageProject, useImageDataset } from './api';
import { NS } from './shared';
import { AugmentationStep, ModelsStep, OverviewStep, PreviewStep, SettingsStep, type StepProps } from './wizardSteps';

const STEPS = [
  ['overview', OverviewStep],
  ['models', ModelsStep],
  ['settings', SettingsStep],
  ['augmentation', AugmentationStep],
  ['preview', PreviewStep],
] as const satisfies readonly (readonly [string, (p: StepProps) => ReactNode])[];

/** The image project wizard (/training/{analysis,classification}/register/{dataset_id}): name, models, settings, augmentation, preview. */
export default function RegisterPage({ type }: { type: ImageType }) {
  const { t } = useTranslation(NS);
  const { dataset_id: datasetId = '' } = useParams();
  const navigate = useNavigate();
  const title = t('register.title', { type: t(`type.${type}`) });
  usePageTitle(title);
  const ds = useImageDataset(datasetId);
  const [typed, setName] = useState<string | null>(null);
  const [algos, setAlgos] = useState<string[]>(type === 'analysis' ? ['patchcore'] : ['finetune']);
  const [s, setS] = useState<Settings>(DEFAULT_SETTINGS);
  const [step, setStep] = useState(0);
  const [checked, setChecked] = useState(false);
  const [busy, setBusy] = useState(false);
  const counts = useMemo(() => {
    const c: Record<string, number> = {};
    for (const split of Object.values(ds.data?.image.counts ?? {})) for (const [k, v] of Object.entries(split)) c[k] = (c[k] ?? 0) + v;
    return c;
  }, [ds.data]);
  if (!ds.data) return <PageLoading />;
  const kind = ds.data.image.kind ?? ds.data.training_type;
  // the dataset's name and the project type until the person types one, as in the other wizards
  const name = typed ?? `${ds.data.name} · ${t(`type.${type}`)}`;
  const errorOf = (i: number) => (i === 0 && !name.trim() ? 'register.nameRequired' : i === 1 && !algos.length ? 'register.noModel' : null);
  const firstError = [0, 1].find((i) => errorOf(i));

  const next = () => {
    setChecked(true);
    if (!errorOf(step)) setStep(step + 1);
  };
  const create = async (train: boolean) => {
    setChecked(true);
    if (firstError !== undefined) return setStep(firstError);
    setBusy(true);
    try {
      const p = await registerImageProject(datasetId, { project_type: type, name: name.trim(), models: algos.map((a) => ({ algorithm: a })), settings: s });
      if (train) await trainImageProject(p.project_id);
      showSnackbar(t(train ? 'register.createdTraining' : 'register.created'), 'success');
      navigate(`/training/details/${encodeURIComponent(p.project_id)}`);
    } finally {
      setBusy(false);
    }
  };
  const props: StepProps = {
    type,
    datasetId,
    ds: ds.data,
    counts,
    name,
    setName,
    algos,
    setAlgos,
    s,
    set: (k, v) => setS((x) => ({ ...x, [k]: v })),
    setAug: <K extends keyof Augmentation>(k: K, v: Augmentation[K]) => setS((x) => ({ ...x, augmentation: { ...x.augmentation, [k]: v } })),
    error: checked ? errorOf(step) : null,
  };
  const Body = STEPS[step][1];
  return (
    <WizardFrame
      title={title}
      subtitle={`${t('register.dataset')}: ${ds.data.name}`}
      steps={STEPS.map(([key], i) => ({ key, label: t(`register.steps.${key}`), error: checked && !!errorOf(i) }))}
      step={step}
      onBack={() => setStep(step - 1)}
      onNext={next}
      onFinish={() => void create(true)}
      onCreateOnly={() => void create(false)}
      busy={busy}
      finishDisabled={kind !== type}
    >
      {kind !== type && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {t('register.wrongKind', { kind: t(`type.${kind}`, { defaultValue: kind }), type: t(`type.${type}`) })}
        </Alert>
      )}
      <Body {...props} />
    </WizardFrame>
  );
}
