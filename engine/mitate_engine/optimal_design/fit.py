"""Least-squares fit of the design model to measured results (Scheffé models included).

R² is taken about the mean even for no-intercept mixture models (JMP's and Cornell's mixture R²), because the
Scheffé linear terms carry the intercept.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .model import Model


def fit(model: Model, X: np.ndarray, y: np.ndarray) -> dict | None:
    F = model.matrix(X)
    n, p = F.shape
    if n <= p or np.linalg.matrix_rank(F) < p:
        return None
    beta, *_ = np.linalg.lstsq(F, y, rcond=None)
    resid = y - F @ beta
    df = n - p
    sse = float(resid @ resid)
    mse = sse / df
    inv = np.linalg.inv(F.T @ F)
    se = np.sqrt(np.diag(inv) * mse)
    t = beta / se
    pv = 2 * stats.t.sf(np.abs(t), df)
    sst = float(((y - y.mean()) ** 2).sum())
    r2 = 1 - sse / sst if sst > 0 else None
    # p - 1 model degrees of freedom about the mean, with or without an explicit intercept
    r2_adj = 1 - (sse / df) / (sst / (n - 1)) if sst > 0 else None
    return {
        "terms": [
            {"term": name, "estimate": float(b), "std_error": float(s), "t": float(tt), "p_value": float(pp)}
            for name, b, s, tt, pp in zip(model.names, beta, se, t, pv)
        ],
        "r2": r2,
        "r2_adj": r2_adj,
        "rmse": float(np.sqrt(mse)),
        "error_df": int(df),
        "error_ss": sse,
        "mean_response": float(y.mean()),
        "runs": int(n),
    }
