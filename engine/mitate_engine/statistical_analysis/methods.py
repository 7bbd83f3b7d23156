"""The tests. Each takes prepared samples and returns the result dict the server stores and the web app draws.

Figures follow SciPy (and R, which SciPy matches): t-tests, Welch's df, confidence intervals, Mann-Whitney U,
Wilcoxon signed-rank, one-way ANOVA with Tukey HSD, chi-square with Yates' correction for 2x2 tables,
Pearson and Spearman correlation, Shapiro-Wilk and the F-test of equal variances (R's var.test).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ..task import EngineError
from .data import Sample
from .describe import SHAPIRO_MAX, box, describe, each, levene, magnitude, moments, normality, reference, rng

ALTERNATIVES = ("two-sided", "less", "greater")


def _need(s: Sample, at_least: int = 2) -> None:
    if s.values.size < at_least:
        raise EngineError("too_few_values", group=s.label, count=int(s.values.size), min=at_least)


def _need_variance(s: Sample, var: float) -> None:
    if not var > 0:
        raise EngineError("zero_variance", group=s.label)


def _t_ci(est: float, se: float, df: float, alternative: str, alpha: float) -> tuple[float, float]:
    if alternative == "two-sided":
        h = float(stats.t.ppf(1 - alpha / 2, df)) * se
        return est - h, est + h
    h = float(stats.t.ppf(1 - alpha, df)) * se
    return (-math.inf, est + h) if alternative == "less" else (est - h, math.inf)


def _t_p(t: float, df: float, alternative: str) -> float:
    if alternative == "two-sided":
        return float(2 * stats.t.sf(abs(t), df))
    return float(stats.t.cdf(t, df)) if alternative == "less" else float(stats.t.sf(t, df))


def _base(test_type: str, method: str, alternative: str, alpha: float) -> dict:
    return {
        "test_type": test_type,
        "method": method,
        "alternative": alternative,
        "alpha": alpha,
        "confidence_level": 1 - alpha,
        "statistic": None,
        "df": None,
        "df2": None,
        "p_value": None,
        "reject": None,
        "estimate": None,
        "ci": None,
        "effect_size": None,
        "groups": [],
        "assumptions": [],
        "warnings": [],
        "charts": {},
    }


def _finish(r: dict, samples: list[Sample]) -> dict:
    r["reject"] = bool(r["p_value"] is not None and r["p_value"] < r["alpha"])
    missing = sum(s.missing for s in samples)
    r["n_missing"] = missing
    if missing:
        r["warnings"].append({"code": "missing_dropped", "params": {"count": missing}})
    not_normal = []
    for a in r["assumptions"]:
        if "passed" not in a:
            a["passed"] = bool(a["p_value"] is None or a["p_value"] >= r["alpha"])
        if a.get("subsampled"):
            r["warnings"].append({"code": "normality_subsampled", "params": {"target": a["target"], "n": a["n_tested"]}})
        if a["passed"]:
            continue
        if a["check"] == "normality":
            not_normal.append(a)
        else:
            several = a["check"] == "equal_variance" and r["test_type"] == "anova"
            r["warnings"].append(
                {"code": f"{a['check']}_failed{'_groups' if several else ''}", "params": {"target": a.get("target") or "", "p": a.get("p_value")}}
            )
    if not_normal:  # one warning for every group that fails, with the largest p among them
        r["warnings"].insert(
            1 if missing else 0,
            {"code": "normality_failed", "params": {"targets": [a["target"] for a in not_normal], "p": max(a["p_value"] for a in not_normal)}},
        )
    return r


def _boxes(samples: list[Sample], descs: list[dict]) -> list[dict]:
    return each(lambda sd: box(*sd), list(zip(samples, descs)))


# ---- t-tests ------------------------------------------------------------------------------------


def _mean_t(s: Sample, mu: float, alternative: str, alpha: float, kind: str, **effect_extra) -> tuple[dict, float, float, float, int]:
    """The t-test of s's mean against mu (the paired test's on the differences): the result's fields from the
    statistic to the effect size, then the mean, variance, t and df."""
    _need(s)
    mean, var = moments(s.values)
    _need_variance(s, var)
    n = s.values.size
    se = math.sqrt(var / n)
    t = (mean - mu) / se
    df = n - 1
    lo, hi = _t_ci(mean, se, df, alternative, alpha)
    fields = {
        "statistic": {"symbol": "t", "value": t},
        "df": df,
        "p_value": _t_p(t, df, alternative),
        "hypothetical_mean": mu,
        "estimate": {"kind": kind, "value": mean},
        "ci": {"kind": kind, "level": 1 - alpha, "low": lo, "high": hi},
        "effect_size": _es("cohens_d", (mean - mu) / math.sqrt(var), **effect_extra),
    }
    return fields, mean, var, t, df


def one_sample_t(s: Sample, mu: float, alternative: str, alpha: float) -> dict:
    fields, mean, var, t, df = _mean_t(s, mu, alternative, alpha, "mean")
    r = _base("one_sample_t", "one_sample_t", alternative, alpha)
    d = describe(s, alpha, mean, var)
    r.update(fields, groups=[d])
    a = normality(s, s.label)
    if a:
        r["assumptions"].append(a)
    r["charts"] = {"box": _boxes([s], [d]), "reference": reference("t", {"df": df}, t, alternative, alpha), "reference_line": mu}
    return _finish(r, [s])


def _es(kind: str, value: float | None, **extra) -> dict:
    return {"kind": kind, "value": value, "magnitude": magnitude(kind if kind != "hedges_g" else "cohens_d", value), **extra}


def two_sample_t(a: Sample, b: Sample, equal_variance: str, alternative: str, alpha: float) -> dict:
    """Student (pooled) or Welch; 'auto' picks Student unless Levene's test rejects equal variances at alpha."""
    _need(a)
    _need(b)
    da, db = each(lambda s: describe(s, alpha), [a, b])
    ma, va, mb, vb = da["mean"], da["variance"], db["mean"], db["variance"]
    if not (va > 0 or vb > 0):
        _need_variance(a, va)
    na, nb = a.values.size, b.values.size
    lev_w, lev_p = levene([a.values, b.values], [da["median"], db["median"]])
    if equal_variance == "student":
        pooled = True
    elif equal_variance == "welch":
        pooled = False
    else:
        pooled = not (lev_p < alpha)
    diff = ma - mb
    if pooled:
        df = na + nb - 2
        sp2 = ((na - 1) * va + (nb - 1) * vb) / df
        se = math.sqrt(sp2 * (1 / na + 1 / nb))
    else:
        qa, qb = va / na, vb / nb
        se = math.sqrt(qa + qb)
        df = (qa + qb) ** 2 / (qa**2 / (na - 1) + qb**2 / (nb - 1))
    if not se > 0:
        _need_variance(a, 0.0)
    t = diff / se
    lo, hi = _t_ci(diff, se, df, alternative, alpha)
    sp = math.sqrt(((na - 1) * va + (nb - 1) * vb) / (na + nb - 2))
    d = diff / sp if sp > 0 else None
    g = d * (1 - 3 / (4 * (na + nb) - 9)) if d is not None else None
    r = _base("two_sample_t", "student" if pooled else "welch", alternative, alpha)
    r.update(
        statistic={"symbol": "t", "value": t},
        df=float(df),
        p_value=_t_p(t, df, alternative),
        estimate={"kind": "mean_difference", "value": diff},
        ci={"kind": "mean_difference", "level": 1 - alpha, "low": lo, "high": hi},
        effect_size=_es("cohens_d", d, hedges_g=g),
        groups=[da, db],
        equal_variance={"mode": equal_variance, "levene_statistic": lev_w, "levene_p": lev_p, "pooled": pooled},
    )
    r["assumptions"].extend(x for x in (normality(s, s.label) for s in (a, b)) if x)
    r["assumptions"].append(
        {
            "check": "equal_variance",
            "method": "levene_median",
            "target": "",
            "statistic": lev_w,
            "p_value": lev_p,
            # Welch does not assume equal variances, so a rejection is no failure there.
            "passed": bool(lev_p >= alpha or not pooled),
        }
    )
    r["charts"] = {"box": _boxes([a, b], [da, db]), "reference": reference("t", {"df": float(df)}, t, alternative, alpha)}
    return _finish(r, [a, b])


