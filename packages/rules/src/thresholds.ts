/** OK/NG threshold rules on held-out scores (NG is positive; a score at or above the threshold flags NG). */

/** Miss rate: NG passed as OK; over-detection rate: OK flagged as NG. */
export function rates(labels: string[], scores: number[], threshold: number) {
  let ng = 0, missed = 0, ok = 0, flagged = 0;
  labels.forEach((l, i) => {
    if (l === 'NG') {
      ng++;
      if (scores[i] < threshold) missed++;
    } else if (l === 'OK') {
      ok++;
      if (scores[i] >= threshold) flagged++;
    }
  });
  return { miss_rate: ng ? missed / ng : null, over_detection_rate: ok ? flagged / ok : null, ng, ok };
}

/**
 * The test figures of an OK/NG model at a threshold, as the engine's metrics.binary computes them at training (NG
 * positive; precision, recall and F1 only when both classes are present, 0 when undefined). A threshold saved later
 * changes every figure but ROC AUC; the pages show these so that metrics, matrix and gallery agree with it.
 */
export function figuresAt(labels: string[], scores: number[], threshold: number) {
  let tp = 0, fp = 0, fn = 0, tn = 0;
  labels.forEach((l, i) => {
    const flagged = scores[i] >= threshold;
    if (l === 'NG') {
      if (flagged) tp++;
      else fn++;
    } else if (flagged) fp++;
    else tn++;
  });
  const n = labels.length;
  const both = tp + fn > 0 && fp + tn > 0;
  const { miss_rate, over_detection_rate } = rates(labels, scores, threshold);
  return {
    threshold,
    n,
    accuracy: n ? (tp + tn) / n : null,
    precision: both ? (tp + fp ? tp / (tp + fp) : 0) : null,
    recall: both ? tp / (tp + fn) : null,
    f1: both ? (2 * tp + fp + fn ? (2 * tp) / (2 * tp + fp + fn) : 0) : null,
    miss_rate,
    over_detection_rate,
    confusion_matrix: { labels: ['OK', 'NG'], matrix: [[tn, fp], [fn, tp]] },
  };
}

/** The highest threshold whose miss rate is at most `target` (so the fewest OK images are flagged). */
export function thresholdForMissRate(labels: string[], scores: number[], target: number): number {
  const ng = scores.filter((_, i) => labels[i] === 'NG').sort((a, b) => a - b);
  const allowed = Math.floor(target * ng.length + 1e-9);
  return ng[Math.min(allowed, ng.length - 1)];
}

/** Linear-interpolated percentile (as numpy's default). */
export function percentile(values: number[], p: number): number {
  const v = [...values].sort((a, b) => a - b);
  const pos = ((v.length - 1) * p) / 100;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}
