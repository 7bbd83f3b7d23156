"""Descriptives, assumption checks and chart data shared by every test."""

from __future__ import annotations

import math
import os

import numpy as np
from scipy import stats

from .data import Sample

SHAPIRO_MAX = 5000  # scipy: p-values of Shapiro-Wilk are not accurate above this size
BOX_POINTS = 300  # points of the strip plot per group
BOX_OUTLIERS = 200
SEED = 20240601


PARALLEL_MIN = 1_000_000  # values per group from which groups are described in parallel threads


def each(fn, items: list) -> list:
    """fn over the items; for big groups in threads (NumPy's sorts and reductions release the GIL)."""
    if len(items) < 2 or sum(getattr(getattr(i, "values", None), "size", 0) for i in items) < PARALLEL_MIN:
        return [fn(i) for i in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(len(items), os.cpu_count() or 2)) as pool:
        return list(pool.map(fn, items))


def rng() -> np.random.Generator:
    return np.random.default_rng(SEED)


def moments(v: np.ndarray) -> tuple[float, float]:
    """Mean and sample variance (ddof=1), as scipy computes them."""
    n = v.size
    mean = float(np.mean(v))
    var = float(np.var(v, ddof=1)) if n > 1 else math.nan
    return mean, var


def describe(s: Sample, alpha: float, mean: float | None = None, var: float | None = None) -> dict:
    """Descriptives of one group with the (1 - alpha) confidence interval of its mean."""
    v = s.values
    n = int(v.size)
    if mean is None or var is None:
        mean, var = moments(v)
    sd = math.sqrt(var) if n > 1 else None
    se = sd / math.sqrt(n) if sd is not None else None
    q1, median, q3 = (float(x) for x in np.percentile(v, [25, 50, 75])) if n else (None, None, None)
    half = float(stats.t.ppf(1 - alpha / 2, n - 1)) * se if se is not None else None
    return {
        "label": s.label,
        "n": n,
        "missing": s.missing,
        "mean": mean,
        "sd": sd,
        "variance": var if n > 1 else None,
        "se": se,
        "median": median,
        "q1": q1,
        "q3": q3,
        "min": float(v.min()) if n else None,
        "max": float(v.max()) if n else None,
        "ci_low": mean - half if half is not None else None,
        "ci_high": mean + half if half is not None else None,
    }


def box(s: Sample, d: dict) -> dict:
    """Box (Tukey whiskers at 1.5 IQR) plus a strip of sampled points and the outliers, for one group."""
    v = s.values
    q1, q3 = d["q1"], d["q3"]
    iqr = q3 - q1
    lo_fence, hi_fence = q1 - 1.5 * iqr, q3 + 1.5 * iqr
    inside = (v >= lo_fence) & (v <= hi_fence)
    low = float(v[inside].min()) if inside.any() else q1
    high = float(v[inside].max()) if inside.any() else q3
    out = v[~inside]
    if out.size > BOX_OUTLIERS:
        out = np.sort(out)[np.linspace(0, out.size - 1, BOX_OUTLIERS).round().astype(int)]
    pts = v if v.size <= BOX_POINTS else v[rng().integers(0, v.size, BOX_POINTS)]
    return {
        "label": s.label,
        "q1": q1,
        "median": d["median"],
        "q3": q3,
        "low": low,
        "high": high,
        "mean": d["mean"],
        "outliers": out.tolist(),
        "outlier_count": int(v.size - np.count_nonzero(inside)),
        "points": pts.tolist(),
    }


def normality(s: Sample, target: str) -> dict | None:
    """Shapiro-Wilk on the group (a seeded random subsample of 5000 when larger)."""
    v = s.values
    if v.size < 3:
        return None
    sub = v.size > SHAPIRO_MAX
    if sub:
        v = v[rng().choice(v.size, SHAPIRO_MAX, replace=False)]
    if np.ptp(v) == 0:
        return None
    r = stats.shapiro(v)
    return {
        "check": "normality",
        "method": "shapiro_wilk",
        "target": target,
        "statistic": float(r.statistic),
        "p_value": float(r.pvalue),
        "n_tested": int(v.size),
        "subsampled": sub,
    }