def paired_t(a: Sample, b: Sample, diff: Sample, mu: float, alternative: str, alpha: float) -> dict:
    """Paired t-test on the differences a - b (pairs with a missing member were dropped before)."""
    fields, md, vd, t, df = _mean_t(diff, mu, alternative, alpha, "mean_difference", variant="d_z")
    da, db, dd = describe(a, alpha), describe(b, alpha), describe(diff, alpha, md, vd)
    r = _base("paired_t", "paired_t", alternative, alpha)
    r.update(fields, groups=[da, db], differences=dd, pairs=diff.values.size)
    x = normality(diff, diff.label)
    if x:
        r["assumptions"].append(x)
    r["charts"] = {"box": _boxes([a, b], [da, db]), "reference": reference("t", {"df": df}, t, alternative, alpha)}
    return _finish(r, [a, b])


# ---- rank tests ---------------------------------------------------------------------------------


def _tie_term(values: np.ndarray) -> float:
    _, counts = np.unique(values, return_counts=True)
    counts = counts[counts > 1].astype(float)
    return float((counts**3 - counts).sum())


def mann_whitney(a: Sample, b: Sample, alternative: str, alpha: float) -> dict:
    _need(a, 1)
    _need(b, 1)
    if a.values.size + b.values.size < 3:
        _need(a, 2)
    res = stats.mannwhitneyu(a.values, b.values, alternative=alternative)
    n1, n2 = a.values.size, b.values.size
    n = n1 + n2
    u1 = float(res.statistic)
    tie = _tie_term(np.concatenate([a.values, b.values]))
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie / (n * (n - 1))))
    z = (u1 - n1 * n2 / 2) / sigma if sigma > 0 else 0.0
    da, db = describe(a, alpha), describe(b, alpha)
    r = _base("mann_whitney", "mann_whitney", alternative, alpha)
    r.update(
        statistic={"symbol": "U", "value": u1},
        z=z,
        p_value=float(res.pvalue),
        estimate={"kind": "median_difference", "value": da["median"] - db["median"]},
        effect_size=_es("r", z / math.sqrt(n), rank_biserial=2 * u1 / (n1 * n2) - 1),
        groups=[da, db],
    )
    r["charts"] = {"box": _boxes([a, b], [da, db]), "reference": reference("normal", {}, z, alternative, alpha)}
    return _finish(r, [a, b])


