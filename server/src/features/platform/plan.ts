/**
 * In-process evaluation of a hosted model's "serving plan": the compiled single-row predictor of
 * engine/mitate_engine/platform/fast.py exported as JSON data (FastPredictor.plan — the one place that decides what
 * compiles). The plan holds the fitted numeric imputation / variance selection / standardisation arrays, the one-hot
 * vector of every known category, the estimator as data (LightGBM trees as LightGBM's own flat arrays, or a linear /
 * logistic model's coefficients) and the output columns.
 *
 * A plan is used only after `agrees()` found this evaluator equal (|diff| ≤ 1e-9) to the shared model path's answers
 * on the engine's sample rows. `predict()` answers null for anything it does not take exactly as the engine's
 * compiled predictor does (a missing column, a value that is not a number or a known category, too many rows):
 * those requests go to the Python serving process, so its 422 messages stay one implementation.
 */

export const PLAN_VERSION = 1;
export const PLAN_TOLERANCE = 1e-9;
/** LightGBM's kZeroThreshold (a float literal held in a double): dense inputs this small count as zero. */
const ZERO = Math.fround(1e-35);
const MAX_SAFE = 2 ** 53;

type Label = string | number | boolean;

export interface PlanNumericBlock {
  kind: 'num';
  columns: string[];
  keep: boolean[] | null;
  fill: number[] | null;
  select: boolean[] | null;
  mean: number[] | null;
  scale: number[] | null;
}
export interface PlanCategoryBlock {
  kind: 'cat';
  columns: string[];
  vectors: Record<string, { values: Record<string, number[]>; missing: number[] }>;
}
export interface PlanTree {
  split_feature: number[];
  threshold: number[];
  default_left: boolean[];
  missing_type: number[]; // 0 None, 1 Zero, 2 NaN
  left: number[]; // an internal node's index, or ~leaf index
  right: number[];
  leaf_value: number[];
}
/** A scikit-learn tree (random forest, extra trees): children (-1 at a leaf), split feature, threshold, and per
 * node its value (a regressor) or its num_class class values (a classifier), node after node. */
export interface PlanForestTree {
  feature: number[];
  threshold: number[];
  left: number[];
  right: number[];
  value: number[];
}
export type PlanEstimator =
  | {
      kind: 'lightgbm';
      num_class: number;
      num_tree_per_iteration: number;
      transform: 'identity' | 'sigmoid' | 'softmax';
      sigmoid: number;
      average_output: boolean;
      num_features: number;
      trees: PlanTree[];
    }
  | { kind: 'linear'; coef: number[]; intercept: number }
  | { kind: 'forest'; num_class: number; num_features: number; trees: PlanForestTree[] }
  | { kind: 'logistic'; coef: number[][]; intercept: number[] };
export interface ServingPlan {
  version: number;
  max_rows: number;
  numeric: string[];
  category: string[];
  categories: Record<string, string[]>;
  blocks: (PlanNumericBlock | PlanCategoryBlock)[];
  estimator: PlanEstimator;
  output:
    | { type: 'regression' | 'soft_sensor'; columns: string[]; target_affine: [number, number][] }
    | { type: 'discriminant_analysis'; columns: string[]; labels: Label[]; probability_columns: string[] };
}
export interface PlanSamples {
  rows: Record<string, unknown>[];
  outputs: string[];
  predictions: Record<string, unknown>[];
}
export interface PlanAnswer {
  outputs: string[];
  predictions: Record<string, unknown>[];
}

interface ForestTree {
  feature: Int32Array;
  threshold: Float64Array;
  left: Int32Array;
  right: Int32Array;
  value: Float64Array;
}

interface Tree {
  feature: Int32Array;
  threshold: Float64Array;
  defaultLeft: Uint8Array;
  missing: Uint8Array;
  left: Int32Array;
  right: Int32Array;
  leaf: Float64Array;
}

/** A compiled plan. `from` answers null for a plan this version does not know or whose parts do not fit together. */
export class PlanEvaluator {
  private numIndex = new Map<string, number>();
  private catIndex = new Map<string, number>();
  private known: Set<string>[];
  private width: number;
  private trees: Tree[] = [];
  private forest: ForestTree[] = [];
  /** Per numeric block: for each output column, its input column's index and its imputation value. */
  private numPlans = new Map<PlanNumericBlock, { source: number[]; fill: number[] | null }>();

