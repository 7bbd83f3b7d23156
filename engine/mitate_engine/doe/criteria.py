"""Design quality: D-, A-, G- and I-efficiency, VIFs and the prediction-variance profile.

With N runs, p terms and information XᵀX:
  D = det(XᵀX / N)^(1/p)          (R AlgDesign's D; JMP's D-efficiency / 100 on coded factors)
  A = p / trace(N (XᵀX)⁻¹)
  G = p / (N · max d(x)),  d(x) = f(x)ᵀ(XᵀX)⁻¹f(x), the maximum taken over the candidate points
  I = the average of d(x) over the region (σ² units), estimated on uniform points of the region (Monte Carlo)
I-efficiency is relative: the lower I of a reference design over this design's I.
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