def wilcoxon(d: Sample, mu: float, alternative: str, alpha: float, groups: list[Sample] | None = None) -> dict:
    """Wilcoxon signed-rank on d - mu (paired differences, or one sample against a hypothetical median)."""
    x = d.values - mu
    nz = x[x != 0]
    if nz.size < 1:
        raise EngineError("zero_variance", group=d.label)
    _need(d, 2)
    res = stats.wilcoxon(x, alternative=alternative)
    n = nz.size
    ranks = stats.rankdata(np.abs(nz))
    t_plus = float(ranks[nz > 0].sum())
    mean = n * (n + 1) / 4
    var = n * (n + 1) * (2 * n + 1) / 24 - _tie_term(np.abs(nz)) / 48
    z = (t_plus - mean) / math.sqrt(var) if var > 0 else 0.0
    descs = [describe(s, alpha) for s in (groups or [d])]
    r = _base("wilcoxon", "wilcoxon_paired" if groups else "wilcoxon_one_sample", alternative, alpha)
    r.update(
        statistic={"symbol": "W", "value": float(res.statistic)},
        z=z,
        t_plus=t_plus,
        p_value=float(res.pvalue),
        hypothetical_mean=mu,
        estimate={"kind": "median" if not groups else "median_difference", "value": float(np.median(d.values))},
        effect_size=_es("r", z / math.sqrt(n)),
        groups=descs,
        zeros_dropped=int(x.size - n),
    )
    if groups:
        r["differences"] = describe(d, alpha)
    if x.size - n:
        r["warnings"].append({"code": "zeros_dropped", "params": {"count": int(x.size - n)}})
    r["charts"] = {"box": _boxes(groups or [d], descs), "reference": reference("normal", {}, z, alternative, alpha)}
    if not groups:
        r["charts"]["reference_line"] = mu
    return _finish(r, groups or [d])


