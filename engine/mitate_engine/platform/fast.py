"""A cheap predictor for hosted APIs: a trained tabular model compiled, once, into numpy arrays.

The shared model path (ml/model_io.predict → TrainedModel.predict) builds pandas frames and runs the scikit-learn
pipeline with its per-call validation: about 10 ms for one row, whatever the model. For the rows a hosted API gets
(a few JSON objects) this module does the same arithmetic on plain arrays:

- numeric features: the fitted median imputation, variance selection and standardisation, applied with the same
  numpy operations as scikit-learn's transform (so the same bits);
- categorical features: the fitted imputation + one-hot block of each combination of values, computed once by the
  pipeline's own transformer and remembered;
- the final estimator on the 2-D float array (LightGBM with one thread: one row gains nothing from more), then the
  same output columns as TrainedModel (target scaling undone, probabilities, clusters, components).

Anything it does not know exactly — a preprocessing condition with steps, soft-sensor lags/windows, another pipeline
layout, a value that is not a plain number or a known category (the shared path then gives the caller its 422) —
makes `compile_model` answer None or `predict_rows` answer None, and the caller uses the shared path. A compiled
model is checked against the shared path on synthetic rows before it is used: any difference above 1e-9 and it is
not used.

`FastPredictor.plan()` exports the same compiled arithmetic as plain JSON data (a "serving plan": the numeric arrays,
the one-hot vector of every known category, the estimator as data — LightGBM trees from the booster's dump, or a
linear/logistic model's coefficients — and the output columns). The server evaluates such a plan in its own process
(server/src/features/platform/plan.ts) after checking it against the shared path's answers on `sample_rows`; what the
plan cannot take goes to this process as before. This module is the one place that decides what is compilable.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..ml.model import TrainedModel
from ..ml.model_io import predict as shared_predict
from .estimator_plan import estimator_plan, is_lightgbm

TOLERANCE = 1e-9
PLAN_VERSION = 1
MAX_FAST_ROWS = 256  # beyond this the shared path's per-call cost no longer matters
_CAT_CACHE = 4096


class _Numeric:
    """SimpleImputer(median) → [VarianceThreshold] → [StandardScaler], as arrays."""

    def __init__(self, pipe) -> None:
        from sklearn.feature_selection import VarianceThreshold
        from sklearn.impute import SimpleImputer
        from sklearn.preprocessing import StandardScaler

        self.keep: np.ndarray | None = None
        self.fill: np.ndarray | None = None
        self.select: np.ndarray | None = None
        self.mean: np.ndarray | None = None
        self.scale: np.ndarray | None = None
        for _, step in pipe.steps:
            if isinstance(step, SimpleImputer):
                if step.add_indicator or step.strategy not in ("median", "mean", "constant", "most_frequent") or self.fill is not None:
                    raise _NotCompilable
                if not (isinstance(step.missing_values, float) and math.isnan(step.missing_values)):
                    raise _NotCompilable
                stats = np.asarray(step.statistics_, dtype=float)
                valid = ~np.isnan(stats)
                if not getattr(step, "keep_empty_features", False) and not valid.all():
                    self.keep = valid
                    stats = stats[valid]
                self.fill = stats
            elif isinstance(step, VarianceThreshold):
                self.select = np.asarray(step.get_support(), dtype=bool)
            elif isinstance(step, StandardScaler):
                self.mean = step.mean_ if step.with_mean else None
                self.scale = step.scale_ if step.with_std else None
            else:
                raise _NotCompilable

    def transform(self, X: np.ndarray) -> np.ndarray:
        if self.keep is not None:
            X = X[:, self.keep]
        if self.fill is not None:
            mask = np.isnan(X)
            if mask.any():
                X = np.where(mask, self.fill, X)
        if self.select is not None:
            X = X[:, self.select]
        if self.mean is not None:
            X = X - self.mean
        if self.scale is not None:
            X = X / self.scale
        return X


class _NotCompilable(Exception):
    pass


class FastPredictor:
    def __init__(self, model: TrainedModel) -> None:
        from sklearn.compose import ColumnTransformer
        from sklearn.pipeline import Pipeline

        if not isinstance(model, TrainedModel) or model.lags or model.windows:
            raise _NotCompilable
        if model.condition and model.condition.get("steps"):
            raise _NotCompilable
        pipe = model.pipeline
        if not isinstance(pipe, Pipeline) or len(pipe.steps) != 2 or not isinstance(pipe.steps[0][1], ColumnTransformer):
            raise _NotCompilable
        self.model = model
        self.kinds = dict(model.kinds)
        if set(self.kinds) != set(model.features):
            raise _NotCompilable
        self.categories = {c: set(v) for c, v in model.categories.items()}
        ct = pipe.steps[0][1]
        self.estimator = pipe.steps[1][1]
        self.blocks: list[tuple[str, Any, list[str]]] = []
        for name, trans, cols in ct.transformers_:
            if trans == "drop" or (name == "remainder" and not len(cols)):
                continue
            cols = list(cols)
            if name == "num" and all(self.kinds.get(c) == "numeric" for c in cols):
                self.blocks.append(("num", _Numeric(trans), cols))
            elif name == "cat" and all(self.kinds.get(c) == "category" for c in cols):
                self.blocks.append(("cat", trans, cols))
            else:
                raise _NotCompilable
        self.num_cols = [c for c in model.features if self.kinds[c] == "numeric"]
        self.cat_cols = [c for c in model.features if self.kinds[c] == "category"]
        self.outputs = model.output_columns()
        self._cat_cache: dict[tuple, np.ndarray] = {}
        self._direct = _lightgbm_booster(self.estimator) or _linear(self.estimator)
        self.samples: dict | None = None  # sample_rows and the shared path's answers (set by compile_model)

    # ---- input --------------------------------------------------------------------------------------------

    def _arrays(self, rows: list) -> tuple[dict[str, np.ndarray], list[tuple]] | None:
        """Per numeric column its float values; per row the tuple of category values. None: not plain input."""
        n = len(rows)
        num = {c: np.empty(n) for c in self.num_cols}
        cats: list[tuple] = []
        for i, row in enumerate(rows):
            if type(row) is not dict:
                return None
            for c in self.num_cols:
                if c not in row:
                    return None
                v = row[c]
                t = type(v)
                if t is float:
                    num[c][i] = v
                elif t is int and -(2**53) <= v <= 2**53:
                    num[c][i] = float(v)
                elif v is None:
                    num[c][i] = np.nan
                else:
                    return None
            if self.cat_cols:
                vals = []
                for c in self.cat_cols:
                    if c not in row:
                        return None
                    v = row[c]
                    if v is None:
                        vals.append(None)
                    elif type(v) is str and v in self.categories.get(c, ()):
                        vals.append(v)
                    else:
                        return None
                cats.append(tuple(vals))
        return num, cats

    def _cat_block(self, trans, cols: list[str], cats: list[tuple]) -> np.ndarray:
        pos = [self.cat_cols.index(c) for c in cols]
        keys = [tuple(t[p] for p in pos) for t in cats]
        missing = [k for k in dict.fromkeys(keys) if k not in self._cat_cache]
        if missing:
            frame = pd.DataFrame([[np.nan if v is None else v for v in k] for k in missing], columns=cols, dtype=object)
            out = np.asarray(trans.transform(frame), dtype=float)
            if len(self._cat_cache) + len(missing) > _CAT_CACHE:
                self._cat_cache.clear()
            for k, r in zip(missing, out):
                self._cat_cache[k] = r
        return np.vstack([self._cat_cache[k] for k in keys])

    def matrix(self, rows: list) -> np.ndarray | None:
        got = self._arrays(rows)
        if got is None:
            return None
        num, cats = got
        parts = []
        for kind, trans, cols in self.blocks:
            if kind == "num":
                X = np.column_stack([num[c] for c in cols]) if cols else np.empty((len(rows), 0))
                parts.append(trans.transform(X))
            else:
                parts.append(self._cat_block(trans, cols, cats))
        return parts[0] if len(parts) == 1 else np.hstack(parts)

    # ---- output -------------------------------------------------------------------------------------------

    def _predict(self, X: np.ndarray):
        if self._direct is not None:
            return self._direct(X)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="X does not have valid feature names")
            return self.estimator.predict(X)

    def _proba(self, X: np.ndarray):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="X does not have valid feature names")
            if is_lightgbm(self.estimator):
                return self.estimator.predict_proba(X, num_threads=1)
            return self.estimator.predict_proba(X)

    def columns(self, X: np.ndarray) -> dict[str, np.ndarray]:
        m = self.model
        t = m.project_type
        if t in ("regression", "soft_sensor"):
            return {self.outputs[0]: m.target_inverse(np.asarray(self._predict(X), dtype=float))}
        if t == "discriminant_analysis":
            out = {self.outputs[0]: np.asarray(self._predict(X))}
            if hasattr(self.estimator, "predict_proba"):
                proba = self._proba(X)
                for i, c in enumerate(m.classes):
                    out[f"probability_{c}"] = proba[:, i]
            return out
        if t == "clustering":
            return {"cluster": m.assign_encoded(X)}
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="X does not have valid feature names")
            emb = self.estimator.transform(np.asarray(X, dtype=float))
        return {f"component_{i + 1}": emb[:, i] for i in range(emb.shape[1])}

    def predict_rows(self, rows: list) -> tuple[list[str], list[dict]] | None:
        """(output columns, one dict per row) or None when these rows need the shared path."""
        if not rows or len(rows) > MAX_FAST_ROWS:
            return None
        X = self.matrix(rows)
        if X is None:
            return None
        cols = self.columns(X)
        names = list(cols)
        values = [v.tolist() for v in cols.values()]
        preds = [{name: _plain(vals[i]) for name, vals in zip(names, values)} for i in range(len(rows))]
        return names, preds

    # ---- serving plan -------------------------------------------------------------------------------------

    def plan(self) -> dict | None:
        """This predictor as JSON data for an evaluator outside Python, or None when its estimator or layout has
        no such form (the server then keeps asking this process). With it, the shared path's answers on
        `sample_rows` (the server checks its own evaluation against them before using the plan)."""
        try:
            est = estimator_plan(self.estimator, self.model.project_type)
            if est is None:
                return None
            blocks = [self._num_plan(trans, cols) if kind == "num" else self._cat_plan(trans, cols) for kind, trans, cols in self.blocks]
            m = self.model
            output: dict[str, Any] = {"type": m.project_type, "columns": list(self.outputs)}
            if m.project_type in ("regression", "soft_sensor"):
                if est["kind"] not in ("lightgbm", "linear", "forest") or est.get("num_class", 1) != 1:
                    return None
                output["target_affine"] = _target_affine(m)
            elif m.project_type == "discriminant_analysis":
                labels = _json(list(getattr(self.estimator, "classes_", [])))
                if est["kind"] not in ("lightgbm", "logistic", "forest") or len(labels) != len(m.classes) or len(labels) < 2:
                    return None
                output["labels"] = labels
                output["probability_columns"] = [f"probability_{c}" for c in m.classes]
            else:
                return None
            plan = {
                "version": PLAN_VERSION,
                "max_rows": MAX_FAST_ROWS,
                "numeric": list(self.num_cols),
                "category": list(self.cat_cols),
                "categories": {c: sorted(self.categories[c]) for c in self.cat_cols},
                "blocks": blocks,
                "estimator": est,
                "output": output,
            }
        except _NotCompilable:
            return None
        if not _finite(plan):
            return None
        return plan

    @staticmethod
    def _num_plan(trans: _Numeric, cols: list[str]) -> dict:
        arr = lambda a, t=float: None if a is None else [t(v) for v in np.asarray(a).tolist()]  # noqa: E731
        return {
            "kind": "num",
            "columns": cols,
            "keep": arr(trans.keep, bool),
            "fill": arr(trans.fill),
            "select": arr(trans.select, bool),
            "mean": arr(trans.mean),
            "scale": arr(trans.scale),
        }

    def _cat_plan(self, trans, cols: list[str]) -> dict:
        """Per column, the block each known category (and a missing value) becomes, by the pipeline's own
        transformer: imputation and one-hot encoding treat each column on its own, so a row's block is these
        per-column pieces side by side."""
        from sklearn.pipeline import Pipeline
        from sklearn.preprocessing import OneHotEncoder

        enc = trans.steps[-1][1] if isinstance(trans, Pipeline) else trans
        widths = getattr(enc, "_n_features_outs", None)
        if not isinstance(enc, OneHotEncoder) or widths is None or len(widths) != len(cols):
            raise _NotCompilable
        known = [sorted(self.categories[c]) for c in cols]
        n = max(len(k) for k in known) + 1
        frame = pd.DataFrame([[k[i] if i < len(k) else np.nan for k in known] for i in range(n)], columns=cols, dtype=object)
        out = np.asarray(trans.transform(frame), dtype=float)
        if out.shape[1] != sum(widths):
            raise _NotCompilable
        vectors = {}
        start = 0
        for c, k, w in zip(cols, known, widths):
            piece = out[:, start : start + w]
            vectors[c] = {"values": {v: piece[i].tolist() for i, v in enumerate(k)}, "missing": piece[len(k)].tolist()}
            start += w
        return {"kind": "cat", "columns": cols, "vectors": vectors}


def _plain(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _lightgbm_booster(est):
    """LGBMRegressor.predict is its Booster's predict on the array (the wrapper's per-call parameter handling costs
    more than the trees); one thread, since a few rows gain nothing from more and a loaded machine loses a lot."""
    if not is_lightgbm(est) or type(est).__name__ != "LGBMRegressor":
        return None
    booster = est.booster_

    def run(X: np.ndarray):
        return booster.predict(X, num_threads=1)

    return run


def _linear(est):
    """LinearModel.predict without its per-call validation: X @ coef_ + intercept_, as scikit-learn computes it."""
    from sklearn.linear_model import ElasticNet, Lasso, LinearRegression, Ridge

    if type(est) not in (LinearRegression, Ridge, Lasso, ElasticNet):
        return None
    coef, intercept = np.asarray(est.coef_), est.intercept_
    if coef.ndim != 1:
        return None

    def run(X: np.ndarray):
        return X @ coef + intercept

    return run


def _target_affine(m: TrainedModel) -> list[list[float]]:
    """TrainedModel.target_inverse as (scale, centre) pairs applied in order."""
    return [[float(scale), float(center)] for scale, center in m.target_scalings()]


def _finite(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


def sample_rows(model: TrainedModel, n: int = 48, seed: int = 0) -> list[dict]:
    """Rows around the training data's medians (some values missing) and over every known category."""
    rng = np.random.default_rng(seed)
    centre: dict[str, float] = {}
    spread: dict[str, float] = {}
    try:
        num_pipe = model.pipeline.steps[0][1].named_transformers_["num"]
        stats = num_pipe.steps[0][1].statistics_
        num_cols = [c for c in model.features if model.kinds.get(c) == "numeric"]
        for c, s in zip(num_cols, stats):
            centre[c] = float(s) if np.isfinite(s) else 0.0
            spread[c] = max(abs(centre[c]) * 0.2, 1.0)
    except Exception:  # noqa: BLE001
        pass
    rows = []
    for i in range(n):
        row: dict[str, Any] = {}
        for c in model.features:
            if model.kinds.get(c) == "numeric":
                row[c] = None if i % 11 == 5 else float(centre.get(c, 0.0) + rng.normal() * spread.get(c, 1.0))
            else:
                cats = model.categories.get(c) or []
                row[c] = None if (i % 13 == 7 or not cats) else cats[i % len(cats)]
        rows.append(row)
    return rows


