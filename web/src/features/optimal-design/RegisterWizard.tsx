import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import WizardFrame from '../../components/WizardFrame';
import { type Algorithm, type Constraint, doeKeys, type ModelKind, registerProject, type RegisterSettings, useAllProjects } from './api';
import { decimalsOk } from '@mitate/rules';
import { parseNumber } from './numbers';
import { detailsPath } from './ProjectListPage';
import { CLASSICAL_SIZE, type ConstraintDraft, parseCoefficients, type VarDraft } from './form';
import { AlgorithmStep, InfoStep, ParametersStep, PreviewStep, type StepProps } from './wizardSteps';

/** The design wizard's form: every field with a default that computes a design as it stands. */
function useDoeWizard() {
  const { t } = useTranslation('optimalDesign');
  const navigate = useNavigate();
  const qc = useQueryClient();
  const others = useAllProjects();
  const [step, setStep] = useState(0);
  const [algorithm, setAlgorithm] = useState<Algorithm>('d_optimal');
  const [vars, setVars] = useState<VarDraft[]>([
    { name: 'A', type: 'mixture', low: '0', high: '1', levels: '' },
    { name: 'B', type: 'mixture', low: '0', high: '1', levels: '' },
    { name: 'C', type: 'mixture', low: '0', high: '1', levels: '' },
  ]);
  const [total, setTotal] = useState('1');
  const [constraints, setConstraints] = useState<ConstraintDraft[]>([]);
  const [model, setModel] = useState<ModelKind>('scheffe_quadratic');
  const [terms, setTerms] = useState('');
  const [nRuns, setNRuns] = useState('10');
  const [seed, setSeed] = useState('');
  const [responses, setResponses] = useState('result');
  const [resolution, setResolution] = useState('4');
  const [center, setCenter] = useState('1');
  const [degree, setDegree] = useState('2');
  const [excludeFile, setExcludeFile] = useState<File | null>(null);
  const [tolerance, setTolerance] = useState('0.01');
  const [runsFile, setRunsFile] = useState<File | null>(null);
  const [existing, setExisting] = useState<{ id: string; name: string }[]>([]);
  // null until the person types a name: until then the algorithm and the variables name the project
  const [typed, setName] = useState<string | null>(null);
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const [direction, setDirection] = useState<'maximize' | 'minimize'>('maximize');

  const name = typed ?? `${t(`algorithm.${algorithm}`)} · ${vars.map((v) => v.name.trim()).filter(Boolean).join(', ')}`;
  const hasMixture = vars.some((v) => v.type === 'mixture');
  const numbers = [total, tolerance, ...vars.flatMap((v) => [v.low, v.high]), ...constraints.map((c) => c.total)];
  const decimalError = numbers.some((x) => !decimalsOk(x));
  const paramsError =
    decimalError ||
    !vars.length ||
    vars.some((v) => !v.name.trim() || ((v.type === 'continuous' || v.type === 'mixture') && (parseNumber(v.low) === undefined || parseNumber(v.high) === undefined))) ||
    constraints.some((c) => !parseCoefficients(c.coefficients) || parseNumber(c.total) === undefined) ||
    (!CLASSICAL_SIZE.includes(algorithm) && !(Number(nRuns) >= 1)) ||
    (algorithm === 'bayesian' && !runsFile); // BO proposes from measured runs

  const settings = (): RegisterSettings => ({
    name: name.trim(),
    comment,
    algorithm,
    n_runs: CLASSICAL_SIZE.includes(algorithm) ? 0 : Number(nRuns),
    ...(seed.trim() ? { seed: Number(seed) } : {}),
    parameters: { resolution: Number(resolution), center: Number(center), degree: Number(degree) },
    variables: vars.map((v) =>
      v.type === 'continuous' || v.type === 'mixture'
        ? { name: v.name.trim(), type: v.type, low: Number(v.low), high: Number(v.high) }
        : { name: v.name.trim(), type: v.type, levels: v.levels.split(',').map((s) => s.trim()).filter(Boolean).map((s) => (v.type === 'discrete' ? Number(s) : s)) },
    ),
    constraints: constraints.map((c): Constraint => ({ type: 'linear', coefficients: parseCoefficients(c.coefficients) ?? {}, op: c.op, total: Number(c.total) })),
    ...(hasMixture ? { mixture_total: Number(total) } : {}),
    model: model === 'custom' ? { kind: model, terms: terms.split(',').map((s) => s.trim()).filter(Boolean) } : { kind: model },
    responses: responses.split(',').map((s) => s.trim()).filter(Boolean),
    exclude_tolerance: Number(tolerance) || 0,
    existing_project_ids: existing.map((e) => e.id),
    bo: algorithm === 'bayesian' ? { response: responses.split(',')[0].trim(), direction } : null,
  });

  async function create() {
    if (!name.trim()) return setStep(2);
    setBusy(true);
    try {
      const p = await registerProject(settings(), { exclude_file: excludeFile, runs_file: runsFile });
      await qc.invalidateQueries({ queryKey: doeKeys.all });
      navigate(detailsPath(p.id));
    } catch {
      // the message dialog has shown the server's reason; the wizard keeps every input
    } finally {
      setBusy(false);
    }
  }

  const setVar = (i: number, patch: Partial<VarDraft>) => setVars(vars.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  const canNext = step === 0 || (step === 1 && !paramsError) || (step === 2 && name.trim() !== '');
  return { others, step, setStep, busy, canNext, create, algorithm, setAlgorithm, vars, setVars, setVar, total, setTotal, constraints, setConstraints, model, setModel, terms, setTerms, nRuns, setNRuns, seed, setSeed, responses, setResponses, resolution, setResolution, center, setCenter, degree, setDegree, excludeFile, setExcludeFile, tolerance, setTolerance, runsFile, setRunsFile, existing, setExisting, name, setName, comment, setComment, direction, setDirection, hasMixture, decimalError, settings };
}
export type DoeWizardState = ReturnType<typeof useDoeWizard>;

const STEPS = [
  ['algorithm', AlgorithmStep],
  ['parameters', ParametersStep],
  ['info', InfoStep],
  ['preview', PreviewStep],
] as const satisfies readonly (readonly [string, (p: StepProps) => ReactNode])[];

/** The design wizard (SPEC §2): algorithm, parameters, project info, preview. */
export default function RegisterWizard() {
  const { t } = useTranslation('optimalDesign');
  usePageTitle(t('new'));
  const w = useDoeWizard();
  const { step, setStep, busy, canNext, create } = w;
  const Body = STEPS[step][1];
  return (
    <WizardFrame
      title={t('new')}
      steps={STEPS.map(([key]) => ({ key, label: t(`steps.${key}`) }))}
      step={step}
      onBack={() => setStep(step - 1)}
      onNext={() => setStep(step + 1)}
      nextDisabled={!canNext}
      onFinish={() => void create()}
      busy={busy}
      busyText={t('creating')}
    >
      <Body w={w} />
    </WizardFrame>
  );
}