# ---- more than two groups, tables, correlation, normality, variances ---------------------------


def anova(samples: list[Sample], alpha: float) -> dict:
    if len(samples) < 2:
        raise EngineError("too_few_groups", count=len(samples))
    for s in samples:
        _need(s)
    arrays = [s.values for s in samples]
    res = stats.f_oneway(*arrays)
    k = len(arrays)
    big_n = sum(v.size for v in arrays)
    grand = float(np.concatenate(arrays).mean())
    ssb = float(sum(v.size * (v.mean() - grand) ** 2 for v in arrays))
    ssw = float(sum(((v - v.mean()) ** 2).sum() for v in arrays))
    if not ssw > 0:
        raise EngineError("zero_variance", group="")
    descs = [describe(s, alpha) for s in samples]
    tk = stats.tukey_hsd(*arrays)
    ci = tk.confidence_interval(1 - alpha)
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            p = float(tk.pvalue[i, j])
            pairs.append(
                {
                    "a": samples[i].label,
                    "b": samples[j].label,
                    "difference": float(tk.statistic[i, j]),
                    "low": float(ci.low[i, j]),
                    "high": float(ci.high[i, j]),
                    "p_value": p,
                    "reject": bool(p < alpha),
                }
            )
    lev_w, lev_p = levene(arrays, [d["median"] for d in descs])
    r = _base("anova", "one_way_anova", "two-sided", alpha)
    r.update(
        statistic={"symbol": "F", "value": float(res.statistic)},
        df=k - 1,
        df2=big_n - k,
        p_value=float(res.pvalue),
        anova_table={"ss_between": ssb, "ss_within": ssw, "ms_between": ssb / (k - 1), "ms_within": ssw / (big_n - k)},
        effect_size=_es("eta_squared", ssb / (ssb + ssw)),
        groups=descs,
        post_hoc={"method": "tukey_hsd", "pairs": pairs},
    )
    for s in samples:
        x = normality(s, s.label)
        if x:
            r["assumptions"].append(x)
    r["assumptions"].append({"check": "equal_variance", "method": "levene_median", "target": "", "statistic": lev_w, "p_value": lev_p})
    r["charts"] = {"box": _boxes(samples, descs), "reference": reference("f", {"df1": k - 1, "df2": big_n - k}, float(res.statistic), "greater", alpha)}
    return _finish(r, samples)


def chi_square_codes(
    x: np.ndarray, y: np.ndarray, x_labels: list[str], y_labels: list[str], x_name: str, y_name: str, missing: int, alpha: float, max_levels: int = 50
) -> dict:
    """Chi-square test of independence from integer codes of two columns (rows, columns sorted by label)."""
    if x.size < 2:
        raise EngineError("too_few_values", group=f"{x_name} × {y_name}", count=int(x.size), min=2)
    for name, labels in ((x_name, x_labels), (y_name, y_labels)):
        if len(labels) > max_levels:
            raise EngineError("too_many_groups", count=len(labels), max=max_levels)
        if len(labels) < 2:
            raise EngineError("one_level", column=name)
    nx, ny = len(x_labels), len(y_labels)
    counts = np.bincount(x * ny + y, minlength=nx * ny).reshape(nx, ny)
    rx, ry = _label_order(x_labels), _label_order(y_labels)
    observed = counts[np.ix_(rx, ry)]
    return _chi_square_table(observed, [x_labels[i] for i in rx], [y_labels[j] for j in ry], x_name, y_name, missing, alpha)


def _label_order(labels: list[str]) -> list[int]:
    """Numbers in numeric order, then text in text order: the order a person expects in a table."""

    def key(i: int):
        try:
            return (0, float(labels[i]), "")
        except ValueError:
            return (1, 0.0, labels[i])

    return sorted(range(len(labels)), key=key)


