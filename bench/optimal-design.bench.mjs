// Issue 12 benchmark: D- and I-efficiency of our 16-run designs (4-factor quadratic on a box; a constrained 4-component
// mixture) beside pyDOE3's DETMAX/Fedorov designs and a random search over the same candidates, with the time taken.
// `--quick` (or BENCH_QUICK=1) uses fewer random tries and seeds.
import path from 'node:path';
import { python, ROOT, writeResult } from './lib.mjs';
import fs from 'node:fs';

const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const code = fs.readFileSync(path.join(ROOT, 'bench', 'optimal_design_bench.py'), 'utf8');
const t0 = performance.now();
const result = python(code, [path.join(ROOT, 'engine'), quick ? 'quick' : 'full']);
const goal = (c) => {
  const ours = c.mitate_d_optimal;
  const peers = Object.entries(c).filter(([k]) => !k.startsWith('mitate_') && !k.startsWith('_'));
  return {
    d_at_least_best_peer: peers.every(([, v]) => ours.d_efficiency >= v.d_efficiency - 1e-9),
    // a singular peer design (i_value null) has unbounded prediction variance
    i_optimal_at_least_best_peer: peers.every(([, v]) => v.i_value === null || c.mitate_i_optimal.i_value <= v.i_value + 1e-12),
    under_5_s: ours.seconds < 5 && c.mitate_i_optimal.seconds < 5,
  };
};
writeResult('optimal-design', {
  quick,
  seconds_total: (performance.now() - t0) / 1000,
  goal: { box: goal(result.box_4factor_quadratic_16runs), mixture: goal(result.mixture_4component_constrained_16runs) },
  ...result,
});