def levene(groups: list[np.ndarray], medians: list[float] | None = None) -> tuple[float, float]:
    """Levene's test centred on the median (Brown-Forsythe), as scipy.stats.levene(center='median')."""
    k = len(groups)
    ns = np.array([g.size for g in groups], dtype=float)
    big_n = ns.sum()
    if medians is None:
        medians = [float(np.median(g)) for g in groups]
    zs = [np.abs(g - m) for g, m in zip(groups, medians)]
    zbar_i = np.array([z.mean() for z in zs])
    zbar = float((ns * zbar_i).sum() / big_n)
    num = (big_n - k) * float((ns * (zbar_i - zbar) ** 2).sum())
    den = (k - 1) * float(sum(((z - zb) ** 2).sum() for z, zb in zip(zs, zbar_i)))
    w = num / den if den > 0 else math.inf
    p = float(stats.f.sf(w, k - 1, big_n - k))
    return float(w), p


def reference(dist: str, params: dict, observed: float | None, alternative: str, alpha: float, two_tailed_f: bool = False) -> dict:
    """The reference distribution's curve, the observed statistic and the critical region(s) at alpha."""
    if dist == "t":
        rv = stats.t(params["df"])
    elif dist == "normal":
        rv = stats.norm()
    elif dist == "f":
        rv = stats.f(params["df1"], params["df2"])
    elif dist == "chi2":
        rv = stats.chi2(params["df"])
    else:  # pragma: no cover
        raise ValueError(dist)
    low = high = None
    if dist in ("t", "normal") or two_tailed_f:
        if alternative == "two-sided":
            low, high = float(rv.ppf(alpha / 2)), float(rv.ppf(1 - alpha / 2))
        elif alternative == "less":
            low = float(rv.ppf(alpha))
        else:
            high = float(rv.ppf(1 - alpha))
    else:  # F of ANOVA and chi-square: right tail only
        high = float(rv.ppf(1 - alpha))
    a, b = float(rv.ppf(0.0005)), float(rv.ppf(0.9995))
    if dist in ("f", "chi2"):
        a = 0.0
    width = b - a
    off_chart = False
    if observed is not None and math.isfinite(observed):
        if observed < a:
            if a - observed <= width:
                a = observed - 0.05 * width
            else:
                off_chart = True
        elif observed > b:
            if observed - b <= width:
                b = observed + 0.05 * width
            else:
                off_chart = True
    x = np.linspace(a, b, 241)
    y = rv.pdf(x)
    y[~np.isfinite(y)] = 0.0
    if dist == "f" and params["df1"] <= 2:  # the density is infinite at 0; keep the axis readable
        y = np.minimum(y, float(np.nanmax(y[5:])) * 1.2 if y.size > 5 else y)
    return {
        "dist": dist,
        "params": params,
        "x": x.tolist(),
        "y": y.tolist(),
        "observed": observed,
        "observed_off_chart": off_chart,
        "critical_low": low,
        "critical_high": high,
        "alternative": alternative if (dist in ("t", "normal") or two_tailed_f) else "greater",
    }


def magnitude(kind: str, value: float | None) -> str | None:
    """Conventional labels (Cohen 1988): negligible, small, medium, large."""
    if value is None or not math.isfinite(value):
        return None
    a = abs(value)
    cuts = {
        "cohens_d": (0.2, 0.5, 0.8),
        "r": (0.1, 0.3, 0.5),
        "eta_squared": (0.01, 0.06, 0.14),
        "cramers_v": (0.1, 0.3, 0.5),
    }.get(kind)
    if cuts is None:
        return None
    if a < cuts[0]:
        return "negligible"
    if a < cuts[1]:
        return "small"
    if a < cuts[2]:
        return "medium"
    return "large"