def chi_square(x_labels: np.ndarray, y_labels: np.ndarray, x_name: str, y_name: str, missing: int, alpha: float, max_levels: int = 50) -> dict:
    """The same test from two arrays of labels."""
    xs, xi = np.unique(np.asarray(x_labels, dtype=str), return_inverse=True)
    ys, yi = np.unique(np.asarray(y_labels, dtype=str), return_inverse=True)
    return chi_square_codes(xi.astype(np.int64), yi.astype(np.int64), xs.tolist(), ys.tolist(), x_name, y_name, missing, alpha, max_levels)


def _chi_square_table(observed: np.ndarray, rows: list[str], cols: list[str], x_name: str, y_name: str, missing: int, alpha: float) -> dict:
    res = stats.chi2_contingency(observed, correction=True)
    expected = res.expected_freq
    small = int((expected < 5).sum())
    v = float(stats.contingency.association(observed, method="cramer"))
    r = _base("chi_square", "chi_square_yates" if observed.shape == (2, 2) else "chi_square", "two-sided", alpha)
    r.update(
        statistic={"symbol": "χ²", "value": float(res.statistic)},
        df=int(res.dof),
        p_value=float(res.pvalue),
        effect_size=_es("cramers_v", v),
        table={
            "rows": rows,
            "columns": cols,
            "row_variable": x_name,
            "column_variable": y_name,
            "observed": observed.tolist(),
            "expected": expected.tolist(),
        },
        n=int(observed.sum()),
    )
    r["assumptions"].append(
        {
            "check": "expected_counts",
            "method": "expected_at_least_5",
            "target": "",
            "statistic": small,
            "p_value": None,
            "passed": bool(small <= 0.2 * expected.size and float(expected.min()) >= 1),
            "cells": int(expected.size),
            "min_expected": float(expected.min()),
        }
    )
    r["charts"] = {"reference": reference("chi2", {"df": int(res.dof)}, float(res.statistic), "greater", alpha)}
    r = _finish(r, [])
    r["n_missing"] = missing
    if missing:
        r["warnings"].insert(0, {"code": "missing_dropped", "params": {"count": missing}})
    return r


def correlation(x: Sample, y: Sample, method: str, alternative: str, alpha: float) -> dict:
    """Pearson or Spearman on complete pairs (x, y have equal length)."""
    n = x.values.size
    if n < 3:
        raise EngineError("too_few_values", group=x.label, count=n, min=3)
    for s in (x, y):
        if np.ptp(s.values) == 0:
            raise EngineError("zero_variance", group=s.label)
    if method == "pearson":
        res = stats.pearsonr(x.values, y.values, alternative=alternative)
        rho = float(res.statistic)
        ci = res.confidence_interval(1 - alpha)
        lo, hi = float(ci.low), float(ci.high)
        p = float(res.pvalue)
    else:
        res = stats.spearmanr(x.values, y.values, alternative=alternative)
        rho = float(res.statistic)
        p = float(res.pvalue)
        # Fisher z with the Bonett-Wright standard error sqrt(1.06/(n-3)): an approximate interval.
        lo = hi = None
        if n > 3 and abs(rho) < 1:
            zc = float(stats.norm.ppf(1 - alpha / 2 if alternative == "two-sided" else 1 - alpha))
            z, se = math.atanh(rho), math.sqrt(1.06 / (n - 3))
            lo, hi = math.tanh(z - zc * se), math.tanh(z + zc * se)
            if alternative == "less":
                lo = -1.0
            elif alternative == "greater":
                hi = 1.0
    df = n - 2
    t = rho * math.sqrt(df / (1 - rho * rho)) if abs(rho) < 1 else math.copysign(math.inf, rho)
    dx, dy = describe(x, alpha), describe(y, alpha)
    r = _base(method, method, alternative, alpha)
    r.update(
        statistic={"symbol": "r" if method == "pearson" else "ρ", "value": rho},
        t=t,
        df=df,
        p_value=p,
        estimate={"kind": "correlation", "value": rho},
        ci={"kind": "correlation", "level": 1 - alpha, "low": lo, "high": hi, "approximate": method != "pearson"} if lo is not None else None,
        effect_size=_es("r", rho),
        groups=[dx, dy],
        pairs=n,
    )
    if method == "pearson":
        for s in (x, y):
            a = normality(s, s.label)
            if a:
                r["assumptions"].append(a)
    idx = np.arange(n) if n <= 2000 else rng().choice(n, 2000, replace=False)
    slope = intercept = None
    if method == "pearson":  # least-squares line from the moments already known
        slope = rho * dy["sd"] / dx["sd"]
        intercept = dy["mean"] - slope * dx["mean"]
    r["charts"] = {
        "scatter": {"x": x.values[idx].tolist(), "y": y.values[idx].tolist(), "slope": slope, "intercept": intercept, "shown": int(idx.size), "n": n},
        "reference": reference("t", {"df": df}, t if math.isfinite(t) else None, alternative, alpha),
    }
    return _finish(r, [x, y])


