"""Bayesian optimisation: the next batch from runs with measured results.

The surrogate is a Gaussian process on the coded variables (Matérn 5/2 with one length scale per column plus
noise), or a trained Mitate model as the mean with a GP on its residuals giving the uncertainty. Expected
improvement picks each proposal from feasible, not excluded candidate points; the batch uses the kriging
believer (each pick is added at its predicted mean before the next one is chosen).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from scipy.stats import norm
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

from ..task import EngineError

MIN_RUNS = 3


def expected_improvement(mu: np.ndarray, sd: np.ndarray, best: float, xi: float = 0.01) -> np.ndarray:
    """EI for maximisation (minimise by negating y)."""
    sd = np.maximum(sd, 1e-12)
    z = (mu - best - xi) / sd
    return (mu - best - xi) * norm.cdf(z) + sd * norm.pdf(z)


def _gp(Z: np.ndarray, y: np.ndarray, seed: int) -> GaussianProcessRegressor:
    kernel = ConstantKernel(1.0, (1e-3, 1e3)) * Matern(length_scale=np.ones(Z.shape[1]), length_scale_bounds=(1e-2, 1e2), nu=2.5) + WhiteKernel(
        1e-2, (1e-8, 1e1)
    )
    gp = GaussianProcessRegressor(kernel, normalize_y=True, n_restarts_optimizer=3, random_state=seed)
    with warnings.catch_warnings():  # a length scale at its bound is an answer (the response is flat or rough), not a fault
        warnings.simplefilter("ignore", ConvergenceWarning)
        return gp.fit(Z, y)


def propose_batch(
    coded: Callable[[np.ndarray], np.ndarray],
    X_runs: np.ndarray,
    y: np.ndarray,
    pool: np.ndarray,
    batch: int,
    maximize: bool,
    seed: int,
    prior_mean: Callable[[np.ndarray], np.ndarray] | None = None,
) -> dict:
    """Indices into the pool of the batch, with the predicted mean, standard deviation and EI of each."""
    ok = np.isfinite(y)
    X_runs, y = X_runs[ok], y[ok]
    if X_runs.shape[0] < MIN_RUNS:
        raise EngineError("bo_too_few_runs", min=MIN_RUNS, count=int(X_runs.shape[0]))
    if np.ptp(y) == 0:
        raise EngineError("bo_constant")
    sign = 1.0 if maximize else -1.0
    Z, Zp = coded(X_runs), coded(pool)
    base_runs = prior_mean(X_runs) if prior_mean else np.zeros(len(y))
    base_pool = prior_mean(pool) if prior_mean else np.zeros(pool.shape[0])
    target = sign * (y - base_runs)
    gp = _gp(Z, target, seed)
    best = float(np.max(sign * y))
    fixed = GaussianProcessRegressor(gp.kernel_, normalize_y=True, optimizer=None)
    Zb, tb = Z.copy(), target.copy()
    picks, means, sds, eis = [], [], [], []
    available = np.ones(pool.shape[0], dtype=bool)
    model = gp
    for _ in range(batch):
        mu, sd = model.predict(Zp, return_std=True)
        mu_total = mu + sign * base_pool
        ei = expected_improvement(mu_total, sd, best)
        ei[~available] = -np.inf
        j = int(np.argmax(ei))
        if not np.isfinite(ei[j]):
            break
        picks.append(j), means.append(float(sign * mu_total[j])), sds.append(float(sd[j])), eis.append(float(ei[j]))
        available[j] = False
        # near-duplicates of a pick are not proposed twice in one batch
        available &= np.linalg.norm(Zp - Zp[j], axis=1) > 1e-6
        Zb, tb = np.vstack([Zb, Zp[j : j + 1]]), np.append(tb, mu[j])  # kriging believer
        model = fixed.fit(Zb, tb)
    return {
        "indices": picks,
        "mean": means,
        "sd": sds,
        "ei": eis,
        "best_observed": float(sign * best),
        "kernel": str(gp.kernel_),
        "surrogate": "gp_residual" if prior_mean else "gp",
    }
