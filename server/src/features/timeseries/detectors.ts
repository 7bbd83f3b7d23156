import fs from 'node:fs';
import path from 'node:path';
import { storedJson } from '../../db/stored.js';
import { engineErrorText } from '../../i18n/engine-errors.js';
import { engineDir } from '../../jobs/engine.js';
import type { Lang } from '../../i18n/messages.js';
import type { TsModelMetrics, TsType } from './schemas.js';
import { TS_TYPES } from './schemas.js';
import { type TsAlgorithm, TsCatalogue } from './stored.js';

// read once when the module loads: the file ships with the engine and does not change while the server runs
const catalogue = storedJson('time-series detector catalogue', TsCatalogue, fs.readFileSync(path.join(engineDir, 'mitate_engine', 'timeseries', 'catalogue.json'), 'utf8'));
/** The engine's detector catalogue (engine/mitate_engine/timeseries/catalogue.json): one list for engine, server and web. */
export const tsCatalogue = () => catalogue;
/** A catalogue message key as a parameter of a message: the error handler says it in the reader's language. */
export const said = (key: string) => JSON.stringify({ code: key });
/** A catalogue message in `lang` (the key itself if the catalogue lacks it, which a test rules out). */
const text = (key: string, lang: Lang) => engineErrorText(said(key), lang) ?? key;
/** The detector's name in `lang`. */
export const detectorName = (key: string, lang: Lang) => {
  const a = [...tsCatalogue().unsupervised, ...tsCatalogue().supervised].find((x) => x.key === key);
  return a ? text(a.name_key, lang) : key;
};
/** The catalogue as the wizard shows it: each detector's name and each parameter's label and help in `lang`. */
export function localCatalogue(lang: Lang) {
  const one = (a: TsAlgorithm) => ({
    key: a.key,
    label: text(a.name_key, lang),
    contributions: a.contributions,
    params: a.params.map(({ label_key, help_key, ...p }) => ({ ...p, label: text(label_key, lang), ...(help_key ? { help: text(help_key, lang) } : {}) })),
  });
  const c = tsCatalogue();
  return { supervised: c.supervised.map(one), unsupervised: c.unsupervised.map(one) };
}
/**
 * The model a person would pick first, chosen on rows none was fitted on and never on the test part: supervised, the
 * best F1 on the validation period (where each threshold was chosen); unsupervised, the fewest false alarms on the
 * held-back block of the normal period. Models trained before these figures existed are passed over.
 */
export function bestDetector<M extends { state: string; model_key: string; metrics: TsModelMetrics | null }>(mode: 'supervised' | 'unsupervised', models: M[]) {
  const basis = mode === 'supervised' ? ('validation_period' as const) : ('held_back_normal' as const);
  const merit = (m: M) => (mode === 'supervised' ? m.metrics?.validation_f1 : m.metrics?.heldout_far == null ? null : -m.metrics.heldout_far);
  let best: M | null = null;
  for (const m of models) {
    const v = m.state === 'done' ? merit(m) : null;
    if (v != null && Number.isFinite(v) && (best === null || v > merit(best)!)) best = m;
  }
  return { best, basis };
}
export const modeOf = (type: string) => (type === 'time_series_anomaly_detection_supervised' ? ('supervised' as const) : ('unsupervised' as const));
export const isTsType = (type: string): type is TsType => (TS_TYPES as readonly string[]).includes(type);
