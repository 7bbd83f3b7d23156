import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import { decodeEngineError, engineErrorMessage, engineErrorText, isEngineCode } from '../../i18n/engine-errors.js';
import type { Lang } from '../../i18n/messages.js';
import { ident, sqlString } from '../../duck/index.js';
import { M } from './messages.js';
import type { DriftSuggestBody, DriftSuggestion } from './schemas.js';
import { normalTime } from './normal.js';
import { tsadDriftSuggestJob } from './jobs.js';
import { modeOf } from './detectors.js';
import { RESAMPLE } from './settings.js';
import type { TsConfig } from './stored.js';
import type { TsDeps } from './base.js';
import { checkSignals } from './validate.js';

/** The engine's timeseries/drift.py MIN_ROWS: a shorter period cannot tell a slow trend from noise. */
const DRIFT_MIN_ROWS = 30;

// The drift suggestion: the engine's look at how the signals move over the chosen normal period.

/**
 * Which chosen signals drift slowly within the period the models learn from (the normal period, or the supervised
 * training part): the engine's rule (timeseries/drift.py) as a quick job, its reasons said in `lang`. Nothing is stored.
 */
export async function suggestDrift(d: TsDeps, auth: AuthContext, datasetId: string, body: DriftSuggestBody, lang: Lang = 'en'): Promise<DriftSuggestion> {
  const { jobs, datasets, query } = d;
  const dataset = await datasets.getRow(auth, datasetId);
  const { time, isDatetime } = checkSignals(d, body, dataset);
  const resample = body.resample ? body.resample.replace(/\s+/g, '') : null;
  if (resample && !RESAMPLE.test(resample)) throw new AppError(422, M.badResample, { rule: resample }, 'resample');
  if (resample && !isDatetime) throw new AppError(422, M.resampleNeedsDatetime, { column: time }, 'resample');
  const mode = modeOf(body.project_type);
  const field = mode === 'supervised' ? 'split_ratio' : 'normal';
  const total = Number(dataset.row_count);
  let normal: TsConfig['normal'] = null;
  let rows: number;
  if (mode === 'supervised') {
    // the engine's split (timeseries/trainer.py training_rows): the first split_ratio of the rows less the fifth that validates
    const nTrain = Math.round(total * body.split_ratio);
    rows = nTrain - Math.max(1, Math.round(nTrain * 0.2));
  } else {
    normal = body.normal ?? { mode: 'rows', rows: Math.max(10, Math.floor(total / 2)) };
    if (normal.mode === 'range') {
      if (!isDatetime && !(Number.isFinite(Number(normal.start)) && Number.isFinite(Number(normal.end)))) throw new AppError(422, M.badRange, {}, 'normal');
      normal = { mode: 'range', start: isDatetime ? normalTime(normal.start) : Number(normal.start), end: isDatetime ? normalTime(normal.end) : Number(normal.end) };
      const lit = (v: string | number) => (isDatetime ? `TIMESTAMP ${sqlString(String(v))}` : String(Number(v)));
      const [r] = await query(`SELECT count(*) AS n FROM read_parquet(${sqlString(datasets.parquetPath(dataset))}) WHERE ${ident(time)} BETWEEN ${lit(normal.start)} AND ${lit(normal.end)}`);
      rows = Number(r.n);
    } else rows = Math.min(normal.rows, total);
  }
  // resampling turns rows into periods: the engine counts those and refuses a short period itself
  if (!resample && rows < DRIFT_MIN_ROWS) throw new AppError(422, M.driftPeriodShort, { rows, needed: DRIFT_MIN_ROWS }, field);
  const done = await jobs.runAndWait(
    {
      orgId: auth.orgId,
      userId: auth.userId,
      kind: tsadDriftSuggestJob,
      subjectType: 'dataset',
      subjectId: dataset.id,
      spec: { project_type: body.project_type, parquet: datasets.parquetPath(dataset), time_column: time, features: body.feature_variables, resample, normal, split_ratio: body.split_ratio },
    },
    d.config.previewTimeoutMs,
    () => new AppError(504, M.driftTimeout),
  );
  fs.rmSync(path.join(d.config.dataDir, 'jobs', done.id), { recursive: true, force: true });
  if (done.state !== 'succeeded') {
    const coded = decodeEngineError(done.error);
    if (coded && isEngineCode(coded.code)) throw new AppError(422, engineErrorMessage(coded), {}, field);
    throw new AppError(422, M.driftFailed, { reason: engineErrorText(done.error, lang) ?? done.state }, 'feature_variables');
  }
  // period, rows, drift_signals, drift_rows and defaults as the engine wrote them; each reason in the caller's language
  const { signals, ...r } = tsadDriftSuggestJob.resultOf(done)!;
  return {
    ...r,
    signals: signals.map(({ reason, ...x }) => ({
      signal: x.signal,
      drifts: x.drifts,
      reason: engineErrorText(JSON.stringify(reason), lang) ?? reason.code,
      rows: x.rows,
      move: x.move,
      short_sd: x.short_sd,
      window: x.window,
      step_share: x.step_share,
      crossings: x.crossings,
      rows_per_sd: x.rows_per_sd,
    })),
  };
}
