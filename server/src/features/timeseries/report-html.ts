import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config.js';
import type { Lang } from '../../i18n/messages.js';
import { spawnEngine, stopProcess } from '../../jobs/engine.js';
import type { TsReport } from './schemas.js';

/** How long the engine may take to write one report (it starts Python: seconds on a busy machine). */
const RENDER_TIMEOUT_MS = 120_000;

/**
 * The model's HTML report at a threshold saved after training (issue 33). Training wrote report.<lang>.html at its
 * own threshold; `report` is the report with every figure already at the one in force (in-force.ts reportAt), and
 * the engine's renderer (timeseries/report_html.py, the one HTML writer) says it again, naming both thresholds. Kept in
 * the run's folder per language and threshold, so a second download does not start Python again; returns its path.
 */
export async function reportHtmlAt(config: Config, dir: string, input: { report: TsReport; project_name: string; lang: Lang; trained_threshold: number | null }): Promise<string> {
  const file = path.join(dir, `report.${input.lang}.at-${input.report.threshold}.html`);
  if (fs.existsSync(file)) return file;
  const html = await render(config, { ...input, mdir: dir });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await fs.promises.writeFile(tmp, html, 'utf8');
  await fs.promises.rename(tmp, file); // whole or absent: two downloads at once each write a complete file
  return file;
}

function render(config: Config, request: object): Promise<string> {
  const proc = spawnEngine(config, 'mitate_engine.timeseries.report_html');
  const out: Buffer[] = [];
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => out.push(d));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const timer = setTimeout(() => void stopProcess(proc, 2000), RENDER_TIMEOUT_MS);
  proc.stdin!.end(JSON.stringify(request));
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new Error(`the engine could not write the report (exit ${code}): ${err.slice(-2000)}`));
    });
  });
}
