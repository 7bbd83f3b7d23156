"""The estimator of one model (preprocessing + algorithm) and its validation: build_pipeline, cv_evaluate, the
unsupervised auto-tune score."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from ..lang import say
from . import data as D
from .algorithms import Algorithm, BuildContext
from .project import Project
from .scale import FitHooks, NativeFrame, fit_pipeline, is_lightgbm

UNSUP_SCORE_ROWS = 3000


# ---- the estimator of one model ---------------------------------------------------------------------------


class Balanced:
    """Random over-sampling of minority classes inside fit, for classifiers without class_weight."""

    _estimator_type = "classifier"

    def __init__(self, estimator, seed: int = 0):
        self.estimator = estimator
        self.seed = seed

    def get_params(self, deep=True):
        return {"estimator": self.estimator, "seed": self.seed}

    def set_params(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)
        return self

    def fit(self, X, y):
        y = np.asarray(y)
        rng = np.random.default_rng(self.seed)
        values, counts = np.unique(y, return_counts=True)
        top = counts.max()
        idx = [np.flatnonzero(y == v) for v in values]
        idx = np.concatenate([np.concatenate([i, rng.choice(i, top - len(i), replace=True)]) if len(i) < top else i for i in idx])
        Xs = X.iloc[idx] if hasattr(X, "iloc") else X[idx]
        self.estimator.fit(Xs, y[idx])
        self.classes_ = self.estimator.classes_
        return self

    def predict(self, X):
        return self.estimator.predict(X)

    def predict_proba(self, X):
        return self.estimator.predict_proba(X)

    def __sklearn_tags__(self):
        from sklearn.base import BaseEstimator, ClassifierMixin

        class _T(ClassifierMixin, BaseEstimator):
            pass

        return _T().__sklearn_tags__()


def build_pipeline(proj: Project, algo: Algorithm, params: dict, n_rows: int):
    from sklearn.pipeline import Pipeline

    n_features = sum(len(proj.categories.get(c, [])) or 1 for c in proj.kinds)
    bctx = BuildContext(n_rows=n_rows, n_features=n_features, n_classes=len(proj.classes), balance=proj.balance, seed=proj.seed)
    if algo.adjust:
        params = algo.adjust(params, bctx)
    est = algo.build(params, bctx)
    if proj.classification and proj.balance and not algo.balance_native:
        est = Balanced(est, proj.seed)
    if native_categories(proj, est):
        pre = NativeFrame(dict(proj.kinds), {c: list(v) for c, v in proj.categories.items()})
    else:
        pre = D.make_preprocessor(proj.kinds, algo.scale or not proj.supervised, proj.variance_threshold)
    return Pipeline([("preprocess", pre), ("model", est)]), params


def native_categories(proj: Project, est) -> bool:
    """LightGBM on a large table takes category columns as they are (its own categorical splits), not one-hot."""
    return proj.supervised and proj.large and is_lightgbm(est)


def _cv(proj: Project, folds: int, y=None):
    from sklearn.model_selection import KFold, StratifiedKFold, TimeSeriesSplit

    if proj.time_ordered:
        return TimeSeriesSplit(n_splits=folds)
    if proj.classification:
        y = proj.y_train if y is None else y
        return StratifiedKFold(n_splits=min(folds, int(pd.Series(y).value_counts().min())) if folds > 1 else 2, shuffle=True, random_state=proj.seed)
    return KFold(n_splits=folds, shuffle=True, random_state=proj.seed)


def scoring(proj: Project) -> tuple[str, str]:
    """Scikit-learn scorer name and the label shown for the auto-tune objective (higher is better)."""
    if proj.classification:
        return ("balanced_accuracy", "balanced accuracy") if proj.balance else ("accuracy", "accuracy")
    return "r2", "R²"


class OutOfTime(Exception):
    """A search trial ran past the auto-tune time budget; it is dropped, not counted."""


def cv_evaluate(
    proj: Project, algo: Algorithm, params: dict, deadline: float | None = None, progress: Callable[[float, str], None] | None = None
) -> tuple[list[float], float]:
    """Validation of one configuration: (score of each fold, the one score that ranks configurations).

    Shuffled K-fold (regression, classification) ranks by the mean of the fold scores. A soft sensor is validated
    forward in time (TimeSeriesSplit: each fold trains on the past and predicts the block that follows) and ranks by
    Q², the R² of all forward predictions pooled (1 - PRESS / total sum of squares, the chemometrics criterion for
    PLS components). Averaging per-fold R² there misleads: a process drifts, a short validation block can have a
    tiny target variance, and its R² then swings to large negative values that dominate the mean whatever the model
    does. The pooled score weighs every forward-predicted row equally, as the coming production period will.
    """
    from sklearn.metrics import get_scorer

    scorer = get_scorer(scoring(proj)[0])
    X, y = proj.cv_data()  # a large table: the stated sample (Project.cv_positions)
    cv = _cv(proj, proj.cv_folds, y)
    scores: list[float] = []
    pooled_y: list[np.ndarray] = []
    pooled_p: list[np.ndarray] = []
    n_folds = cv.get_n_splits(X, y)
    for k, (tr, va) in enumerate(cv.split(X, y)):
        if deadline is not None and time.monotonic() > deadline:
            raise OutOfTime()
        pipe, _ = build_pipeline(proj, algo, params, len(tr))
        hooks = None
        if progress is not None:
            fold = say("job_cv_fold", proj.lang, k=str(k + 1), n=str(n_folds))
            progress(k / n_folds, fold)
            hooks = FitHooks(progress, fold, (k / n_folds, (k + 1) / n_folds), proj.lang)
        fit_pipeline(pipe, X.iloc[tr], y[tr], hooks)
        if proj.time_ordered:
            pred = np.ravel(pipe.predict(X.iloc[va])).astype(float)
            yv = np.asarray(y[va], dtype=float)
            scores.append(_r2(yv, pred))
            pooled_y.append(yv)
            pooled_p.append(pred)
        else:
            scores.append(float(scorer(pipe, X.iloc[va], y[va])))
    if proj.time_ordered and pooled_y:
        return scores, _r2(np.concatenate(pooled_y), np.concatenate(pooled_p))
    return scores, float(np.mean(scores))


def _r2(y: np.ndarray, p: np.ndarray) -> float:
    from sklearn.metrics import r2_score

    if not np.all(np.isfinite(p)):
        raise ArithmeticError("non-finite predictions")  # the trial fails (tune catches ArithmeticError)
    return float(r2_score(y, p))


# ---- unsupervised scores ----------------------------------------------------------------------------------


def _sample(n: int, k: int, seed: int = 0) -> np.ndarray:
    if n <= k:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, k, replace=False))


def unsupervised_score(proj: Project, algo: Algorithm, params: dict, Z: np.ndarray) -> float:
    """Silhouette for clustering, trustworthiness for maps (on a sample): the auto-tune objective."""
    from sklearn.manifold import trustworthiness
    from sklearn.metrics import silhouette_score

    idx = _sample(len(Z), UNSUP_SCORE_ROWS if proj.project_type == "clustering" else 1000, proj.seed)
    Zs = Z[idx]
    pipe, _ = build_pipeline(proj, algo, params, len(Zs))
    est = pipe[-1]
    if proj.project_type == "clustering":
        labels = est.fit_predict(Zs)
        mask = labels >= 0
        if len(set(labels[mask])) < 2 or mask.sum() < 3:
            return -1.0
        # noise points count against DBSCAN: the score is scaled by the share of rows that got a cluster
        return float(silhouette_score(Zs[mask], labels[mask])) * float(mask.mean())
    emb = est.fit_transform(Zs)
    return float(trustworthiness(Zs, emb, n_neighbors=min(5, len(Zs) // 2 - 1)))