  private constructor(private plan: ServingPlan) {
    plan.numeric.forEach((c, i) => this.numIndex.set(c, i));
    plan.category.forEach((c, i) => this.catIndex.set(c, i));
    this.known = plan.category.map((c) => new Set(plan.categories[c] ?? []));
    let width = 0;
    for (const b of plan.blocks) {
      if (b.kind === 'num') {
        let n = b.columns.length;
        if (b.keep) {
          if (b.keep.length !== n) throw new Error('keep');
          n = b.keep.filter(Boolean).length;
        }
        if (b.fill && b.fill.length !== n) throw new Error('fill');
        if (b.select) {
          if (b.select.length !== n) throw new Error('select');
          n = b.select.filter(Boolean).length;
        }
        if ((b.mean && b.mean.length !== n) || (b.scale && b.scale.length !== n)) throw new Error('scaling');
        if (!b.columns.every((c) => this.numIndex.has(c))) throw new Error('numeric column');
        // imputation applies to the kept columns, then the variance selection picks some of them
        const kept = b.columns.map((c) => this.numIndex.get(c)!).filter((_, i) => !b.keep || b.keep[i]);
        const chosen = kept.map((src, i) => ({ src, fill: b.fill ? b.fill[i] : NaN })).filter((_, i) => !b.select || b.select[i]);
        this.numPlans.set(b, { source: chosen.map((c) => c.src), fill: b.fill ? chosen.map((c) => c.fill) : null });
        width += n;
      } else {
        for (const c of b.columns) {
          const v = b.vectors[c];
          if (!v || !this.catIndex.has(c)) throw new Error('category column');
          const w = v.missing.length;
          for (const k of plan.categories[c] ?? []) if (v.values[k]?.length !== w) throw new Error('category vector');
          width += w;
        }
      }
    }
    this.width = width;
    const e = plan.estimator;
    if (e.kind === 'lightgbm') {
      if (e.num_features !== width || e.trees.length % e.num_tree_per_iteration !== 0) throw new Error('trees');
      if (e.transform === 'softmax' ? e.num_class !== e.num_tree_per_iteration : e.num_class !== 1) throw new Error('classes');
      this.trees = e.trees.map((t) => ({
        feature: Int32Array.from(t.split_feature),
        threshold: Float64Array.from(t.threshold),
        defaultLeft: Uint8Array.from(t.default_left, (b) => (b ? 1 : 0)),
        missing: Uint8Array.from(t.missing_type),
        left: Int32Array.from(t.left),
        right: Int32Array.from(t.right),
        leaf: Float64Array.from(t.leaf_value),
      }));
      for (const t of this.trees) if (t.feature.some((f) => f < 0 || f >= width)) throw new Error('split feature');
    } else if (e.kind === 'forest') {
      if (e.num_features !== width || e.trees.length === 0 || !Number.isInteger(e.num_class) || e.num_class < 1) throw new Error('trees');
      this.forest = e.trees.map((t) => {
        const n = t.left.length;
        if (n === 0 || [t.feature, t.threshold, t.right].some((a) => a.length !== n) || t.value.length !== n * e.num_class) throw new Error('tree');
        for (let i = 0; i < n; i++) {
          const leaf = t.left[i] === -1;
          if (leaf !== (t.right[i] === -1)) throw new Error('tree');
          // children come after their parent in scikit-learn's arrays: a walk always ends
          if (!leaf && (t.feature[i] < 0 || t.feature[i] >= width || !(t.left[i] > i && t.left[i] < n) || !(t.right[i] > i && t.right[i] < n))) throw new Error('node');
        }
        return { feature: Int32Array.from(t.feature), threshold: Float64Array.from(t.threshold), left: Int32Array.from(t.left), right: Int32Array.from(t.right), value: Float64Array.from(t.value) };
      });
    } else if (e.kind === 'linear') {
      if (e.coef.length !== width) throw new Error('coef');
    } else if (e.kind === 'logistic') {
      if (!e.coef.every((r) => r.length === width) || e.coef.length !== e.intercept.length) throw new Error('coef');
    } else throw new Error('estimator');
    const o = plan.output;
    if (o.type === 'discriminant_analysis') {
      const k = o.labels.length;
      const classes =
        e.kind === 'lightgbm' ? (e.transform === 'softmax' ? e.num_class : 2) : e.kind === 'logistic' ? (e.coef.length === 1 ? 2 : e.coef.length) : e.kind === 'forest' ? e.num_class : 0;
      if (k < 2 || classes !== k || o.probability_columns.length !== k) throw new Error('labels');
    } else if (e.kind === 'logistic' || (e.kind === 'lightgbm' && e.transform !== 'identity') || (e.kind === 'forest' && e.num_class !== 1)) throw new Error('output');
  }