def shapiro(s: Sample, alpha: float) -> dict:
    _need(s, 3)
    v = s.values
    if np.ptp(v) == 0:
        raise EngineError("zero_variance", group=s.label)
    sub = v.size > SHAPIRO_MAX
    tested = v[rng().choice(v.size, SHAPIRO_MAX, replace=False)] if sub else v
    res = stats.shapiro(tested)
    d = describe(s, alpha)
    d["skewness"] = float(stats.skew(v, bias=False)) if v.size > 2 else None
    d["kurtosis"] = float(stats.kurtosis(v, bias=False)) if v.size > 3 else None
    r = _base("shapiro", "shapiro_wilk", "two-sided", alpha)
    r.update(statistic={"symbol": "W", "value": float(res.statistic)}, p_value=float(res.pvalue), groups=[d], n_tested=int(tested.size))
    if sub:
        r["warnings"].append({"code": "normality_subsampled", "params": {"target": s.label, "n": int(tested.size)}})
    q = tested if tested.size <= 1000 else np.sort(tested)[np.linspace(0, tested.size - 1, 1000).round().astype(int)]
    (osm, osr), (slope, intercept, _) = stats.probplot(q, dist="norm")
    r["charts"] = {"box": _boxes([s], [d]), "qq": {"theoretical": osm.tolist(), "sample": osr.tolist(), "slope": float(slope), "intercept": float(intercept)}}
    return _finish(r, [s])


def f_test(a: Sample, b: Sample, alternative: str, alpha: float) -> dict:
    """F-test of equal variances, var(a)/var(b), with R's var.test interval for the ratio."""
    _need(a)
    _need(b)
    ma, va = moments(a.values)
    mb, vb = moments(b.values)
    _need_variance(b, vb)
    _need_variance(a, va)
    d1, d2 = a.values.size - 1, b.values.size - 1
    f = va / vb
    cdf, sf = float(stats.f.cdf(f, d1, d2)), float(stats.f.sf(f, d1, d2))
    p = min(1.0, 2 * min(cdf, sf)) if alternative == "two-sided" else cdf if alternative == "less" else sf
    if alternative == "two-sided":
        lo, hi = f / float(stats.f.ppf(1 - alpha / 2, d1, d2)), f / float(stats.f.ppf(alpha / 2, d1, d2))
    elif alternative == "less":
        lo, hi = 0.0, f / float(stats.f.ppf(alpha, d1, d2))
    else:
        lo, hi = f / float(stats.f.ppf(1 - alpha, d1, d2)), math.inf
    da, db = describe(a, alpha, ma, va), describe(b, alpha, mb, vb)
    r = _base("f_test", "f_test", alternative, alpha)
    r.update(
        statistic={"symbol": "F", "value": f},
        df=d1,
        df2=d2,
        p_value=p,
        estimate={"kind": "variance_ratio", "value": f},
        ci={"kind": "variance_ratio", "level": 1 - alpha, "low": lo, "high": hi},
        groups=[da, db],
    )
    for s in (a, b):
        x = normality(s, s.label)
        if x:
            r["assumptions"].append(x)
    r["charts"] = {"box": _boxes([a, b], [da, db]), "reference": reference("f", {"df1": d1, "df2": d2}, f, alternative, alpha, two_tailed_f=True)}
    return _finish(r, [a, b])
