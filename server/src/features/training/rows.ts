import crypto from 'node:crypto';
import type { Db } from '../../db/index.js';
import type { TrainingModelTable, TrainingProjectTable } from './db.js';

/** The project and model rows of a new training project: every area (tables, time series, images) stores them alike. */
export interface NewProject {
  orgId: string;
  userId: string | null;
  type: string;
  name: string;
  dataset: { id: string; name: string };
  numberOfData: number;
  config: unknown;
  models: readonly { algorithm: string; params?: Record<string, unknown> }[];
}

/** A model row of a project, ready to train; its key is `<index>_<algorithm>`. */
export function newModel(orgId: string, projectId: string, index: number, algorithm: string, params: Record<string, unknown>, t: string): TrainingModelTable {
  return {
    id: crypto.randomUUID(),
    organisation_id: orgId,
    project_id: projectId,
    model_index: index,
    model_key: `${index}_${algorithm}`,
    algorithm,
    params_json: JSON.stringify(params),
    state: 'ready',
    metrics_json: null,
    summary_json: null,
    error: null,
    log: null,
    run_key: null,
    trained_at: null,
    created_at: t,
  };
}

/** Stores a new project with its models in one transaction and answers the project row. */
export async function insertProject(db: Db, p: NewProject): Promise<TrainingProjectTable> {
  const id = crypto.randomUUID();
  const t = new Date().toISOString();
  const project: TrainingProjectTable = {
    id,
    organisation_id: p.orgId,
    project_type: p.type,
    name: p.name,
    dataset_id: p.dataset.id,
    dataset_name: p.dataset.name,
    number_of_data: p.numberOfData,
    config_json: JSON.stringify(p.config),
    job_id: null,
    error: null,
    created_by: p.userId,
    created_at: t,
    updated_at: t,
  };
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('training_projects').values(project).execute();
    for (const [i, m] of p.models.entries()) await trx.insertInto('training_models').values(newModel(p.orgId, id, i + 1, m.algorithm, m.params ?? {}, t)).execute();
  });
  return project;
}
