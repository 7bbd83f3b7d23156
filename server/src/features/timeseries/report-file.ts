import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import { embedReportFont } from '../../pdf/index.js';
import { M as TM } from '../training/messages.js';
import type { TsDeps } from './base.js';
import { reportHtmlAt } from './report-html.js';
import { report } from './score-views.js';

/** A model's report as one self-contained HTML file in `lang`: its name and its text, the report font embedded. */
export async function reportFile(d: TsDeps, auth: AuthContext, projectId: string, key: string, lang: Lang): Promise<{ name: string; html: string }> {
  const { p, m, dir } = await d.doneModel(auth, projectId, key);
  const name = `${p.name}-${m.model_key}-report.html`;
  const { model, report: r } = await report(d, auth, projectId, key, lang);
  let file: string;
  // a threshold saved after training: every figure of the file at the one in force, as the report page has them
  if (model.saved_threshold !== null && model.saved_threshold !== model.trained_threshold) {
    file = await reportHtmlAt(d.config, dir, { report: r, project_name: p.name, lang, trained_threshold: model.trained_threshold });
  } else {
    // the engine writes report.<lang>.html for each language; a run from before that has report.html only
    const local = path.join(dir, `report.${lang}.html`);
    file = fs.existsSync(local) ? local : path.join(dir, 'report.html');
  }
  if (!fs.existsSync(file)) throw new AppError(404, TM.reportMissing);
  return { name, html: await embedReportFont(await fs.promises.readFile(file, 'utf8')) };
}
