import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { Db } from '../../db/index.js';
import { AppError } from '../../http/errors.js';
import type { LocalStorage } from '../../storage/local.js';
import type { TrainingService } from '../training/service.js';
import type { PlatformProjectTable } from './db.js';
import { copyImageModel, IMAGE_MODEL_FILE, isImageModel } from './image-serving.js';
import { M } from './messages.js';
import { platformRepo } from './repo.js';
import { quote, type PriceList } from './prices.js';
import type { Settings } from './schemas.js';

export const modelFolderKey = (orgId: string, id: string) => `org/${orgId}/platform/${id}/model`;
const now = () => new Date().toISOString();

export interface DraftDeps {
  db: Db;
  storage: LocalStorage;
  training: TrainingService;
  prices: PriceList;
}

/** A draft from a trained model: the model's files are copied, so retraining never changes a published API. */
export async function createDraft({ db, storage, training, prices }: DraftDeps, auth: AuthContext, body: Settings & { name: string; key: string; project_id: string; model_key: string }): Promise<PlatformProjectTable> {
  const project = await training.getProject(auth, body.project_id);
  const model = await training.getModel(auth, project.id, body.model_key);
  const dir = training.runDir(model);
  if (model.state !== 'done' || !dir) throw new AppError(422, M.modelNotTrained, {}, 'model_key');
  const image = isImageModel(project.project_type);
  if (!fs.existsSync(path.join(dir, image ? IMAGE_MODEL_FILE : 'model.joblib'))) throw new AppError(409, M.modelFilesMissing);
  if (await platformRepo.keyTaken(db, body.key)) throw new AppError(409, M.keyTaken, { key: body.key }, 'key');
  const id = crypto.randomUUID();
  const tmp = storage.makeTempDir();
  if (image) copyImageModel(dir, model, project.project_type, tmp);
  else {
    for (const f of ['model.joblib', 'manifest.json']) if (fs.existsSync(path.join(dir, f))) fs.copyFileSync(path.join(dir, f), path.join(tmp, f));
    const condition = training.conditionPath(auth.orgId, project.dataset_id);
    if (condition) fs.copyFileSync(condition, path.join(tmp, 'condition.json'));
  }
  const key = modelFolderKey(auth.orgId, id);
  await storage.commitDir(tmp, key);
  const { name, key: apiKey, project_id: _p, model_key: _m, ...settings } = body;
  const q = quote(prices, settings);
  const row: PlatformProjectTable = {
    id,
    organisation_id: auth.orgId,
    name,
    key: apiKey,
    status: 'draft',
    reason: null,
    model_project_id: project.id,
    model_project_name: project.name,
    model_key: model.model_key,
    model_type: project.project_type,
    model_dir: key,
    settings_json: JSON.stringify(settings),
    subscription_price: q.subscription_price,
    infrastructure_price: q.infrastructure_price,
    created_by: auth.userId,
    created_at: now(),
    updated_at: now(),
    reviewed_at: null,
    reviewed_by: null,
  };
  try {
    await platformRepo.insert(db, row);
  } catch (e) {
    storage.remove(key);
    if (await platformRepo.keyTaken(db, body.key)) throw new AppError(409, M.keyTaken, { key: body.key }, 'key');
    throw e;
  }
  return row;
}
