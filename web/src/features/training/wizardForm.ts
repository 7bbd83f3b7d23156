import { useEffect, useMemo, useState } from 'react';
import type { useDataset } from '../datasets/api';
import type { AlgorithmSpec, ProjectType, RegisterBody } from './api';
import { TYPE_INFO } from './api';
import { defaultModels, parseDecimal, parseFolds, parseIntList, stepErrors } from './validate';

/** Below this many test rows the report makes repeated cross-validation the headline (engine trainer.SMALL_TEST). */
export const SMALL_TEST = 30;
const CV_ONLY_MAX_ROWS = 2000;

export type ParamValues = Record<string, string>;

/** What the person typed in the training wizard; every field has a default that trains as it stands. */
export interface TrainingForm {
  name: string;
  target: string | null;
  features: string[];
  variance: string;
  balance: boolean;
  lags: string;
  windows: string;
  split: string;
  splitTime: string;
  cv: string;
  cvOnly: boolean;
  autoTune: boolean;
  trials: string;
  significance: string;
  /** null until the person ticks or unticks a model: until then the catalogue's default is ticked */
  picked: string[] | null;
  params: Record<string, ParamValues>;
}

export const defaultsOf = (a: AlgorithmSpec): ParamValues => Object.fromEntries(a.params.map((p) => [p.name, String(p.default)]));

function toParams(a: AlgorithmSpec, v: ParamValues): Record<string, number | string | boolean | null> {
  const out: Record<string, number | string | boolean | null> = {};
  for (const p of a.params) {
    const s = v[p.name];
    if (s === undefined || s === String(p.default)) continue; // defaults travel as absent: the engine's own default
    if (p.kind === 'bool') out[p.name] = s === 'true';
    else if (p.kind === 'choice') out[p.name] = s;
    else out[p.name] = s.trim() === '' ? null : Number(s);
  }
  return out;
}

type DatasetDetail = NonNullable<ReturnType<typeof useDataset>['data']>;

const numeric = (d: DatasetDetail | undefined, c: string) => ['integer', 'float'].includes(d?.columns.find((x) => x.name === c)?.type ?? '');

/** The form's state, what follows from it (parsed values, choices, errors by step) and the body it registers. */
export function useTrainingForm(type: ProjectType, d: DatasetDetail | undefined, algorithms: AlgorithmSpec[], cvDefaultWord: string, typeLabel: string) {
  const info = TYPE_INFO[type];
  const [f, setF] = useState<TrainingForm>(() => ({
    name: '',
    target: null,
    features: [],
    variance: '0',
    balance: false,
    lags: type === 'soft_sensor' ? '1, 2, 3' : '',
    windows: type === 'soft_sensor' ? '5' : '',
    split: '0.85',
    splitTime: '',
    cv: cvDefaultWord,
    cvOnly: false,
    autoTune: false,
    trials: '10',
    significance: '0.05',
    picked: null,
    params: {},
  }));
  const set = (patch: Partial<TrainingForm>) => setF((x) => ({ ...x, ...patch }));
  // the default name is set once, when the dataset arrives (a name typed before then stays)
  useEffect(() => {
    if (d) setF((x) => ({ ...x, name: x.name || `${d.name} · ${typeLabel}` }));
  }, [d, typeLabel]);
  const chosen = useMemo(() => f.picked ?? defaultModels(algorithms.map((a) => a.key)), [f.picked, algorithms]);

  const columns = d?.columns ?? [];
  const featureChoices = columns.filter((c) => c.name !== f.target && c.name !== d?.datetime_column && c.type !== 'datetime' && c.type !== 'date').map((c) => c.name);
  const targetChoices = columns
    .filter((c) => c.name !== d?.datetime_column && c.type !== 'datetime')
    .filter((c) => (type === 'regression' || type === 'soft_sensor' ? numeric(d, c.name) : true))
    .map((c) => c.name);
  const parsed = {
    split: parseDecimal(f.split, 0.5, 0.95),
    variance: parseDecimal(f.variance, 0, 1e12),
    significance: parseDecimal(f.significance, 0.0000001, 0.5),
    lags: parseIntList(f.lags, 1),
    windows: parseIntList(f.windows, 2),
    trials: Number(f.trials),
  };
  const trialsOk = Number.isInteger(parsed.trials) && parsed.trials >= 1 && parsed.trials <= 1000;
  const errors = stepErrors({ name: f.name, target: f.target, features: f.features, models: chosen, cv: f.cv, supervised: info.supervised, targetOptional: !!info.targetOptional });
  if (parsed.variance.error || parsed.lags === null || parsed.windows === null) (errors[2] ??= []).push('validation.number');
  if ((info.supervised && parsed.split.error) || parsed.significance.error || !trialsOk) (errors[3] ??= []).push('validation.number');
  // Cross-validation only is offered for small regression / discriminant tables (as the server allows: CV_ONLY_MAX_ROWS).
  const cvOnlyOffered = (type === 'regression' || type === 'discriminant_analysis') && !!d && d.row_count <= CV_ONLY_MAX_ROWS;
  const testRows = d && parsed.split.value != null && !f.splitTime ? d.row_count - Math.round(d.row_count * parsed.split.value) : null;

  const body = (): RegisterBody => ({
    name: f.name.trim(),
    target_variables: f.target ? [f.target] : [],
    feature_variables: f.features,
    split_ratio: parsed.split.value ?? 0.85,
    split_time: type === 'soft_sensor' && f.splitTime ? f.splitTime : null,
    cross_validation: parseFolds(f.cv) ?? 'default',
    evaluation: cvOnlyOffered && f.cvOnly ? 'cv_only' : 'holdout',
    significance_level: parsed.significance.value ?? 0.05,
    number_of_trials: parsed.trials,
    auto_tune: f.autoTune,
    balance_data: f.balance,
    variance_threshold: parsed.variance.value ?? 0,
    lags: parsed.lags ?? [],
    windows: parsed.windows ?? [],
    models: chosen.map((k) => {
      const a = algorithms.find((x) => x.key === k)!;
      return { algorithm: k, params: toParams(a, f.params[k] ?? defaultsOf(a)) };
    }),
  });
  return { f, set, info, chosen, featureChoices, targetChoices, parsed, trialsOk, errors, cvOnlyOffered, testRows, body };
}

export type TrainingFormState = ReturnType<typeof useTrainingForm>;
