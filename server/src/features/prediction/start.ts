import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { DatasetTable } from '../../db/schema.js';
import { ident, readParquet, sqlString, withConnection } from '../../duck/index.js';
import { AppError } from '../../http/errors.js';
import { datasetSchema } from '../datasets/stored.js';
import { isTsType } from '../timeseries/service.js';
import { type ProjectType } from '../training/types.js';
import type { PredictionTable } from './db.js';
import { imagePredictJob } from '../images/jobs.js';
import type { SpecOf } from '../../jobs/kind.js';
import { predictJob } from './jobs.js';
import type { Lang } from '../../i18n/messages.js';
import { M } from './messages.js';
import { predictionRepo as repo } from './repo.js';
import type { PredictionDeps } from './views.js';
import { storedJson } from '../../db/stored.js';
// the trained model's manifest.json, declared where the model is trained
import { ModelManifest as Manifest } from '../training/stored.js';

export async function start(d: PredictionDeps, auth: AuthContext, projectId: string, modelKey: string, datasetId: string, name?: string, type?: ProjectType | 'time_series', lang: Lang = 'en') {
  const { db, jobs, storage, datasets, training, timeSeries, view } = d;
  const project = type === 'time_series' ? await timeSeries.getProject(auth, projectId) : await training.getProject(auth, projectId, type);
  const model = await training.getModel(auth, projectId, modelKey);
  const dir = training.runDir(model);
  if (model.state !== 'done' || !dir) throw new AppError(422, M.noModel, {}, 'model_key');
  const dataset = await datasets.getRow(auth, datasetId);
  const manifestFile = path.join(dir, 'manifest.json');
  if (!fs.existsSync(manifestFile)) throw new AppError(409, M.manifestMissing);
  const manifest = storedJson('model manifest', Manifest, await fs.promises.readFile(manifestFile, 'utf8'));
  // The training dataset's preprocessing condition applies to raw inference data (not to data already preprocessed).
  const condition = dataset.id !== project.dataset_id && !training.conditionPath(auth.orgId, dataset.id) ? training.conditionPath(auth.orgId, project.dataset_id) : null;
  if (!condition) await checkInput(d, manifest, dataset);
  const id = crypto.randomUUID();
  const resultKey = `org/${auth.orgId}/predictions/${id}`;
  const job = await jobs.create({
    orgId: auth.orgId,
    userId: auth.userId,
    kind: predictJob,
    subjectType: 'prediction',
    subjectId: id,
    spec: {
      model: path.join(dir, 'model.joblib'),
      parquet: datasets.parquetPath(dataset),
      condition_path: condition,
      output_dir: storage.pathOf(resultKey),
      // an anomaly detector's saved threshold replaces the trained one
      threshold: isTsType(project.project_type) ? ((await timeSeries.savedThresholds(auth.orgId, project.id)).get(model.model_key) ?? null) : null,
      lang, // the language of the person starting the job: the engine says its progress in it
    },
  });
  const row: PredictionTable = {
    id,
    organisation_id: auth.orgId,
    name: name || `${project.name} · ${dataset.name}`,
    project_id: project.id,
    project_name: project.name,
    project_type: project.project_type,
    model_key: model.model_key,
    dataset_id: dataset.id,
    dataset_name: dataset.name,
    job_id: job.id,
    result_key: resultKey,
    created_by: auth.userId,
    created_at: new Date().toISOString(),
  };
  await repo.insert(db, row);
  return view(auth, row);
}

/** An image prediction, whose input the images area prepared: its row first, then its job (the row names the
 * job before the job is queued, so a fast job finds its prediction). */
export async function startImage(d: PredictionDeps, auth: AuthContext, p: { id: string; name: string; project_type: string }, modelKey: string, dataset: { id: string; name: string }, id: string, resultKey: string, spec: SpecOf<typeof imagePredictJob>) {
  const { db, jobs } = d;
  const row: PredictionTable = {
    id,
    organisation_id: auth.orgId,
    name: `${p.name} / ${dataset.name}`,
    project_id: p.id,
    project_name: p.name,
    project_type: p.project_type,
    model_key: modelKey,
    dataset_id: dataset.id,
    dataset_name: dataset.name,
    job_id: null,
    result_key: resultKey,
    created_by: auth.userId,
    created_at: new Date().toISOString(),
  };
  await repo.insert(db, row);
  return jobs.create({
    orgId: auth.orgId,
    userId: auth.userId,
    kind: imagePredictJob,
    subjectType: 'prediction',
    subjectId: id,
    spec,
    beforeEnqueue: async (j) => {
      await repo.setJob(db, auth.orgId, id, j.id);
    },
  });
}

/** Bad input answers before any job starts, naming the column (missing, not numeric, unseen category). */
async function checkInput(d: PredictionDeps, manifest: Manifest, dataset: DatasetTable) {
  const { duckdb, datasets } = d;
  const schema = datasetSchema(dataset);
  const cols = new Map(schema.map((c) => [c.name, c.type]));
  if (manifest.time_column && !cols.has(manifest.time_column)) throw new AppError(422, M.missingColumn, { column: manifest.time_column }, 'dataset_id');
  for (const f of manifest.features) {
    if (!cols.has(f)) throw new AppError(422, M.missingColumn, { column: f }, 'dataset_id');
    const kind = manifest.model_columns[f];
    const type = cols.get(f)!;
    if (kind === 'numeric' && !['integer', 'float', 'boolean'].includes(type)) throw new AppError(422, M.notNumeric, { column: f }, 'dataset_id');
  }
  const cats = Object.entries(manifest.categories ?? {}).filter(([c]) => manifest.features.includes(c));
  if (!cats.length) return;
  await withConnection(duckdb, async (conn) => {
    const file = readParquet(datasets.parquetPath(dataset));
    for (const [c, known] of cats) {
      const list = known.length ? known.map(sqlString).join(', ') : "''";
      const res = await conn.runAndReadAll(`SELECT CAST(${ident(c)} AS VARCHAR) AS v FROM ${file} WHERE ${ident(c)} IS NOT NULL AND CAST(${ident(c)} AS VARCHAR) NOT IN (${list}) LIMIT 1`);
      const rows = res.getRowObjectsJson() as { v: string }[];
      if (rows.length) throw new AppError(422, M.unseenCategory, { column: c, value: rows[0].v }, 'dataset_id');
    }
  });
}
