"""Input drift of a hosted model: the inputs of recent answered requests against the training data, per feature.

Per feature:
- psi: population stability index, sum((c - r) * ln(c / r)) over bins. Numeric features use the training data's
  deciles as bin edges (open at both ends, so served values outside the training range fall in the outer bins);
  categorical features use the categories (an unseen category is a bin of its own). Shares are floored at
  PSI_FLOOR so an empty bin does not make the index infinite. 0.1-0.2 is commonly read as a moderate shift,
  above 0.2 as a large one.
- test: two-sample Kolmogorov-Smirnov for numeric features, chi-square on the 2 x k table of category counts for
  categorical ones (scipy), with the statistic and its p-value.
- outside: the share of served (non-missing) values outside the training range [min, max]; for a categorical
  feature, the share of categories the training data never had.
- missing: the share of served rows where the feature is absent or empty.

For image models (score_drift): the served scores against the validation OK images' scores, with the same PSI and
KS figures.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

BINS = 10
PSI_FLOOR = 1e-4


def _psi(ref_share: np.ndarray, cur_share: np.ndarray) -> float:
    r = np.maximum(ref_share, PSI_FLOOR)
    c = np.maximum(cur_share, PSI_FLOOR)
    return float(np.sum((c - r) * np.log(c / r)))


def numeric_edges(ref: np.ndarray, bins: int = BINS) -> np.ndarray:
    """Inner bin edges: the training data's quantiles, without repeats (a feature with few values has fewer bins)."""
    qs = np.quantile(ref, np.linspace(0, 1, bins + 1)[1:-1]) if len(ref) else np.array([])
    return np.unique(qs)


def numeric_shares(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Shares of values per bin (-inf, e1], (e1, e2], ..., (ek, inf)."""
    idx = np.searchsorted(edges, values, side="left")
    counts = np.bincount(idx, minlength=len(edges) + 1).astype(float)
    return counts / max(1, len(values))


def psi_numeric(ref: np.ndarray, cur: np.ndarray, bins: int = BINS) -> float:
    edges = numeric_edges(ref, bins)
    return _psi(numeric_shares(ref, edges), numeric_shares(cur, edges))


def category_counts(ref: pd.Series, cur: pd.Series) -> tuple[list[str], np.ndarray, np.ndarray]:
    r = ref.astype(str).value_counts()
    c = cur.astype(str).value_counts()
    cats = sorted(set(r.index) | set(c.index))
    return cats, r.reindex(cats, fill_value=0).to_numpy(float), c.reindex(cats, fill_value=0).to_numpy(float)


def psi_categorical(ref: pd.Series, cur: pd.Series) -> float:
    _, r, c = category_counts(ref, cur)
    return _psi(r / max(1.0, r.sum()), c / max(1.0, c.sum()))


def ks_test(ref: np.ndarray, cur: np.ndarray) -> tuple[float, float]:
    res = stats.ks_2samp(ref, cur)
    return float(res.statistic), float(res.pvalue)


def chi2_test(ref: pd.Series, cur: pd.Series) -> tuple[float, float]:
    _, r, c = category_counts(ref, cur)
    if len(r) < 2:
        return 0.0, 1.0
    res = stats.chi2_contingency(np.vstack([r, c]))
    return float(res.statistic), float(res.pvalue)


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), 6)


def _present(s: pd.Series) -> pd.Series:
    return s[~(s.isna() | (s.astype(str).str.strip() == ""))]


def feature_drift(name: str, kind: str, ref: pd.Series, cur: pd.Series) -> dict:
    """The figures of one feature (see the module's text); kind is 'numeric' or 'categorical'."""
    rows = len(cur)
    present = _present(cur)
    missing = 1 - len(present) / rows if rows else 0.0
    ref_present = _present(ref)
    out: dict = {"feature": name, "kind": kind, "rows": rows, "missing": _finite(missing)}
    if kind == "numeric":
        r = pd.to_numeric(ref_present, errors="coerce").dropna().to_numpy(float)
        c = pd.to_numeric(present, errors="coerce").dropna().to_numpy(float)
        if len(r) == 0 or len(c) == 0:
            return {
                **out,
                "psi": None,
                "test": "ks",
                "statistic": None,
                "p_value": None,
                "outside": None,
                "train_min": None,
                "train_max": None,
                "mean": None,
                "train_mean": None,
            }
        lo, hi = float(r.min()), float(r.max())
        stat, p = ks_test(r, c)
        return {
            **out,
            "psi": _finite(psi_numeric(r, c)),
            "test": "ks",
            "statistic": _finite(stat),
            "p_value": _finite(p),
            "outside": _finite(float(np.mean((c < lo) | (c > hi)))),
            "train_min": _finite(lo),
            "train_max": _finite(hi),
            "mean": _finite(float(c.mean())),
            "train_mean": _finite(float(r.mean())),
        }
    if len(present) == 0 or len(ref_present) == 0:
        return {**out, "psi": None, "test": "chi2", "statistic": None, "p_value": None, "outside": None}
    stat, p = chi2_test(ref_present, present)
    seen = set(ref_present.astype(str))
    return {
        **out,
        "psi": _finite(psi_categorical(ref_present, present)),
        "test": "chi2",
        "statistic": _finite(stat),
        "p_value": _finite(p),
        "outside": _finite(float(np.mean(~present.astype(str).isin(seen)))),
    }


def compare(train: pd.DataFrame, served: pd.DataFrame, features: list[str], kinds: dict[str, str]) -> list[dict]:
    """Every feature's figures; a feature absent from the served rows counts as missing in all of them."""
    out = []
    for f in features:
        cur = served[f] if f in served.columns else pd.Series([None] * len(served), dtype=object)
        kind = kinds.get(f) or ("numeric" if pd.api.types.is_numeric_dtype(train[f]) else "categorical")
        out.append(feature_drift(f, "numeric" if kind == "numeric" else "categorical", train[f], cur))
    return out


def score_drift(served: np.ndarray, ok_scores: np.ndarray) -> dict:
    """Image models: served scores against the validation OK images' scores (PSI on the OK scores' deciles, KS)."""
    served = np.asarray(served, dtype=float)
    ok_scores = np.asarray(ok_scores, dtype=float)
    served = served[np.isfinite(served)]
    ok_scores = ok_scores[np.isfinite(ok_scores)]
    if len(served) == 0 or len(ok_scores) == 0:
        return {
            "feature": "score",
            "kind": "score",
            "rows": int(len(served)),
            "psi": None,
            "test": "ks",
            "statistic": None,
            "p_value": None,
            "outside": None,
            "missing": 0.0,
        }
    stat, p = ks_test(ok_scores, served)
    return {
        "feature": "score",
        "kind": "score",
        "rows": int(len(served)),
        "psi": _finite(psi_numeric(ok_scores, served)),
        "test": "ks",
        "statistic": _finite(stat),
        "p_value": _finite(p),
        "outside": _finite(float(np.mean(served > ok_scores.max()))),
        "missing": 0.0,
        "train_min": _finite(float(ok_scores.min())),
        "train_max": _finite(float(ok_scores.max())),
        "mean": _finite(float(served.mean())),
        "train_mean": _finite(float(ok_scores.mean())),
    }
