"""Design quality: D-, A-, G- and I-efficiency, VIFs and the prediction-variance profile.

With N runs, p terms and information XᵀX:
  D = det(XᵀX / N)^(1/p)          (R AlgDesign's D; JMP's D-efficiency / 100 on coded factors)
  A = p / trace(N (XᵀX)⁻¹)
  G = p / (N · max d(x)),  d(x) = f(x)ᵀ(XᵀX)⁻¹f(x), the maximum taken over the candidate points
  I = the average of d(x) over the region (σ² units), estimated on uniform points of the region (Monte Carlo)
I-efficiency is relative: the lower I of a reference design over this design's I.

D and A above are absolute: 100 % only for an orthogonal design on the coded [-1, 1] cube. On a mixture simplex or a
constrained region no design reaches that ({3,2} lattice, the textbook D-optimal design for a Scheffé quadratic:
D 4.2 %), so the page leads with D and A relative to the best design found for the same runs, model and region
(`d_relative`, `a_relative`) and labels the absolute ones as such.
"""

from __future__ import annotations

import numpy as np

from .model import Model


def information(F: np.ndarray) -> np.ndarray:
    return F.T @ F


def safe_inverse(M: np.ndarray) -> np.ndarray | None:
    if not np.all(np.isfinite(M)):
        return None
    s = np.linalg.svd(M, compute_uv=False)
    if s.size == 0 or s[-1] <= 1e-10 * max(1.0, s[0]):
        return None
    return np.linalg.inv(M)


def moment_matrix(model: Model, region: np.ndarray) -> np.ndarray:
    F = model.matrix(region)
    return F.T @ F / F.shape[0]


def vifs(model: Model, F: np.ndarray) -> dict[str, float | None]:
    """Centred VIFs when the model has an intercept; uncentred ones for no-intercept (Scheffé) models."""
    names = model.names
    has_intercept = () in model.terms
    idx = [j for j, t in enumerate(model.terms) if t != ()]
    X = F[:, idx]
    if has_intercept:
        X = X - X.mean(axis=0)
    M = X.T @ X
    inv = safe_inverse(M)
    if inv is None:
        return {names[j]: None for j in idx}
    return {names[j]: float(inv[a, a] * M[a, a]) for a, j in enumerate(idx)}


def evaluate(model: Model, X: np.ndarray, candidates: np.ndarray, region: np.ndarray) -> dict:
    """Every criterion of one design. Singular designs get None efficiencies and say so."""
    F = model.matrix(X)
    n, p = F.shape
    M = information(F)
    out: dict = {"runs": int(n), "terms": int(p), "det_xtx": float(np.linalg.det(M)), "singular": False}
    inv = safe_inverse(M)
    if inv is None or n < p:
        out.update(singular=True, d_efficiency=0.0, a_efficiency=0.0, g_efficiency=0.0, i_value=None, vif={}, variance_profile=None, max_variance=None)
        return out
    sign, logdet = np.linalg.slogdet(M / n)
    out["d_efficiency"] = float(np.exp(logdet / p)) if sign > 0 else 0.0
    out["a_efficiency"] = float(p / (n * np.trace(inv)))
    Fc = model.matrix(candidates) if candidates.shape[0] else F
    d_cand = np.einsum("ij,jk,ik->i", Fc, inv, Fc)
    out["max_variance"] = float(d_cand.max())
    out["g_efficiency"] = float(min(1.0, p / (n * d_cand.max())))
    Fr = model.matrix(region)
    d_reg = np.einsum("ij,jk,ik->i", Fr, inv, Fr)
    out["i_value"] = float(d_reg.mean())
    fractions = np.linspace(0, 1, 51)
    out["variance_profile"] = {
        "fraction": fractions.tolist(),
        "scaled_variance": np.quantile(d_reg * n, fractions).tolist(),
        "points": int(region.shape[0]),
    }
    out["vif"] = vifs(model, F)
    return out


def i_efficiency(i_value: float | None, reference: float | None) -> float | None:
    if not i_value or not reference:
        return None
    return float(min(1.0, reference / i_value))


def relative(value: float | None, best: float | None, higher_is_better: bool = True) -> float | None:
    """This design's criterion as a share of the best one found (1 = as good as any design found)."""
    if value is None or best is None or value <= 0 or best <= 0:
        return None
    return float(min(1.0, value / best if higher_is_better else best / value))


def relate(designs: list[dict]) -> None:
    """Sets d_relative, a_relative and i_efficiency on each scored design against the best of them."""
    ok = [s for s in designs if s and not s.get("singular")]
    best_d = max((s["d_efficiency"] for s in ok if s.get("d_efficiency")), default=None)
    best_a = max((s["a_efficiency"] for s in ok if s.get("a_efficiency")), default=None)
    best_i = min((s["i_value"] for s in ok if s.get("i_value")), default=None)
    for s in designs:
        if not s:
            continue
        s["d_relative"] = relative(s.get("d_efficiency"), best_d)
        s["a_relative"] = relative(s.get("a_efficiency"), best_a)
        s["i_efficiency"] = i_efficiency(s.get("i_value"), best_i)
        s["i_reference"] = best_i