  static from(plan: unknown): PlanEvaluator | null {
    const p = plan as ServingPlan | null;
    if (!p || typeof p !== 'object' || p.version !== PLAN_VERSION) return null;
    try {
      return new PlanEvaluator(p);
    } catch {
      return null;
    }
  }

  /** Output columns and one object per row, or null when these rows must go to the serving process. */
  predict(rows: unknown): PlanAnswer | null {
    if (!Array.isArray(rows) || rows.length === 0 || rows.length > this.plan.max_rows) return null;
    const X = this.matrix(rows);
    if (!X) return null;
    // a missing value reaching a forest (no imputer before it): scikit-learn's own rules decide, in Python
    if (this.forest.length && X.some(Number.isNaN)) return null;
    const predictions: Record<string, unknown>[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) predictions[i] = this.row(X.subarray(i * this.width, (i + 1) * this.width));
    return { outputs: this.plan.output.columns, predictions };
  }

  /** The model matrix, row after row (numeric block then one-hot blocks, as the pipeline's ColumnTransformer). */
  private matrix(rows: unknown[]): Float64Array | null {
    const { numeric, category } = this.plan;
    const nums = new Float64Array(numeric.length);
    const cats: (string | null)[] = new Array(category.length);
    const X = new Float64Array(rows.length * this.width);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      if (row === null || typeof row !== 'object' || Array.isArray(row)) return null;
      const o = row as Record<string, unknown>;
      for (let j = 0; j < numeric.length; j++) {
        const c = numeric[j];
        if (!Object.hasOwn(o, c)) return null;
        const v = o[c];
        if (typeof v === 'number') {
          // a JSON integer beyond 2^53 is not a plain float to Python: its own check decides
          if (!Number.isFinite(v) || (Number.isInteger(v) && Math.abs(v) > MAX_SAFE)) return null;
          nums[j] = v;
        } else if (v === null) nums[j] = NaN;
        else return null;
      }
      for (let j = 0; j < category.length; j++) {
        const c = category[j];
        if (!Object.hasOwn(o, c)) return null;
        const v = o[c];
        if (v === null) cats[j] = null;
        else if (typeof v === 'string' && this.known[j].has(v)) cats[j] = v;
        else return null;
      }
      let at = r * this.width;
      for (const b of this.plan.blocks) {
        if (b.kind === 'num') at = this.numeric(b, nums, X, at);
        else
          for (const c of b.columns) {
            const value = cats[this.catIndex.get(c)!];
            const vec = value === null ? b.vectors[c].missing : b.vectors[c].values[value];
            X.set(vec, at);
            at += vec.length;
          }
      }
    }
    return X;
  }

  /** SimpleImputer → [VarianceThreshold] → [StandardScaler] with scikit-learn's arithmetic (x − mean) / scale, on
   * the columns kept by the imputer and the variance selection (index lists made once per plan). */
  private numeric(b: PlanNumericBlock, nums: Float64Array, X: Float64Array, at: number): number {
    const n = this.numPlans.get(b)!;
    for (let i = 0; i < n.source.length; i++) {
      let x = nums[n.source[i]];
      if (n.fill && Number.isNaN(x)) x = n.fill[i];
      if (b.mean) x = x - b.mean[i];
      if (b.scale) x = x / b.scale[i];
      X[at + i] = x;
    }
    return at + n.source.length;
  }

  private row(x: Float64Array): Record<string, unknown> {
    const e = this.plan.estimator;
    const o = this.plan.output;
    if (o.type !== 'discriminant_analysis') {
      let y = e.kind === 'linear' ? dot(e.coef, x) + e.intercept : e.kind === 'forest' ? this.forestMean(x)[0] : this.boost(x)[0];
      for (const [scale, centre] of o.target_affine) y = y * scale + centre;
      return { [o.columns[0]]: plain(y) };
    }
    let proba: number[];
    let label: number; // index into labels
    if (e.kind === 'logistic') {
      const scores = e.coef.map((w, k) => dot(w, x) + e.intercept[k]);
      if (scores.length === 1) {
        const p = expit(scores[0]);
        proba = [1 - p, p];
        label = scores[0] > 0 ? 1 : 0; // LinearClassifierMixin.predict
      } else {
        proba = softmax(scores);
        label = argmax(scores);
      }
    } else if (e.kind === 'forest') {
      proba = this.forestMean(x);
      label = argmax(proba); // ForestClassifier.predict: the class of the highest mean probability
    } else {
      proba = this.boost(x);
      if (proba.length === 1) proba = [1 - proba[0], proba[0]];
      label = argmax(proba); // LGBMClassifier.predict
    }
    const out: Record<string, unknown> = { [o.columns[0]]: o.labels[label] };
    o.probability_columns.forEach((c, k) => (out[c] = plain(proba[k])));
    return out;
  }

  /** A forest's predict (regressor) or predict_proba (classifier): per tree the leaf's value, or a classifier's
   * leaf values over their sum (DecisionTreeClassifier.predict_proba), summed over the trees, over their number.
   * Each tree reads the row as float32 (scikit-learn converts X to its DTYPE) and goes left when x <= threshold. */
  private forestMean(x: Float64Array): number[] {
    const k = (this.plan.estimator as Extract<PlanEstimator, { kind: 'forest' }>).num_class;
    const x32 = Float32Array.from(x);
    const sum = new Array<number>(k).fill(0);
    for (const t of this.forest) {
      let node = 0;
      while (t.left[node] !== -1) node = x32[t.feature[node]] <= t.threshold[node] ? t.left[node] : t.right[node];
      if (k === 1) sum[0] += t.value[node];
      else {
        let total = 0;
        for (let c = 0; c < k; c++) total += t.value[node * k + c];
        if (total === 0) total = 1;
        for (let c = 0; c < k; c++) sum[c] += t.value[node * k + c] / total;
      }
    }
    return sum.map((v) => v / this.forest.length);
  }

  /** LightGBM's prediction: each class's trees summed in order, averaged for random-forest boosting, then the
   * objective's transform. */
  private boost(x: Float64Array): number[] {
    const e = this.plan.estimator as Extract<PlanEstimator, { kind: 'lightgbm' }>;
    const k = e.num_tree_per_iteration;
    const raw = new Array<number>(k).fill(0);
    for (let i = 0; i < x.length; i++) if (Math.abs(x[i]) <= ZERO) x[i] = 0; // dense rows drop such values
    for (let t = 0; t < this.trees.length; t++) raw[t % k] += leafOf(this.trees[t], x);
    if (e.average_output) {
      const iterations = this.trees.length / k;
      for (let c = 0; c < k; c++) raw[c] /= iterations;
    }
    if (e.transform === 'sigmoid') return [1 / (1 + Math.exp(-e.sigmoid * raw[0]))];
    if (e.transform === 'softmax') return softmax(raw);
    return raw;
  }
}

