import { type SetStateAction, useEffect, useMemo, useState } from 'react';
import type { useDataset } from '../datasets/api';
import { type DriftSuggestBody, modeOf, type RegisterBody, type TsType, useNormalDefault, useTsCatalogue } from './api';
import { useDriftDefault } from './driftDefault';

/** The statistics of a rolling window (the server's WINDOW_STATS), all four by default. */
export const STATS = ['mean', 'std', 'min', 'max'] as const;
export type Stat = (typeof STATS)[number];
export const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

type DatasetDetail = NonNullable<ReturnType<typeof useDataset>['data']>;

/** What the person typed in the time-series wizard. */
export interface TsForm {
  name: string;
  time: string;
  signals: string[];
  label: string;
  lags: string;
  windows: string;
  resample: string;
  stats: Stat[];
  /** slowly drifting signals enter as their change over driftRows rows (none, unless the drift default fills them in) */
  drift: string[];
  driftRows: string;
  normalMode: 'rows' | 'range';
  rows: string;
  rowsTouched: boolean;
  from: string;
  to: string;
  split: string;
  chosen: string[];
  params: Record<string, Record<string, string>>;
}

const EMPTY: TsForm = {
  name: '', time: '', signals: [], label: '', lags: '', windows: '', resample: '', stats: [...STATS], drift: [], driftRows: '',
  normalMode: 'rows', rows: '', rowsTouched: false, from: '', to: '', split: '0.7', chosen: [], params: {},
};

