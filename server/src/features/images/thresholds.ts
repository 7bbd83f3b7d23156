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