/** LightGBM's Tree::GetLeaf with NumericalDecision. */
function leafOf(t: Tree, x: Float64Array): number {
  if (t.threshold.length === 0) return t.leaf[0];
  let node = 0;
  while (node >= 0) {
    let f = x[t.feature[node]];
    const missing = t.missing[node];
    if (Number.isNaN(f) && missing !== 2) f = 0;
    if ((missing === 1 && f >= -ZERO && f <= ZERO) || (missing === 2 && Number.isNaN(f))) node = t.defaultLeft[node] ? t.left[node] : t.right[node];
    else node = f <= t.threshold[node] ? t.left[node] : t.right[node];
  }
  return t.leaf[~node];
}

function dot(w: number[], x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < w.length; i++) s += w[i] * x[i];
  return s;
}

function expit(v: number): number {
  return 1 / (1 + Math.exp(-v));
}

function softmax(v: number[]): number[] {
  const m = Math.max(...v);
  const e = v.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

function argmax(v: number[]): number {
  let best = 0;
  for (let i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
  return best;
}

/** A non-finite number is null in JSON, as the engine answers it. */
function plain(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}

/** Whether this evaluator gives the shared model path's answers on the engine's sample rows (numbers within
 * PLAN_TOLERANCE, labels and nulls exactly). */
export function agrees(ev: PlanEvaluator, samples: PlanSamples | null | undefined): boolean {
  if (!samples || !Array.isArray(samples.rows) || samples.rows.length === 0) return false;
  const got = ev.predict(samples.rows);
  if (!got || got.outputs.join('\u0000') !== samples.outputs.join('\u0000') || got.predictions.length !== samples.predictions.length) return false;
  return got.predictions.every((row, i) => {
    const want = samples.predictions[i];
    const keys = Object.keys(want);
    if (keys.length !== Object.keys(row).length) return false;
    return keys.every((k) => {
      const a = row[k];
      const b = want[k];
      if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= PLAN_TOLERANCE;
      return a === b;
    });
  });
}
