import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import type { SpecOf } from '../../jobs/kind.js';
import type { imagePredictJob } from '../images/jobs.js';
import { M as IM } from '../images/messages.js';
import { startImage } from './start.js';
import type { PredictionDeps } from './views.js';

/** Images uploaded with the request (the route saves them into the folder it is given: numbered images, or one ZIP),
 * or an image dataset of the organisation (undefined: the request named none, refused after the model's checks). */
export type ImageInput = { receive: (inputs: string) => Promise<{ files: { path: string; name: string }[]; zip: string | null }> } | { datasetId: string | undefined };

/** POST /prediction/result/{project_id}/{model_key}: a trained image model applied to images, as a job. */
export async function predictImages(d: PredictionDeps, auth: AuthContext, projectId: string, modelKey: string, input: ImageInput, lang: Lang) {
  const { images, storage } = d;
  const p = await images.getProject(auth, projectId);
  const m = await images.getModel(auth, p.id, modelKey);
  const dir = images.runDir(m);
  if (m.state !== 'done' || !dir) throw new AppError(422, { en: 'Select a trained model.', ja: '学習済みのモデルを選択してください。' }, {}, 'model_key');
  const id = crypto.randomUUID();
  const resultKey = `org/${auth.orgId}/predictions/${id}`;
  const spec: SpecOf<typeof imagePredictJob> = { model: path.join(dir, 'model.pt'), output_dir: storage.pathOf(resultKey), threshold: (await images.view(auth, p)).models.find((x) => x.model_key === m.model_key)?.threshold ?? null };
  let datasetId = '';
  let datasetName = '';
  if ('receive' in input) {
    const inputs = storage.pathOf(`${resultKey}-inputs`);
    fs.mkdirSync(inputs, { recursive: true });
    try {
      const { files, zip } = await input.receive(inputs);
      if (zip) {
        const out = path.join(inputs, 'unpacked');
        await images.ingestZip(auth, zip, 'inference', out, lang, 'files');
        spec.dataset_dir = out;
        datasetName = path.basename(zip);
      } else {
        if (!files.length) throw new AppError(422, IM.noImages, {}, 'files');
        spec.files = files;
        datasetName = files.length === 1 ? files[0].name : `${files.length} images`;
      }
    } catch (e) {
      fs.rmSync(inputs, { recursive: true, force: true });
      throw e;
    }
  } else {
    if (input.datasetId === undefined) throw new AppError(422, IM.noImages, {}, 'dataset_id');
    const { row } = await images.getImageDataset(auth, input.datasetId);
    spec.dataset_dir = images.datasetDir(row);
    datasetId = row.id;
    datasetName = row.name;
  }
  const job = await startImage(d, auth, p, m.model_key, { id: datasetId, name: datasetName }, id, resultKey, { ...spec, lang });
  return { id, state: job.state === 'queued' ? 'queued' : job.state, project_id: p.id, model_key: m.model_key, report_type: p.project_type, job_id: job.id };
}