def same(a: list[dict], b: list[dict]) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x.keys() != y.keys():
            return False
        for k in x:
            u, v = x[k], y[k]
            if isinstance(u, (int, float)) and isinstance(v, (int, float)) and not isinstance(u, bool):
                if abs(float(u) - float(v)) > TOLERANCE:
                    return False
            elif u != v:
                return False
    return True


def shared_rows(model: TrainedModel, rows: list[dict], condition: dict | None = None) -> tuple[list[str], list[dict]]:
    """The shared model path's answer for the same rows (what the compiled one must equal)."""
    from .serve import records

    out = shared_predict(model, pd.DataFrame.from_records(rows), raw=bool(condition or model.condition))
    return list(out.columns), records(out)


def compile_model(model: Any, condition: dict | None = None) -> FastPredictor | None:
    """A checked FastPredictor, or None: the caller then uses the shared path for every request."""
    if condition and condition.get("steps"):
        return None
    try:
        fast = FastPredictor(model)
        rows = sample_rows(model)
        mine = fast.predict_rows(rows)
        if mine is None:
            return None
        names, preds = shared_rows(model, rows)
        if names != mine[0] or not same(_json(preds), _json(mine[1])):
            return None
        fast.samples = {"rows": rows, "outputs": names, "predictions": _json(preds)}
        return fast
    except Exception:  # noqa: BLE001 - not compilable means the shared path, never a failed request
        return None


def _json(preds: list[dict]) -> list[dict]:
    from ..encoding import to_jsonable

    return to_jsonable(preds)
