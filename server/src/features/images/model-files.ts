import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import { esc } from '../../pdf/charts.js';
import { embedReportFont } from '../../pdf/index.js';
import type { ImageDeps } from './base.js';
import { M } from './messages.js';
import { reportNotice } from './threshold.js';

// What the result pages read of a trained image model: its run folder's files, its report, its training job.

/** A file of a trained model's run folder (heat-maps, report, model.pt); 409 while the model is not trained. */
export async function modelFile(d: ImageDeps, auth: AuthContext, projectId: string, key: string, name: string): Promise<string> {
  await d.getProject(auth, projectId);
  const m = await d.getModel(auth, projectId, key);
  const dir = d.runDir(m);
  if (m.state !== 'done' || !dir) throw new AppError(409, { en: 'The model "{model}" has not been trained yet.', ja: 'モデル「{model}」はまだ学習されていません。' }, { model: m.model_key });
  return path.join(dir, name);
}

/** The model's report as one HTML file in `lang`. A threshold saved after training: the report opens saying so, and
 * `keep` is false (the browser does not keep it past the next change). */
export async function report(d: ImageDeps, auth: AuthContext, projectId: string, key: string, lang: Lang): Promise<{ html: string; keep: boolean }> {
  const inLang = await modelFile(d, auth, projectId, key, `report.${lang}.html`);
  // runs trained before the report was written in both languages have report.html (English) only
  const file = fs.existsSync(inLang) ? inLang : await modelFile(d, auth, projectId, key, 'report.html');
  if (!fs.existsSync(file)) throw new AppError(404, M.imageNotFound);
  const notice = await reportNotice(d, auth, projectId, key, lang);
  const text = await fs.promises.readFile(file, 'utf8');
  const html = notice ? text.replace(/<body([^>]*)>/, `<body$1><p role="note" style="border:1px solid #b26a00;background:#fff4e5;padding:8px 12px">${esc(notice)}</p>`) : text;
  return { html: await embedReportFont(html), keep: !notice };
}

/** State and progress of an image training job, with its project as the result page shows it. */
export async function trainProgress(d: ImageDeps, auth: AuthContext, taskId: string) {
  const job = await d.jobs.get(auth.orgId, taskId);
  if (!job || job.kind !== 'image_train' || !job.subject_id) throw new AppError(404, 'job_not_found');
  const v = await d.view(auth, await d.getProject(auth, job.subject_id));
  return { task_id: job.id, state: job.state, progress: job.progress, message: job.message, error: job.error, project: v };
}
