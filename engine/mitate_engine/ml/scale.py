"""Training that scales with the data: the sampling rule for large tables, the per-step profile, LightGBM's own
categorical handling (no one-hot) and the one place a LightGBM model is fitted (`fit_lightgbm`).

A table is *large* from LARGE_ROWS training rows. Then:
- numbers are read as float32 and text columns as pandas categories (data.read_table / as_model_frame);
- cross-validation (and auto-tune, which ranks by it) runs on a sample of CV_SAMPLE_ROWS training rows — stratified
  by class for classification, the most recent rows for a soft sensor (time order kept) — and the final model is
  fitted on every training row;
- the training-set figures are computed on TRAIN_METRIC_ROWS sampled training rows (the test figures on every test row);
- LightGBM takes the category columns as they are (its own categorical splits) instead of one-hot columns.
`sampling(...)` states the rule of one model as data; the report page shows it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

from ..lang import say

LARGE_ROWS = 200_000
CV_SAMPLE_ROWS = 300_000
TRAIN_METRIC_ROWS = 200_000
ROUND_REPORT_SECONDS = 1.0  # at most one "boosting round i of n" progress line a second


def is_large(n_rows: int) -> bool:
    return n_rows >= LARGE_ROWS


def sample_positions(n: int, k: int, seed: int = 0, y=None, time_ordered: bool = False) -> np.ndarray:
    """Sorted positions of at most k of n rows: all when n ≤ k; the last k in time order; else a random sample,
    stratified by y when given (every class keeps its share, and at least 2 rows when it has them)."""
    if n <= k:
        return np.arange(n)
    if time_ordered:
        return np.arange(n - k, n)
    if y is not None:
        from sklearn.model_selection import train_test_split

        counts = pd.Series(y).value_counts()
        if counts.min() >= 2 and k >= counts.size and n - k >= counts.size:
            idx, _ = train_test_split(np.arange(n), train_size=k, random_state=seed, shuffle=True, stratify=y)
            return np.sort(idx)
    return np.sort(np.random.default_rng(seed).choice(n, k, replace=False))


class Profile:
    """Seconds per step of one training job, in the order the steps first ran; a step that runs twice adds up."""

    def __init__(self, steps: dict[str, float] | None = None) -> None:
        self.steps: dict[str, float] = dict(steps or {})

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        t0 = time.monotonic()
        try:
            yield
        finally:
            self.steps[name] = round(self.steps.get(name, 0.0) + time.monotonic() - t0, 3)

    def as_dict(self) -> dict[str, float]:
        return dict(self.steps)


# ---- LightGBM on category columns ------------------------------------------------------------------------------


class NativeFrame(TransformerMixin, BaseEstimator):
    """The preprocessing step of a LightGBM model on a large table: numbers as float32 (missing values stay missing,
    LightGBM routes them itself), each category column as a pandas category with the training categories (an unseen
    value becomes missing). A scikit-learn transformer, so the model stays one Pipeline (preprocess, model)."""

    def __init__(self, kinds: dict[str, str] | None = None, categories: dict[str, list[str]] | None = None) -> None:
        self.kinds = kinds
        self.categories = categories

    def fit(self, X, y=None):
        return self  # nothing to learn: the kinds and categories come from the project

    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        out = {}
        for c, k in (self.kinds or {}).items():
            s = X[c]
            if k == "numeric":
                out[c] = pd.to_numeric(s, errors="coerce").astype("float32")
            else:
                out[c] = as_category(s, (self.categories or {}).get(c, []))
        return pd.DataFrame(out, index=X.index)

    def get_feature_names_out(self, input_features=None):
        del input_features  # the output names are the model columns whatever the input
        return np.asarray(list(self.kinds or {}), dtype=object)


def as_category(s: pd.Series, categories: list[str]) -> pd.Series:
    """A column as a pandas category over exactly `categories` (strings); other values become missing."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        cats = s.cat.categories
        if not all(isinstance(v, str) for v in cats):
            s = s.cat.rename_categories([str(v) for v in cats]) if len(set(map(str, cats))) == len(cats) else s.astype(str).where(s.notna())
        if isinstance(s.dtype, pd.CategoricalDtype):
            return s.cat.set_categories(categories)
    vals = s.astype("object").where(s.notna(), None).map(lambda v: v if v is None else str(v))
    return pd.Series(pd.Categorical(vals, categories=categories), index=s.index)


