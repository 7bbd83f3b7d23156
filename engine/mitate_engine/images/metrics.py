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
    """The threshold maximising F1 on held-out scores (ties: the lowest over-detection)."""
    cands = sorted(set(scores))
    best, best_key = cands[0], (-1.0, 0.0)
    y = np.array([l == "NG" for l in labels])
    s = np.asarray(scores)
    for t in cands:
        p = s >= t
        tp = int((p & y).sum())
        f1 = 2 * tp / (p.sum() + y.sum()) if (p.sum() + y.sum()) else 0.0
        key = (f1, -float((p & ~y).sum()))
        if key > best_key:
            best, best_key = t, key
    return float(best)


def percentile_threshold(ok_scores: list[float], percentile: float) -> float:
    return float(np.percentile(np.asarray(ok_scores, dtype=float), percentile))


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
