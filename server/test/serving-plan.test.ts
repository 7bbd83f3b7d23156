import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { engineDir } from '../src/jobs/engine.js';
import { agrees, PlanEvaluator, type PlanSamples, type ServingPlan } from '../src/features/platform/plan.js';
import { ServingPool } from '../src/features/platform/serving.js';

/**
 * The server's evaluation of a serving plan (plan.ts) against Python's shared model path, on models trained by
 * test/fixtures/serving_plans.py: LightGBM, linear, random forest and extra-trees regression, LightGBM, logistic and random forest
 * classification with two and three classes, category columns and missing values. The plans come from the real serving process.
 */
interface Fixture {
  name: string;
  dir: string;
  rows: Record<string, unknown>[];
  outputs: string[];
  predictions: Record<string, unknown>[];
}

function expectClose(got: Record<string, unknown>[], want: Record<string, unknown>[]) {
  expect(got.length).toBe(want.length);
  got.forEach((row, i) => {
    expect(Object.keys(row).sort()).toEqual(Object.keys(want[i]).sort());
    for (const [k, v] of Object.entries(want[i])) {
      if (typeof v === 'number') {
        expect(typeof row[k], `${k} of row ${i}`).toBe('number');
        expect(Math.abs((row[k] as number) - v), `${k} of row ${i}: ${row[k]} vs ${v}`).toBeLessThanOrEqual(1e-9);
      } else expect(row[k], `${k} of row ${i}`).toEqual(v);
    }
  });
}

describe('serving plans evaluated in the server', () => {
  const config = loadConfig(process.env, {});
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-plan-'));
  const pool = new ServingPool(config, 1, () => {});
  const fixtures = new Map<string, Fixture>();
  const plans = new Map<string, { plan: unknown; samples: PlanSamples | null }>();

  beforeAll(async () => {
    const { stdout } = await promisify(execFile)(config.pythonPath, [path.join(import.meta.dirname, 'fixtures', 'serving_plans.py'), tmp], {
      cwd: engineDir,
      env: { ...process.env, PYTHONPATH: engineDir },
      maxBuffer: 64 * 1024 * 1024,
    });
    for (const line of stdout.trim().split('\n')) {
      const f = JSON.parse(line) as Fixture;
      fixtures.set(f.name, f);
      const r = await pool.predict({ key: f.name, dir: f.dir }, { plan: true });
      if (!('plan' in r)) throw new Error(`no plan answer for ${f.name}: ${JSON.stringify(r)}`);
      plans.set(f.name, r);
    }
  }, 600_000);
  afterAll(async () => {
    await pool.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const planned = ['regression-y-lightgbm', 'regression-y-linear', 'regression-y-ridge', 'regression-y-random_forest', 'regression-y-extra_trees', 'discriminant_analysis-cls-lightgbm', 'discriminant_analysis-cls-logistic', 'discriminant_analysis-ok-lightgbm', 'discriminant_analysis-ok-logistic', 'discriminant_analysis-cls-random_forest', 'discriminant_analysis-ok-random_forest'];

  it.each(planned)('%s: equals the shared model path within 1e-9, many rows and one row at a time', (name) => {
    const f = fixtures.get(name)!;
    const { plan, samples } = plans.get(name)!;
    expect(plan).toBeTruthy();
    const ev = PlanEvaluator.from(plan)!;
    expect(ev).not.toBeNull();
    expect(agrees(ev, samples)).toBe(true);
    // the request rows hold missing numbers, missing categories and integers where training saw floats
    expect(f.rows.some((r) => r.x2 === null) && f.rows.some((r) => r.g === null) && f.rows.some((r) => Number.isInteger(r.x3))).toBe(true);
    const max = (plan as ServingPlan).max_rows;
    for (let i = 0; i < f.rows.length; i += max) {
      const got = ev.predict(f.rows.slice(i, i + max))!;
      expect(got.outputs).toEqual(f.outputs);
      expectClose(got.predictions, f.predictions.slice(i, i + max));
    }
    f.rows.slice(0, 60).forEach((row, i) => expectClose(ev.predict([row])!.predictions, [f.predictions[i]]));
  });

  it('hands rows it does not take exactly to the serving process', () => {
    const f = fixtures.get('discriminant_analysis-cls-lightgbm')!;
    const ev = PlanEvaluator.from(plans.get(f.name)!.plan)!;
    const good = { x1: 10, x2: 1.5, x3: 5, g: 'a', h: 'p' };
    expect(ev.predict([good])).not.toBeNull();
    expect(ev.predict([{ ...good, extra: 'ignored' }])).not.toBeNull();
    const bad = [
      { ...good, x1: '10.5' }, // a number as text: the engine reads it
      { ...good, g: 'zzz' }, // unseen category: 422 from the engine
      { x1: 10, x3: 5, g: 'a', h: 'p' }, // missing column: 422
      { ...good, h: 3 },
      { ...good, x1: true },
      { ...good, x3: 2 ** 60 },
      [1, 2, 3],
      null,
    ];
    for (const row of bad) expect(ev.predict([good, row]), JSON.stringify(row)).toBeNull();
    expect(ev.predict([])).toBeNull();
    expect(ev.predict(Array.from({ length: (plans.get(f.name)!.plan as ServingPlan).max_rows + 1 }, () => good))).toBeNull();
  });

  it('a model without a plan answers none; a plan that does not reproduce the samples is refused', () => {
    expect(plans.get('regression-y-svr')!.plan).toBeNull();
    const { plan, samples } = plans.get('regression-y-lightgbm')!;
    const changed = structuredClone(plan) as ServingPlan;
    const est = changed.estimator as Extract<ServingPlan['estimator'], { kind: 'lightgbm' }>;
    est.trees[0].leaf_value = est.trees[0].leaf_value.map((v) => v + 1e-6);
    expect(agrees(PlanEvaluator.from(changed)!, samples)).toBe(false);
    const forest = structuredClone(plans.get('regression-y-random_forest')!.plan) as ServingPlan;
    const ft = (forest.estimator as Extract<ServingPlan['estimator'], { kind: 'forest' }>).trees[0];
    ft.value = ft.value.map((v) => v + 1e-6);
    expect(agrees(PlanEvaluator.from(forest)!, plans.get('regression-y-random_forest')!.samples)).toBe(false);
    const loop = structuredClone(plans.get('regression-y-extra_trees')!.plan) as ServingPlan;
    (loop.estimator as Extract<ServingPlan['estimator'], { kind: 'forest' }>).trees[0].left[0] = 0; // a node that is its own child
    expect(PlanEvaluator.from(loop)).toBeNull();
    const linear = structuredClone(plans.get('regression-y-linear')!.plan) as ServingPlan;
    (linear.blocks[0] as { mean: number[] }).mean[0] += 1e-3;
    expect(agrees(PlanEvaluator.from(linear)!, plans.get('regression-y-linear')!.samples)).toBe(false);
    // parts that do not fit together, or another version: no evaluator at all
    expect(PlanEvaluator.from({ ...(plan as ServingPlan), version: 99 })).toBeNull();
    const short = structuredClone(plans.get('regression-y-linear')!.plan) as ServingPlan;
    (short.estimator as { coef: number[] }).coef.pop();
    expect(PlanEvaluator.from(short)).toBeNull();
  });
});
