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
const sk = r.skab;
const pick = (pool, keys) => (pool ? Object.fromEntries(keys.filter((k) => pool[k]).map((k) => [k, pool[k]])) : null);
const shown = ['product_pca_mspc', 'previous_product_default_levels', 'textbook_9pc_t2q_99', 'previous_default_90pct_variance', 'product_sequence_autoencoder', 'skab_leaderboard_t2q_reproduced'];
writeResult('tsad_defaults', {
  load_average: { before: loadBefore, after: os.loadavg() },
  skab_source: process.env.MITATE_SKAB_DIR ? `MITATE_SKAB_DIR=${process.env.MITATE_SKAB_DIR}` : 'shared data (5 files)',
  ...r,
  summary: {
    tep_far_d00_te: { product: tep.product_pca_mspc.far_d00_te, textbook: tep.textbook_9pc_t2q_99.far_d00_te, previous_default: tep.previous_default_90pct_variance.far_d00_te },
    tep_detection: Object.fromEntries(['d01_te', 'd04_te', 'd06_te'].map((f) => [f, { product: tep.product_pca_mspc[`detection_${f}`], textbook: tep.textbook_9pc_t2q_99[`detection_${f}`] }])),
    tep_wizard_default_on_d00: r.tep.wizard_default_on_d00,
    tep_goal_met: r.tep.goal_met,
    skab_data: sk.data,
    skab_goal: sk.goal,
    skab_goal_f1_met: sk.goal_f1_met,
    skab_goal_far_met: sk.goal_far_met,
    skab_goal_met: sk.goal_met,
    skab_test_rows_as_skab_leaderboard: pick(sk.pooled_test_rows_as_skab_leaderboard, shown),
    skab_test_rows_held_out_29_files: pick(sk.pooled_test_rows_held_out_29_files, shown),
    skab_test_rows_design_5_files: pick(sk.pooled_test_rows_design_5_files, shown),
    skab_every_row_skab_v09_style: pick(sk.pooled_every_row_skab_v09_style, shown),
    skab_frontier_threshold_factor: sk.frontier_product_pca_mspc_threshold_factor,
    skab_far_before_after_anomaly: sk.far_before_after_anomaly.product_pca_mspc,
    skab_leaderboard: sk.leaderboard,
  },
  before: previous ? { at: previous.at, summary: previous.summary } : null,
});
