"""Metrics of OK/NG (NG is the positive class) and multi-class results, and thresholds from held-out scores."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import confusion_matrix, f1_score, precision_score, recall_score, roc_auc_score


def binary(labels: list[str], scores: list[float], threshold: float) -> dict:
    y = np.array([1 if l == "NG" else 0 for l in labels])
    s = np.asarray(scores, dtype=float)
    p = (s >= threshold).astype(int)
    out = {"threshold": float(threshold), "n": int(len(y)), "accuracy": float((p == y).mean()) if len(y) else None}
    both = len(set(y.tolist())) == 2
    out["precision"] = float(precision_score(y, p, zero_division=0)) if both else None
    out["recall"] = float(recall_score(y, p, zero_division=0)) if both else None
    out["f1"] = float(f1_score(y, p, zero_division=0)) if both else None
    out["roc_auc"] = float(roc_auc_score(y, s)) if both else None
    out.update(rates(labels, scores, threshold))
    out["confusion_matrix"] = {"labels": ["OK", "NG"], "matrix": confusion_matrix(y, p, labels=[0, 1]).tolist()}
    return out


def rates(labels: list[str], scores: list[float], threshold: float) -> dict:
    """Miss rate: NG passed as OK; over-detection rate: OK flagged as NG."""
    ok = [s for l, s in zip(labels, scores) if l == "OK"]
    ng = [s for l, s in zip(labels, scores) if l == "NG"]
    return {
        "miss_rate": (sum(s < threshold for s in ng) / len(ng)) if ng else None,
        "over_detection_rate": (sum(s >= threshold for s in ok) / len(ok)) if ok else None,
    }


def best_f1_threshold(labels: list[str], scores: list[float]) -> float:
    """The threshold maximising F1 on held-out scores, in the middle of its plateau (see default_threshold)."""
    return best_f1_plateau(labels, scores)[0]


def best_f1_plateau(labels: list[str], scores: list[float]) -> tuple[float, float, float]:
    """(threshold, low, high): every threshold in (low, high] gives the best F1 on these scores (NG at or above it);
    the threshold is the middle of that interval, so it keeps a margin on both sides instead of sitting on the
    lowest NG score of the tie (which passes as OK any new NG image scoring a little lower). Of several separate
    best-F1 intervals, the widest. With perfectly separated classes this is midway between the highest OK and the
    lowest NG score."""
    y = np.array([l == "NG" for l in labels])
    s = np.asarray(scores, dtype=float)
    cands = np.unique(s)
    f1s = []
    for t in cands:
        p = s >= t
        tp = int((p & y).sum())
        f1s.append(2 * tp / (p.sum() + y.sum()) if (p.sum() + y.sum()) else 0.0)
    f1s = np.array(f1s)
    best = f1s.max()
    runs: list[tuple[float, float]] = []  # (low, high) of each run of consecutive best candidates
    i = 0
    while i < len(cands):
        if np.isclose(f1s[i], best, rtol=0, atol=1e-12):
            j = i
            while j + 1 < len(cands) and np.isclose(f1s[j + 1], best, rtol=0, atol=1e-12):
                j += 1
            # thresholds just above the score below cands[i] up to cands[j] flag the same images as some candidate
            low = float(cands[i - 1]) if i > 0 else float(cands[i])
            runs.append((low, float(cands[j])))
            i = j + 1
        else:
            i += 1
    low, high = max(runs, key=lambda r: r[1] - r[0])
    return (low + high) / 2, low, high


def percentile_threshold(ok_scores: list[float], percentile: float) -> float:
    return float(np.percentile(np.asarray(ok_scores, dtype=float), percentile))


def _shown(a: float, b: float) -> tuple[float, float]:
    """Two scores for the rule's words: 6 significant digits, more when needed to tell them apart (scores of a
    barely trained classifier may differ in the 7th)."""
    for digits in range(6, 17):
        ra, rb = float(f"{float(a):.{digits}g}"), float(f"{float(b):.{digits}g}")
        if ra != rb or a == b:
            return ra, rb
    return float(a), float(b)


def default_threshold(labels: list[str], scores: list[float], ok_percentile: float) -> tuple[float | None, str, dict]:
    """The threshold training chooses on held-out (validation) scores, with the rule's code and parameters (messages
    image_threshold_rule_<code>): the one implementation of the default rule; the server shows the code it stores.

    - OK and NG separate (every NG above every OK): midway between the highest OK and the lowest NG score;
    - they overlap: best F1, in the middle of the tied plateau (best_f1_plateau);
    - OK images only: the `ok_percentile` percentile of their scores (images the model was not fitted on);
    - NG images only: just under the lowest NG score; nothing held out: None (the caller's default).
    """
    ok = [sc for sc, l in zip(scores, labels) if l == "OK"]
    ng = [sc for sc, l in zip(scores, labels) if l == "NG"]
    if ok and ng:
        if max(ok) < min(ng):
            a, b = _shown(max(ok), min(ng))
            return (max(ok) + min(ng)) / 2, "midway_separated", {"highest_ok": a, "lowest_ng": b}
        t, low, high = best_f1_plateau(labels, scores)
        if low == high:  # best when every image is flagged: no score below to keep a margin from
            return t, "best_f1_lowest_score", {"score": _shown(t, t)[0]}
        a, b = _shown(low, high)
        return t, "best_f1_plateau", {"low": a, "high": b}
    if ok:
        return percentile_threshold(ok, ok_percentile), "ok_percentile", {"percentile": float(ok_percentile)}
    if ng:
        return float(np.nextafter(min(ng), -np.inf)), "lowest_ng", {"lowest_ng": _shown(min(ng), min(ng))[0]}
    return None, "default", {}


def multiclass(classes: list[str], labels: list[str], probs: np.ndarray) -> dict:
    idx = {c: i for i, c in enumerate(classes)}
    y = np.array([idx[l] for l in labels])
    p = probs.argmax(axis=1)
    out = {
        "n": int(len(y)),
        "accuracy": float((p == y).mean()) if len(y) else None,
        "precision": float(precision_score(y, p, average="macro", zero_division=0)),
        "recall": float(recall_score(y, p, average="macro", zero_division=0)),
        "f1": float(f1_score(y, p, average="macro", zero_division=0)),
    }
    try:
        present = sorted(set(y.tolist()))
        if len(present) == len(classes):
            out["roc_auc"] = float(
                roc_auc_score(y, probs, multi_class="ovr", labels=list(range(len(classes)))) if len(classes) > 2 else roc_auc_score(y, probs[:, 1])
            )
        else:
            out["roc_auc"] = None
    except ValueError:
        out["roc_auc"] = None
    out["confusion_matrix"] = {"labels": classes, "matrix": confusion_matrix(y, p, labels=list(range(len(classes)))).tolist()}
    return out