/** The form with its defaults (set when the dataset, the default normal period and the catalogue arrive), checks and body. */
export function useTsForm(type: TsType, datasetId: string, d: DatasetDetail | undefined, typeLabel: string, step: number) {
  const mode = modeOf(type);
  const catalogue = useTsCatalogue();
  const algorithms = useMemo(() => catalogue.data?.[mode] ?? [], [catalogue.data, mode]);
  const columns = useMemo(() => d?.columns ?? [], [d]);
  const timeChoices = columns.filter((c) => ['datetime', 'date', 'integer', 'float'].includes(c.type)).map((c) => c.name);
  const [f, setF] = useState<TsForm>(EMPTY);
  const set = (patch: Partial<TsForm>) => setF((x) => ({ ...x, ...patch }));
  // one field as a React state setter (the drift default writes through these)
  const setter =
    <K extends keyof TsForm>(k: K) =>
    (v: SetStateAction<TsForm[K]>) =>
      setF((x) => ({ ...x, [k]: typeof v === 'function' ? (v as (p: TsForm[K]) => TsForm[K])(x[k]) : v }));

  useEffect(() => {
    if (!d) return;
    const tc = d.datetime_column ?? timeChoices[0] ?? '';
    const guess = columns.find((c) => /^(anomaly|label|fault)$/i.test(c.name));
    setF((x) => ({
      ...x,
      name: `${d.name} · ${typeLabel}`,
      time: tc,
      signals: columns.filter((c) => ['integer', 'float'].includes(c.type) && c.name !== tc && !/^(anomaly|label|fault|changepoint)$/i.test(c.name)).map((c) => c.name),
      label: guess ? guess.name : x.label,
      // until the server's default normal period comes (from the label), the first half
      rows: String(Math.max(32, Math.floor(Number(d.row_count) / 2))),
    }));
    // defaults are set once, when the dataset arrives
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [d]);
  // the default normal period: from the label where there is one, else the first half (the person confirms it)
  const normalDefault = useNormalDefault(datasetId, f.time, f.label, mode === 'unsupervised');
  useEffect(() => {
    if (normalDefault.data) setF((x) => (x.rowsTouched ? x : { ...x, rows: String(normalDefault.data.rows) }));
  }, [normalDefault.data]);
  // the catalogue's first detector is ticked, so the defaults train as they stand
  useEffect(() => {
    if (algorithms.length) setF((x) => (x.chosen.length ? x : { ...x, chosen: [algorithms[0].key] }));
  }, [algorithms]);

  // resampling and time spans need dates and times; a whole-number order column (a sample number) counts rows
  const kindOf = (name: string) => (['datetime', 'date'].includes(columns.find((c) => c.name === name)?.type ?? '') ? 'datetime' : 'order');
  const timeIsDatetime = kindOf(f.time) === 'datetime';
  // the field is named after what orders the rows: a date/time, or a whole number (row number); no choice yet: neutral
  const timeKind = f.time ? kindOf(f.time) : undefined;
  const signalChoices = columns.filter((c) => c.name !== f.time && c.name !== f.label && c.type !== 'datetime' && c.type !== 'date').map((c) => c.name);
  const driftChosen = f.drift.filter((s) => f.signals.includes(s));
  const normal = (): RegisterBody['normal'] =>
    mode === 'unsupervised' ? (f.normalMode === 'rows' ? { mode: 'rows', rows: Number(f.rows) } : { mode: 'range', start: f.from, end: f.to }) : null;
  // what the suggestion of drifting signals looks at: the signals and the period chosen in the steps before
  const suggestBody: DriftSuggestBody = { project_type: type, time_column: f.time || null, feature_variables: f.signals, resample: timeIsDatetime ? f.resample.trim() || null : null, normal: normal(), split_ratio: Number(f.split) };
  // the suggestion is asked from the period step on, so its default is in place before the windowing step
  const dd = useDriftDefault({
    datasetId,
    body: suggestBody,
    asking: step >= 1,
    algorithms,
    fields: { drift: f.drift, rows: f.driftRows, windows: f.windows, params: f.params },
    set: { drift: setter('drift'), rows: setter('driftRows'), windows: setter('windows'), params: setter('params') },
  });
  const body = (): RegisterBody => ({
    name: f.name,
    project_type: type,
    time_column: f.time || null,
    feature_variables: f.signals,
    target_variables: f.label ? [f.label] : [],
    lags: list(f.lags).map(Number),
    windows: list(f.windows).map((w) => (/^\d+$/.test(w) ? Number(w) : w)),
    resample: f.resample.trim() || null,
    window_stats: f.stats,
    drift_signals: driftChosen,
    drift_rows: driftChosen.length ? Number(f.driftRows) : null,
    normal: normal(),
    split_ratio: Number(f.split),
    models: f.chosen.map((k) => ({
      algorithm: k,
      params: Object.fromEntries(Object.entries(f.params[k] ?? {}).filter(([, v]) => v.trim() !== '').map(([n, v]) => [n, Number(v)])),
    })),
  });
  /** The i18n key of what is wrong on step i, or null. */
  const stepError = (i: number): string | null => {
    if (i === 0 && (!f.name.trim() || !f.time || !f.signals.length || (mode === 'supervised' && !f.label))) return 'wizard.required';
    if (i === 1 && mode === 'unsupervised' && f.normalMode === 'rows' && !(Number(f.rows) >= 1)) return 'wizard.required';
    if (i === 1 && mode === 'unsupervised' && f.normalMode === 'range' && (!f.from || !f.to)) return 'wizard.required';
    if (i === 2 && list(f.lags).some((x) => !/^\d+$/.test(x))) return 'wizard.lags';
    if (i === 2 && list(f.windows).length && !f.stats.length) return 'wizard.statsNeeded';
    if (i === 2 && driftChosen.length && !(/^\d+$/.test(f.driftRows.trim()) && Number(f.driftRows) >= 1)) return 'wizard.driftRowsNeeded';
    if (i === 3 && !f.chosen.length) return 'wizard.required';
    return null;
  };
  return { f, set, mode, catalogue, algorithms, columns, timeChoices, kindOf, timeIsDatetime, timeKind, signalChoices, driftChosen, normalDefault, dd, body, stepError };
}

export type TsFormState = ReturnType<typeof useTsForm>;
