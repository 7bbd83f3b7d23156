// Issue 30 benchmark: the time-series area's product defaults on data nobody tuned to (bench/tsad_defaults.py):
// Tennessee Eastman (train d00, false alarms on d00_te, detection per fault beside the 9-component textbook T²/Q
// monitor in the same run) and SKAB (first 400 rows train, pooled F1 and FAR). Writes bench/results/tsad_defaults.json.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PYTHON, ROOT, writeResult } from './lib.mjs';

const loadBefore = os.loadavg();
// the previous run's summary (the figures before this change), kept beside the new ones
const resultFile = path.join(ROOT, 'bench', 'results', 'tsad_defaults.json');
const previous = fs.existsSync(resultFile) ? JSON.parse(fs.readFileSync(resultFile, 'utf8')) : null;
const py = spawnSync(PYTHON, [path.join(ROOT, 'bench', 'tsad_defaults.py')], { encoding: 'utf8', maxBuffer: 64 << 20 });
if (py.status !== 0) throw new Error(py.stderr);
const r = JSON.parse(py.stdout.trim().split('\n').pop());
const tep = r.tep.monitors;
const skab = r.skab.pooled;
writeResult('tsad_defaults', {
  load_average: { before: loadBefore, after: os.loadavg() },
  ...r,
  summary: {
    tep_far_d00_te: { product: tep.product_pca_mspc.far_d00_te, textbook: tep.textbook_9pc_t2q_99.far_d00_te, previous_default: tep.previous_default_90pct_variance.far_d00_te },
    tep_detection: Object.fromEntries(['d01_te', 'd04_te', 'd06_te'].map((f) => [f, { product: tep.product_pca_mspc[`detection_${f}`], textbook: tep.textbook_9pc_t2q_99[`detection_${f}`] }])),
    tep_goal_met: r.tep.goal_met,
    skab_product: skab.product_pca_mspc,
    skab_textbook: skab.textbook_9pc_t2q_99,
    skab_previous_default: skab.previous_default_90pct_variance,
    skab_far_before_after_anomaly: r.skab.far_before_after_anomaly.product_pca_mspc,
    skab_goal_met: r.skab.goal_met,
    skab_whole_file_as_skab_leaderboard: {
      product: r.skab.pooled_whole_file_as_skab_leaderboard.product_pca_mspc,
      textbook: r.skab.pooled_whole_file_as_skab_leaderboard.textbook_9pc_t2q_99,
    },
    skab_options: Object.fromEntries(Object.entries(skab).filter(([k]) => k.startsWith('option_') || k === 'product_sequence_autoencoder')),
  },
  before: previous ? { at: previous.at, summary: previous.summary } : null,
});
