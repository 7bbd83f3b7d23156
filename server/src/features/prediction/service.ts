import fs from 'node:fs';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import { jsonNumber, readParquet, withConnection } from '../../duck/index.js';
import { AppError } from '../../http/errors.js';
import type { CellValue, DatasetService } from '../datasets/service.js';
import type { ImageService } from '../images/service.js';
import { type TimeSeriesService } from '../timeseries/service.js';
import type { RunService } from '../training/runs.js';
import type { TrainingService } from '../training/service.js';
import { type Lang } from '../../i18n/messages.js';
import { M } from './messages.js';
import { predictionRepo as repo } from './repo.js';
import { makePredictionViews, type PredictionDeps } from './views.js';
import { start } from './start.js';
import { predictImages } from './images.js';
import { scoreSeries } from './score-series.js';

/** SPEC §7 'Inference' and each type's prediction calls: a trained model applied to an inference dataset, as a job. */
export function makePredictionService(
  ctx: AppContext,
  { datasets, training, timeSeries, runs, images }: { datasets: DatasetService; training: TrainingService; timeSeries: TimeSeriesService; runs: RunService; images: ImageService },
) {
  const { db, jobs, storage, duckdb } = ctx;
  const views = makePredictionViews(ctx);
  const { getRow, view, getTimeSeries, resultFile, done } = views;
  const d: PredictionDeps = { db, jobs, storage, duckdb, datasets, training, timeSeries, runs, images, ...views };
  const on = <A extends unknown[], R>(f: (d: PredictionDeps, ...a: A) => R) => (...a: A): R => f(d, ...a);

  return {
    getRow,
    view,
    /** One prediction; `type` (when given) must be its project's type. */
    async get(auth: AuthContext, id: string, type?: string, lang: Lang = 'en') {
      const p = await getRow(auth, id);
      if (type && p.project_type !== type) throw new AppError(404, M.notFound);
      return view(auth, p, lang);
    },
    getTimeSeries,
    start: on(start),
    predictImages: on(predictImages),
    /** The folder of a prediction's result files, or null when the organisation has no such prediction. */
    async resultDir(orgId: string, id: string): Promise<string | null> {
      const p = await repo.get(db, orgId, id);
      return p ? storage.pathOf(p.result_key) : null;
    },
    async list(auth: AuthContext, query: string, page: number, pageSize: number) {
      const { rows, total } = await repo.list(db, auth.orgId, query, page, pageSize);
      return { items: await Promise.all(rows.map((p) => view(auth, p))), total };
    },
    /** A page of the result table: predictions beside the input rows. */
    async rows(auth: AuthContext, id: string, page: number, pageSize: number) {
      const p = await getRow(auth, id);
      const v = await done(auth, p);
      return withConnection(duckdb, async (conn) => {
        const res = await conn.runAndReadAll(`SELECT * FROM ${readParquet(resultFile(p, 'predictions.parquet'))} LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`);
        const columns = res.columnNames();
        const rows = res.getRowsJson().map((vals) => vals.map((x) => (typeof x === 'string' && /^-?\d+$/.test(x) ? (jsonNumber(x) ?? x) : x))) as CellValue[][]; // result tables hold scalars only
        const table = v.result && 'outputs' in v.result ? v.result : null;
        return { columns, outputs: table?.outputs ?? [], rows, total: table?.rows ?? rows.length, page, page_size: pageSize };
      });
    },
    /** The result table as CSV: its file and the name to download it as. */
    async csvFile(auth: AuthContext, projectId: string, id: string) {
      const p = await getRow(auth, id);
      if (p.project_id !== projectId) throw new AppError(404, M.notFound);
      const file = resultFile(p, 'predictions.csv');
      if (!fs.existsSync(file)) throw new AppError(409, M.notDone);
      return { file, name: `${p.name}-predictions.csv` };
    },
    async remove(auth: AuthContext, id: string) {
      const p = await getRow(auth, id);
      const job = p.job_id ? await jobs.get(auth.orgId, p.job_id) : undefined;
      if (job && (job.state === 'queued' || job.state === 'running')) await jobs.cancel(auth.orgId, job.id).catch(() => undefined);
      await repo.delete(db, auth.orgId, p.id);
      storage.remove(p.result_key);
      return { id: p.id };
    },
    scoreSeries: on(scoreSeries),
  };
}
