import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import { queryRows, sqlString, withConnection } from '../../duck/index.js';
import type { DatasetService } from '../datasets/service.js';
import type { TrainingModelTable, TrainingProjectTable } from '../training/db.js';
import { M as TM } from '../training/messages.js';
import type { RunService } from '../training/runs.js';
import type { TrainingService } from '../training/service.js';
import { M } from './messages.js';
import type { TsModelMetrics, TsParams } from './schemas.js';
import { WINDOW_STATS } from './schemas.js';
import { type Scores, SPLIT_CODES } from './scores.js';
import { bestDetector, detectorName, isTsType, modeOf } from './detectors.js';
import { type TsConfig } from './settings.js';
import { thresholdRepo } from './repo.js';

const MAX_CACHED = 6;

/** The time column's value of each row as the views show it (ISO text without the Z for a date/time, else the
 * number), made when a row is asked for: `values` are epoch ms or the numbers; NaN is an empty value. */
function timeTexts(values: Float64Array, datetime: boolean): Scores['time'] {
  const at = (i: number) => {
    const v = values[i];
    if (v === undefined || Number.isNaN(v)) return null;
    return datetime ? new Date(v).toISOString().replace('Z', '') : v;
  };
  return new Proxy({} as Scores['time'], { get: (_t, k) => (typeof k === 'string' && /^\d+$/.test(k) ? at(Number(k)) : undefined) });
}

/** What the service's modules share: the app's database, DuckDB, storage and jobs, the areas used, the project
 * reads and the scores kept by this app instance. */
export function makeTsBase(ctx: AppContext, { datasets, training, runs }: { datasets: DatasetService; training: TrainingService; runs: RunService }) {
  const { db, duckdb, storage, jobs } = ctx;
  const cache = new Map<string, Scores>(); // run folder -> scores, least recently used first

  const query = (sql: string) => queryRows(duckdb, sql);

  async function getProject(auth: AuthContext, id: string): Promise<TrainingProjectTable> {
    const p = await training.getProject(auth, id);
    if (!isTsType(p.project_type)) throw new AppError(404, TM.projectNotFound);
    return p;
  }

  async function savedThresholds(orgId: string, projectId: string): Promise<Map<string, number>> {
    const rows = await thresholdRepo.ofProject(db, orgId, projectId);
    return new Map(rows.map((r) => [r.model_key, Number(r.threshold)]));
  }

  const trainedThreshold = (m: TrainingModelTable): number | null => {
    const v = m.metrics_json ? (JSON.parse(m.metrics_json) as { threshold?: number }).threshold : undefined;
    return typeof v === 'number' ? v : null;
  };

  /** The project with its models; `lang` is the language of the detectors' names. */
  async function view(auth: AuthContext, p: TrainingProjectTable, lang: Lang = 'en') {
    const base = await training.view(auth, p);
    const cfg = JSON.parse(p.config_json) as TsConfig;
    const saved = await savedThresholds(auth.orgId, p.id);
    const rows = await training.modelsOf(auth.orgId, p.id);
    const models = base.models.map((m) => {
      const row = rows.find((x) => x.model_key === m.model_key)!;
      const trained = trainedThreshold(row);
      return { ...m, params: m.params as TsParams, hyperparameters: m.hyperparameters as TsParams | null, metrics: m.metrics as TsModelMetrics | null, label: detectorName(m.algorithm, lang), trained_threshold: trained, saved_threshold: saved.get(m.model_key) ?? null, threshold: saved.get(m.model_key) ?? trained };
    });
    const { best, basis } = bestDetector(modeOf(p.project_type), models);
    return {
      ...base,
      mode: modeOf(p.project_type),
      time_column: cfg.time_column,
      time_is_datetime: cfg.time_is_datetime,
      normal: cfg.normal,
      resample: cfg.resample ?? null,
      window_stats: cfg.window_stats ?? [...WINDOW_STATS],
      drift_signals: cfg.drift_signals ?? [],
      drift_rows: cfg.drift_rows ?? null,
      notes: cfg.notes,
      models,
      best_model_key: best?.model_key ?? null,
      best_model_basis: basis,
    };
  }

  async function doneModel(auth: AuthContext, projectId: string, key: string) {
    const p = await getProject(auth, projectId);
    const m = await training.getModel(auth, p.id, key);
    const dir = training.runDir(m);
    if (m.state !== 'done' || !dir) throw new AppError(409, TM.modelNotTrained, { model: m.model_key });
    return { p, m, dir, cfg: JSON.parse(p.config_json) as TsConfig };
  }

  async function loadScores(dir: string, cfg: TsConfig): Promise<Scores> {
    const hit = cache.get(dir);
    if (hit) {
      cache.delete(dir);
      cache.set(dir, hit);
      return hit;
    }
    const file = path.join(dir, 'series.parquet');
    if (!fs.existsSync(file)) throw new AppError(404, M.seriesMissing);
    return withConnection(duckdb, async (c) => {
      // column by column into typed arrays, a chunk of rows at a time: no JS value per cell (a 10 M-row series is
      // ~100 M cells), and the time column kept as numbers, said as text only for the rows a view shows
      const src = `read_parquet(${sqlString(file)})`;
      const names = (await c.runAndReadAll(`SELECT column_name FROM (DESCRIBE SELECT * FROM ${src})`)).getRows().map((r) => String(r[0]));
      const contribNames = names.filter((k) => /^c_\d+$/.test(k)).sort((a, b) => Number(a.slice(2)) - Number(b.slice(2)));
      const n = Number((await c.runAndReadAll(`SELECT count(*) FROM ${src}`)).getRows()[0][0]);
      const time = cfg.time_is_datetime ? 'epoch_ms(CAST("time" AS TIMESTAMP))' : 'CAST("time" AS DOUBLE)';
      const split = `CASE "split" ${SPLIT_CODES.map((code, i) => `WHEN '${code}' THEN ${i}`).join(' ')} ELSE 0 END`;
      const cols = ['CAST(pos AS DOUBLE)', `CAST(${time} AS DOUBLE)`, 'CAST(score AS DOUBLE)', 'CAST(coalesce(label, -1) AS DOUBLE)', `CAST(${split} AS DOUBLE)`, ...contribNames.map((k) => `CAST("${k}" AS DOUBLE)`)];
      const out = cols.map(() => new Float64Array(n));
      const result = await c.run(`SELECT ${cols.join(', ')} FROM ${src} ORDER BY pos`);
      for (let at = 0; ; ) {
        const chunk = await result.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        for (let j = 0; j < cols.length; j++) {
          const v = chunk.getColumnVector(j);
          const a = out[j];
          for (let i = 0; i < chunk.rowCount; i++) a[at + i] = (v.getItem(i) as number | null) ?? NaN;
        }
        at += chunk.rowCount;
      }
      const [pos, times, score, label, parts, ...contrib] = out;
      const s: Scores = {
        n,
        pos,
        score,
        label: Int8Array.from(label),
        split: Uint8Array.from(parts),
        timeMs: cfg.time_is_datetime ? times : null,
        time: timeTexts(times, cfg.time_is_datetime),
        contrib,
      };
      cache.set(dir, s);
      while (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
      return s;
    });
  }

  return { config: ctx.config, db, duckdb, storage, jobs, datasets, training, runs, cache, query, getProject, savedThresholds, trainedThreshold, view, doneModel, loadScores };
}
export type TsDeps = ReturnType<typeof makeTsBase>;