def is_lightgbm(est) -> bool:
    return type(est).__module__.startswith("lightgbm")


class FitHooks:
    """What a long fit reports and obeys: `progress(fraction, message)` (which raises Cancelled when the job was
    stopped) and the label of the step (e.g. "fold 2 of 5")."""

    def __init__(self, progress: Callable[[float, str], None] | None = None, label: str = "", span: tuple[float, float] = (0.0, 1.0), lang: str = "en") -> None:
        self.progress = progress
        self.label = label
        self.span = span
        self.lang = lang


def fit_lightgbm(est, Z: pd.DataFrame, y, hooks: FitHooks | None = None):
    """The one place a LightGBM estimator is fitted: on the preprocessed frame Z, with a callback that reports
    "boosting round i of n" at most once a second and stops the fit within a round when the job is cancelled (the
    callback's progress raises Cancelled; nothing is written before the fit returns). Another backend (e.g. LightGBM's
    Dask interface) plugs in here."""
    callbacks = round_callbacks(est, hooks)
    est.fit(Z, y, callbacks=callbacks) if callbacks else est.fit(Z, y)
    return est


def round_callbacks(est, hooks: FitHooks | None) -> list:
    """LightGBM callbacks: "boosting round i of n" at most once a second, and Stop (progress raises Cancelled)."""
    callbacks = []
    if hooks is not None and hooks.progress is not None:
        total = int(est.get_params().get("n_estimators") or 100)
        last = [0.0]
        lo, hi = hooks.span

        def on_round(env) -> None:
            now = time.monotonic()
            i = env.iteration + 1
            if now - last[0] >= ROUND_REPORT_SECONDS or i == total:
                last[0] = now
                msg = say("job_boosting_round", hooks.lang, i=str(i), total=str(total))
                msg = f"{hooks.label}: {msg}" if hooks.label else msg
                hooks.progress(lo + (hi - lo) * i / total, msg)

        on_round.order = 100  # after LightGBM's own callbacks
        callbacks.append(on_round)
    return callbacks


def fit_pipeline(pipe, X: pd.DataFrame, y, hooks: FitHooks | None = None):
    """Pipeline (preprocess, model).fit, with LightGBM fitted through fit_lightgbm (progress, cancel)."""
    est = pipe[-1]
    if not is_lightgbm(est) or len(pipe.steps) != 2:
        pipe.fit(X, y)
        return pipe
    Z = pipe[0].fit_transform(X, y)
    fit_lightgbm(est, Z, y, hooks)
    return pipe


def fit_streamed_pipeline(pipe, proj, hooks: FitHooks | None = None):
    """Pipeline (NativeFrame, LightGBM) fitted on every training row of a table too large to hold (ml/stream.py)."""
    from .stream import fit_streamed

    say = None
    if hooks is not None and hooks.progress is not None:
        say = lambda msg: hooks.progress(hooks.span[0], f"{hooks.label}: {msg}" if hooks.label else msg)  # noqa: E731
    fit_streamed(pipe[-1], pipe[0], proj, round_callbacks(pipe[-1], hooks), say)
    return pipe


def sampling(
    n_train: int, n_test: int, cv_rows: int | None, folds: int, how: str, train_metric_rows: int, importance_rows: int, shap_rows: int | None, points: int
) -> dict:
    """The rows each step of a model used, as the report shows them."""
    return {
        "large": is_large(n_train),
        "final_fit_rows": n_train,
        "test_rows": n_test,
        "cv": None if not cv_rows else {"rows": cv_rows, "of": n_train, "folds": folds, "sample": how if cv_rows < n_train else "all"},
        "train_metric_rows": train_metric_rows,
        "importance_rows": importance_rows,
        "shap_rows": shap_rows,
        "chart_points": points,
    }
