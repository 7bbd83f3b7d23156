import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import { storedJson } from '../../db/stored.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import { queryRows } from '../../duck/index.js';
import type { DatasetService } from '../datasets/service.js';
import type { TrainingModelTable, TrainingProjectTable } from '../training/db.js';
import { M as TM } from '../training/messages.js';
import type { RunService } from '../training/runs.js';
import type { TrainingService } from '../training/service.js';
import { M } from './messages.js';
import type { TsModelMetrics, TsParams } from './schemas.js';
import { tsModelMetrics, WINDOW_STATS } from './schemas.js';
import type { Scores } from './scores.js';
import { readSeriesFile } from './series-file.js';
import { bestDetector, detectorName, isTsType, modeOf } from './detectors.js';
import { type TsConfig, tsConfigOf } from './stored.js';
import { thresholdRepo } from './repo.js';

const MAX_CACHED = 6;
/** The trained threshold in a model's metrics_json (its `model` event's figures, training/runs.ts: {} when the event
 * had none); the other figures are read by the training area. */
const storedThreshold = tsModelMetrics.pick({ threshold: true }).partial();

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
    const v = m.metrics_json ? storedJson('time-series model metrics', storedThreshold, m.metrics_json).threshold : undefined;
    return typeof v === 'number' ? v : null;
  };

  /** The project with its models; `lang` is the language of the detectors' names. */
  async function view(auth: AuthContext, p: TrainingProjectTable, lang: Lang = 'en') {
    const base = await training.view(auth, p);
    const cfg = tsConfigOf(p);
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
    return { p, m, dir, cfg: tsConfigOf(p) };
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
    const s = await readSeriesFile(duckdb, file, Boolean(cfg.time_is_datetime));
    cache.set(dir, s);
    while (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
    return s;
  }

  return { config: ctx.config, db, duckdb, storage, jobs, datasets, training, runs, cache, query, getProject, savedThresholds, trainedThreshold, view, doneModel, loadScores };
}
export type TsDeps = ReturnType<typeof makeTsBase>;
