"""Training one model of a project: auto-tune (Optuna under cross-validation), fit, evaluate, explain, package.

`prepare_project` turns the table and the project settings into the shared train/test frames once; `train_model`
then trains one algorithm on them and returns its report (metrics, charts, importances, CV folds, parameters).
"""

from __future__ import annotations

import json
import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..encoding import to_jsonable
from ..task import EngineError
from . import data as D
from . import distributed
from .algorithms import SUPERVISED, THREADS, Algorithm, BuildContext, get_algorithm
from .model import TrainedModel
from .model_io import save_model
from .scale import CV_SAMPLE_ROWS, TRAIN_METRIC_ROWS, FitHooks, NativeFrame, Profile, fit_pipeline, is_large, is_lightgbm, sample_positions, sampling

MAX_POINTS = 2000  # points per scatter chart in a report
IMPORTANCE_ROWS = 2000
SHAP_ROWS = 400
SMALL_TEST = 30  # below this many test rows a hold-out score is too noisy to be the headline
UNSUP_SCORE_ROWS = 3000


@dataclass
class Project:
    project_type: str
    target: str | None
    features: list[str]
    kinds: dict[str, str]
    categories: dict[str, list[str]]
    X_train: pd.DataFrame
    y_train: np.ndarray | None
    X_test: pd.DataFrame | None
    y_test: np.ndarray | None
    cv_folds: int
    auto_tune: bool
    n_trials: int
    balance: bool
    variance_threshold: float
    significance_level: float
    classes: list[str] = field(default_factory=list)
    lags: list[int] = field(default_factory=list)
    windows: list[int] = field(default_factory=list)
    datetime_column: str | None = None
    time_train: list | None = None
    time_test: list | None = None
    color: np.ndarray | None = None  # dimensional compression: optional label to colour the map
    condition: dict | None = None
    seed: int = 0
    cv_only: bool = False  # no hold-out: every row trains; repeated cross-validation is the estimate
    # auto-tune trials shared with helper jobs on other workers through Optuna's RDB storage: {"storage", "study"}
    tune_shared: dict | None = None
    source: dict | None = None  # the spec's parquet and split, for a fit that reads the rows again (ml/distributed.py)
    profile: Profile = field(default_factory=Profile)  # seconds per step (read, conversion, ... writing)
    _cv_rows: np.ndarray | None = None

    @property
    def large(self) -> bool:
        return is_large(len(self.X_train))

    def cv_positions(self) -> np.ndarray:
        """The training rows cross-validation and auto-tune use: all of them, or on a large table a sample of
        CV_SAMPLE_ROWS (stratified for classification, the most recent rows for a soft sensor)."""
        if self._cv_rows is None or (len(self._cv_rows) and self._cv_rows[-1] >= len(self.X_train)):
            n = len(self.X_train)
            self._cv_rows = sample_positions(n, CV_SAMPLE_ROWS, self.seed, self.y_train if self.classification else None, self.time_ordered)
        return self._cv_rows

    def cv_data(self) -> tuple[pd.DataFrame, np.ndarray]:
        idx = self.cv_positions()
        if len(idx) == len(self.X_train):
            return self.X_train, self.y_train
        return self.X_train.iloc[idx].reset_index(drop=True), self.y_train[idx]

    @property
    def test_rows(self) -> int:
        return 0 if self.X_test is None else len(self.X_test)

    @property
    def supervised(self) -> bool:
        return self.project_type in SUPERVISED

    @property
    def classification(self) -> bool:
        return self.project_type == "discriminant_analysis"

    @property
    def time_ordered(self) -> bool:
        return self.project_type == "soft_sensor"


def prepare_project(spec: dict, df: pd.DataFrame | None = None) -> Project:
    t = spec.get("project_type")
    if t not in ("regression", "soft_sensor", "discriminant_analysis", "clustering", "dimensional_compression"):
        raise EngineError("unknown_project_type", type=str(t))
    target = spec.get("target") or None
    features = list(spec.get("features") or [])
    if not features:
        raise EngineError("no_features")
    if t in SUPERVISED and not target:
        raise EngineError("no_target")
    if target and target in features:
        raise EngineError("target_in_features", column=target)
    dt_col = spec.get("datetime_column") or None
    profile = Profile()
    if df is None:
        cols = [*features, *([target] if target else []), *([dt_col] if dt_col else [])]
        with profile.step("read"):
            df = D.read_table(spec["parquet"], cols, compact=True, exact=tuple(c for c in (target, dt_col) if c))
    t_conv = time.monotonic()
    for c in [*features, *([target] if target else [])]:
        if c not in df.columns:
            raise EngineError("column_not_in_data", column=c)
    if t == "soft_sensor" and dt_col and dt_col in df.columns:
        df = df.sort_values(dt_col, kind="stable").reset_index(drop=True)
    kinds = D.column_kinds(df, features)
    lags = [int(v) for v in spec.get("lags") or []] if t == "soft_sensor" else []
    windows = [int(v) for v in spec.get("windows") or []] if t == "soft_sensor" else []
    if any(v < 1 for v in lags) or any(v < 2 for v in windows):
        raise EngineError("bad_time_features")
    if lags or windows:
        df, extra = D.add_time_features(df, [c for c in features if kinds[c] == "numeric"], lags, windows)
        kinds.update({c: "numeric" for c in extra})
        df = df.iloc[D.warmup_rows(lags, windows) :].reset_index(drop=True)
    y = None
    classes: list[str] = []
    if target and t in SUPERVISED:
        y_raw = df[target]
        keep = y_raw.notna().to_numpy()
        if keep.sum() < 10:
            raise EngineError("target_too_few", column=target)
        if not keep.all():  # a copy of the table only when rows go
            df = df.loc[keep].reset_index(drop=True)
            y_raw = y_raw[keep].reset_index(drop=True)
        if t == "discriminant_analysis":
            y = y_raw.map(str).to_numpy(dtype=object)
            counts = pd.Series(y).value_counts()
            if len(counts) < 2:
                raise EngineError("single_class", column=target)
            single = counts[counts < 2]
            if len(single):
                raise EngineError("single_row_class", column=target, value=str(single.index[0]))
            classes = sorted(counts.index.tolist())
        else:
            if not (pd.api.types.is_numeric_dtype(y_raw) and not pd.api.types.is_bool_dtype(y_raw)):
                raise EngineError("target_not_numeric", column=target)
            y = y_raw.astype(float).to_numpy()
            if np.nanstd(y) == 0:
                raise EngineError("target_constant", column=target)
    X = D.as_model_frame(df, kinds)
    # the read columns are in X now: only the target and the time axis stay (memory of a large table)
    df = df[[c for c in dict.fromkeys([target, dt_col]) if c and c in df.columns]]
    cats = D.categories_of(X, kinds)
    profile.steps["conversion"] = round(time.monotonic() - t_conv, 3)
    ratio = float(spec.get("split_ratio") or 0.85)
    folds = spec.get("cv_folds", "default")
    folds = 5 if folds in (None, "", "default") else int(folds)
    if folds < 2:
        raise EngineError("bad_folds")
    proj = Project(
        project_type=t,
        target=target,
        features=features,
        kinds=kinds,
        categories=cats,
        X_train=X,
        y_train=y,
        X_test=None,
        y_test=None,
        cv_folds=folds,
        auto_tune=bool(spec.get("auto_tune")),
        n_trials=int(spec.get("n_trials") or 10),
        balance=bool(spec.get("balance")),
        variance_threshold=float(spec.get("variance_threshold") or 0.0),
        significance_level=float(spec.get("significance_level") or 0.05),
        classes=classes,
        lags=lags,
        windows=windows,
        datetime_column=dt_col,
        condition=_condition(spec),
        seed=int(spec.get("seed") or 0),
        tune_shared=spec.get("tune_shared") if isinstance(spec.get("tune_shared"), dict) else None,
        profile=profile,
    )
    evaluation = spec.get("evaluation") or "holdout"
    if evaluation == "cv_only" and t not in ("regression", "discriminant_analysis"):
        raise EngineError("cv_only_type")
    if t in SUPERVISED:
        if len(X) < 10:
            raise EngineError("too_few_rows")
        if evaluation == "cv_only":
            if len(X) > CV_ONLY_MAX_ROWS:
                raise EngineError("cv_only_too_large", max=CV_ONLY_MAX_ROWS, rows=len(X))
            proj.cv_only = True
            return proj
        split_time = spec.get("split_time")
        if t == "soft_sensor" and split_time and dt_col:
            times = pd.to_datetime(df[dt_col])
            n_train = int((times < pd.Timestamp(split_time)).sum())
            if n_train < 5 or n_train > len(X) - 2:
                raise EngineError("split_time_edge")
            tr, te = np.arange(n_train), np.arange(n_train, len(X))
        else:
            tr, te = D.split(len(X), ratio, proj.time_ordered, y if proj.classification else None, proj.seed)
        proj.X_train, proj.X_test = _split_frame(X, tr, te)
        proj.y_train, proj.y_test = y[tr], y[te]
        if proj.classification:
            missing = sorted(set(classes) - set(proj.y_train))
            if missing:
                raise EngineError("class_missing_in_training", value=str(missing[0]))
        if t == "soft_sensor":
            axis = df[dt_col].astype(str).tolist() if dt_col and dt_col in df.columns else list(range(len(X)))
            proj.time_train = [axis[i] for i in tr]
            proj.time_test = [axis[i] for i in te]
    elif t == "dimensional_compression" and target and target in df.columns:
        proj.color = df[target].map(str).to_numpy(dtype=object)
    return proj


CV_ONLY_MAX_ROWS = 2000  # as the server's CV_ONLY_MAX_ROWS


def _split_frame(X: pd.DataFrame, tr: np.ndarray, te: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Train and test rows of X, column by column: each column leaves X as its two parts are made, so a large table
    is held about once, not twice (X is left without columns)."""
    parts_tr, parts_te = {}, {}
    for c in list(X.columns):
        v = X.pop(c)
        parts_tr[c] = v.iloc[tr].reset_index(drop=True)
        parts_te[c] = v.iloc[te].reset_index(drop=True)
        del v
    return pd.DataFrame(parts_tr, copy=False), pd.DataFrame(parts_te, copy=False)


def _condition(spec: dict) -> dict | None:
    path = spec.get("condition_path")
    if not path:
        return None
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


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
            progress(k / n_folds, f"cross-validation fold {k + 1} of {n_folds}")
            hooks = FitHooks(progress, f"cross-validation fold {k + 1} of {n_folds}", (k / n_folds, (k + 1) / n_folds))
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


# ---- auto-tune --------------------------------------------------------------------------------------------


def _objective(proj: Project, algo: Algorithm, base: dict, space: list, Z: np.ndarray | None, deadline: float | None, folds: dict):
    """One trial's score. The first trial scored here (the defaults, in the main job) always completes; later ones stop
    at the deadline, between folds. Fold scores go to `folds` and, for shared studies, onto the trial itself."""
    import optuna

    def objective(trial):
        params = {**base, **{p.name: p.suggest(trial) for p in space}}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if proj.supervised:
                try:
                    result = cv_evaluate(proj, algo, params, deadline if folds else None)
                except OutOfTime:
                    raise optuna.TrialPruned("time budget reached") from None
                folds[trial.number] = result
                if proj.tune_shared:
                    trial.set_user_attr("folds", [list(map(float, result[0])), float(result[1])])
                return result[1]
            return unsupervised_score(proj, algo, params, Z)

    return objective


TUNE_CATCH = (ValueError, np.linalg.LinAlgError, ArithmeticError)


def tune(
    proj: Project,
    algo: Algorithm,
    base: dict,
    report: Callable[[int, int, float | None, float | None], None],
    timeout: float | None = None,
    Z: np.ndarray | None = None,
    study_key: str | None = None,
) -> tuple[dict, list[dict], tuple[list[float], float] | None]:
    """Optuna's TPE over the algorithm's tunable parameters, `proj.n_trials` trials in all. With `proj.tune_shared`
    the study lives in the shared RDB storage (PostgreSQL) under `<study>:<study_key>`, and helper jobs on other
    workers (kind tune_helper) run trials of it at the same time; the count of all trials still stops at n."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    space = [p for p in algo.params if p.tune]
    if not space:
        if proj.tune_shared and study_key:
            from . import shared_tune

            shared_tune.close(proj.tune_shared, study_key)
        return base, [], None
    n = proj.n_trials
    shared = proj.tune_shared if proj.tune_shared and study_key else None
    sampler = optuna.samplers.TPESampler(seed=proj.seed, n_startup_trials=min(5, max(1, n // 2)), constant_liar=bool(shared))
    if shared:
        from . import shared_tune

        study = shared_tune.study(shared, study_key, sampler)
    else:
        study = optuna.create_study(direction="maximize", sampler=sampler)
    # The algorithm's defaults are trial 1 and the user's own values (if any differ) trial 2, so tuning never returns
    # something the validation score ranks below either.
    defaults = algo.defaults()
    first = {p.name: defaults.get(p.name, base[p.name]) for p in space}
    given = {p.name: base[p.name] for p in space}
    if not study.trials:
        study.enqueue_trial(first)
        if given != first:
            study.enqueue_trial(given)
    trials: list[dict] = []
    fold_scores: dict[int, tuple[list[float], float]] = {}
    deadline = time.monotonic() + timeout if timeout else None
    objective = _objective(proj, algo, base, space, Z, deadline, fold_scores)

    def callback(study, trial):
        value = trial.value if trial.state == optuna.trial.TrialState.COMPLETE else None
        try:
            best = study.best_value
        except ValueError:
            best = None
        trials.append({"number": trial.number + 1, "value": value, "params": trial.params, "state": trial.state.name.lower()})
        report(min(len(study.trials), n) if shared else trial.number + 1, n, value, best)

    callbacks = [callback]
    if shared:
        shared_tune.open_study(study, n)
        callbacks.insert(0, optuna.study.MaxTrialsCallback(n, states=None))
    try:
        study.optimize(objective, n_trials=n, timeout=timeout, callbacks=callbacks, catch=TUNE_CATCH)
        if shared:
            shared_tune.wait_running(study, deadline)
    finally:
        if shared:
            shared_tune.close_study(study)
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    if not done:
        raise EngineError("no_trial_succeeded")
    best = study.best_trial
    if shared:
        # every worker's trials, in the order they were asked for; the best one's folds travelled with it
        trials = [
            {
                "number": t.number + 1,
                "value": t.value if t.state == optuna.trial.TrialState.COMPLETE else None,
                "params": t.params,
                "state": t.state.name.lower(),
                "worker": t.user_attrs.get("worker", "main"),
            }
            for t in study.trials
            if t.state != optuna.trial.TrialState.RUNNING
        ]
        f = best.user_attrs.get("folds")
        return {**base, **best.params}, trials, (f[0], f[1]) if f else fold_scores.get(best.number)
    return {**base, **best.params}, trials, fold_scores.get(best.number)


def join_tuning(
    proj: Project, algo: Algorithm, given_params: dict | None, study_key: str, timeout: float | None = None, on_error: Callable[[Exception], None] | None = None
) -> int:
    """A helper's share of a shared study: waits until the main job opens it, then runs trials until all n are
    asked for or the main job closes it. Answers how many trials ran here."""
    import optuna

    from . import shared_tune

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    space = [p for p in algo.params if p.tune]
    if not space or not proj.tune_shared:
        return 0
    base = algo.coerce(given_params)
    Z = None
    if not proj.supervised:
        pre = D.make_preprocessor(proj.kinds, True, proj.variance_threshold)
        Z = np.asarray(pre.fit_transform(proj.X_train), dtype=float)
    n = proj.n_trials
    sampler = optuna.samplers.TPESampler(n_startup_trials=min(5, max(1, n // 2)), constant_liar=True)
    study = shared_tune.wait_open(proj.tune_shared, study_key, sampler)
    if study is None:
        return 0
    deadline = time.monotonic() + timeout if timeout else None
    folds: dict = {0: None}  # never "first": a helper's trials all respect the deadline
    inner = _objective(proj, algo, base, space, Z, deadline, folds)
    ran = 0

    def objective(trial):
        nonlocal ran
        ran += 1
        trial.set_user_attr("worker", shared_tune.worker_name())
        return inner(trial)

    def stop_when_closed(study, _trial):
        if shared_tune.is_closed(study):
            study.stop()

    try:
        study.optimize(objective, n_trials=n, timeout=timeout, callbacks=[optuna.study.MaxTrialsCallback(n, states=None), stop_when_closed], catch=TUNE_CATCH)
    except Exception as exc:  # noqa: BLE001 - helping is best effort: a lost connection or a study the main job closed
        # under it ends this worker's share; the main job's trials and report stand on their own.
        if on_error is None:
            raise
        on_error(exc)
    return ran


# ---- one model --------------------------------------------------------------------------------------------


def train_model(
    proj: Project,
    algorithm: str,
    given_params: dict | None,
    out_dir: Path,
    progress: Callable[[float, str], None],
    event: Callable[..., None],
    log: Callable[[str], None],
    time_budget: float | None = None,
    label: str = "",
    on_ready: Callable[[dict], None] | None = None,
    study_key: str | None = None,
) -> dict:
    """Trains one algorithm; writes model.joblib, manifest.json, model.zip, report.json into out_dir."""

    algo = get_algorithm(proj.project_type, algorithm)
    label = label or algo.label
    try:
        params = algo.coerce(given_params)
    except ValueError as exc:
        raise EngineError("bad_hyperparameter", reason=str(exc)) from exc
    n_rows = len(proj.X_train)
    if algo.max_rows and n_rows > algo.max_rows:
        raise EngineError("algorithm_row_limit", algorithm=algo.label, max=algo.max_rows, rows=n_rows)
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    prof = Profile(proj.profile.as_dict())  # this model's steps after the shared read and conversion
    trials: list[dict] = []
    folds: tuple[list[float], float] | None = None  # (fold scores, ranking score) from cv_evaluate
    Z_all = None
    if not proj.supervised:
        pre = D.make_preprocessor(proj.kinds, True, proj.variance_threshold)
        Z_all = np.asarray(pre.fit_transform(proj.X_train), dtype=float)
    if proj.auto_tune:

        def report(i, n, value, best):
            v = "not scored (failed or stopped at the time budget)" if value is None else f"{value:.4f}"
            b = "-" if best is None else f"{best:.4f}"
            progress(0.05 + 0.7 * i / n, f"{label}: trial {i} of {n}, best so far {b}")
            event("trial", model=label, trial=i, of=n, value=value, best=best)
            log(f"{label}: trial {i}/{n} score {v} best {b}")

        with prof.step("auto_tune"):
            params, trials, folds = tune(proj, algo, params, report, timeout=time_budget, Z=Z_all, study_key=study_key)
        log(f"{label}: best parameters {json.dumps(to_jsonable(params))}")
    progress(0.78, f"{label}: fitting on {n_rows:,} rows")
    with warnings.catch_warnings(), prof.step("final_fit"):
        warnings.simplefilter("ignore")
        pipe, params = build_pipeline(proj, algo, params, n_rows)
        trained_on = None  # or where the boosting ran: the Dask cluster (MITATE_DASK_SCHEDULER, ml/distributed.py)
        if proj.supervised:
            trained_on = distributed.fit_on_cluster(pipe, proj, algorithm, progress, log, label)
            if trained_on is None:
                fit_pipeline(pipe, proj.X_train, proj.y_train, FitHooks(progress, f"{label}: final fit", (0.78, 0.85)))
        elif proj.project_type == "clustering":
            pipe[0].fit(proj.X_train)
            pipe[-1].fit(Z_all)
        else:
            pipe[0].fit(proj.X_train)
            emb_train = pipe[-1].fit_transform(Z_all)
    fit_seconds = time.monotonic() - started
    model = TrainedModel(
        project_type=proj.project_type,
        algorithm=algorithm,
        target=proj.target,
        features=proj.features,
        kinds=proj.kinds,
        categories=proj.categories,
        pipeline=pipe,
        classes=proj.classes,
        lags=proj.lags,
        windows=proj.windows,
        datetime_column=proj.datetime_column,
        params=to_jsonable(params),
        condition=proj.condition,
    )
    progress(0.85, f"{label}: evaluating")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if proj.supervised:
            rep = _supervised_report(proj, algo, model, log, params, prof)
        elif proj.project_type == "clustering":
            rep = _clustering_report(proj, algo, model, Z_all, params)
        else:
            rep = _compression_report(proj, algo, model, Z_all, emb_train)
    rep.update(
        {
            "algorithm": algorithm,
            "label": algo.label,
            "hyperparameters": to_jsonable(params),
            "defaults": algo.defaults(),
            "auto_tune": {
                "enabled": proj.auto_tune,
                "trials": trials,
                "objective": scoring(proj)[1] if proj.supervised else ("silhouette" if proj.project_type == "clustering" else "trustworthiness"),
            },
            "train_rows": n_rows,
            "test_rows": 0 if proj.X_test is None else len(proj.X_test),
            "fit_seconds": fit_seconds,
            "trained_on": trained_on,
            "seconds": time.monotonic() - started,
            "features": proj.features,
            "target": proj.target,
            "pending": proj.supervised,  # cross-validation and importances follow
        }
    )
    rep["sampling"] = model_sampling(proj, algo)
    rep["profile"] = prof.as_dict()
    rep = to_jsonable(rep)
    progress(0.9, f"{label}: packaging")
    with prof.step("writing"):
        save_model(model, out_dir, rep["metrics"])
        _write_report(out_dir, rep)
    if not proj.supervised:
        return rep
    # The model is usable from here (it predicts, its test metrics are known): say so before the slower explanations.
    if on_ready:
        on_ready(rep)
    progress(0.93, f"{label}: cross-validation and feature importance")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if folds is None and proj.cv_folds >= 2:
            with prof.step("cv_folds"):
                folds = cv_evaluate(proj, algo, params, progress=lambda f, m: progress(0.93 + 0.05 * f, f"{label}: {m}"))
        fold_list, cv_score = folds if folds else ([], None)
        # "mean" is the score that ranked the configurations: the fold mean, or for a soft sensor the pooled forward Q²
        # ("aggregate" says which); "fold_mean" is always the plain mean of the fold scores.
        rep["cv"] = {
            "metric": scoring(proj)[1],
            "folds": fold_list,
            "mean": cv_score,
            "aggregate": "pooled_forward" if proj.time_ordered else "mean",
            "fold_mean": float(np.mean(fold_list)) if fold_list else None,
            "std": float(np.std(fold_list)) if fold_list else None,
        }
        rep["evaluation"] = evaluation(proj, algo, params)
        progress(0.98, f"{label}: feature importance")
        with prof.step("importance"):
            rep["permutation_importance"] = _permutation(proj, model.pipeline)
        with prof.step("shap"):
            rep["shap"] = _shap(proj, algo, model.pipeline, log)
    rep["pending"] = False
    rep["seconds"] = time.monotonic() - started
    with prof.step("writing"):
        rep["profile"] = prof.as_dict()
        rep = to_jsonable(rep)
        _write_report(out_dir, rep)
    log(f"{label}: steps in seconds {json.dumps(rep['profile'])}")
    return rep


def _write_report(out_dir: Path, rep: dict) -> None:
    """report.json replaced whole (written beside, then renamed): a reader never sees half a report."""
    tmp = out_dir / "report.json.tmp"
    tmp.write_text(json.dumps(rep), encoding="utf-8")
    tmp.replace(out_dir / "report.json")


def model_sampling(proj: Project, algo: Algorithm) -> dict | None:
    """The rows each step used (the report page states the rule)."""
    if not proj.supervised:
        return None
    n = len(proj.X_train)
    how = "recent" if proj.time_ordered else ("stratified" if proj.classification else "random")
    wide = len(proj.X_train.columns) > 20
    return sampling(
        n,
        proj.test_rows,
        len(proj.cv_positions()) if proj.cv_folds >= 2 else None,
        proj.cv_folds,
        how,
        min(n, TRAIN_METRIC_ROWS) if proj.large else n,
        0 if proj.cv_only else min(proj.test_rows, IMPORTANCE_ROWS // 2 if wide else IMPORTANCE_ROWS),
        min(n if proj.cv_only else proj.test_rows, SHAP_ROWS) if algo.tree else None,
        MAX_POINTS,
    )


# ---- reports ----------------------------------------------------------------------------------------------


def evaluation(proj: Project, algo: Algorithm, params: dict) -> dict:
    """How far the report's figures can be trusted, and which is the headline. A hold-out of fewer than SMALL_TEST rows
    (or none: cross-validation only) makes repeated cross-validation the headline: every row is validated several
    times over different splits, so its mean and spread say more than a few test rows. A soft sensor's headline is
    then its forward validation (shuffled repeats would look into the future)."""
    n = proj.test_rows
    small = proj.cv_only or n < SMALL_TEST
    out: dict[str, Any] = {
        "mode": "cv_only" if proj.cv_only else "holdout",
        "test_rows": n,
        "threshold": SMALL_TEST,
        "small_test": bool(small and not proj.cv_only),
        "headline": "test",
        "repeated_cv": None,
    }
    if not small:
        return out
    if proj.time_ordered:
        out["headline"] = "forward_validation"
        return out
    out["headline"] = "repeated_cv"
    out["repeated_cv"] = repeated_cv(proj, algo, params)
    return out


def repeated_cv(proj: Project, algo: Algorithm, params: dict) -> dict:
    from sklearn.metrics import get_scorer
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold

    n = len(proj.X_train)
    repeats = 10 if n <= 1000 else 3
    if proj.classification:
        folds = max(2, min(proj.cv_folds, int(pd.Series(proj.y_train).value_counts().min())))
        cv = RepeatedStratifiedKFold(n_splits=folds, n_repeats=repeats, random_state=proj.seed)
    else:
        folds = min(proj.cv_folds, n // 2)
        cv = RepeatedKFold(n_splits=folds, n_repeats=repeats, random_state=proj.seed)
    scorer = get_scorer(scoring(proj)[0])
    scores = []
    for tr, va in cv.split(proj.X_train, proj.y_train):
        pipe, _ = build_pipeline(proj, algo, params, len(tr))
        pipe.fit(proj.X_train.iloc[tr], proj.y_train[tr])
        scores.append(float(scorer(pipe, proj.X_train.iloc[va], proj.y_train[va])))
    a = np.asarray(scores)
    return {
        "metric": scoring(proj)[1],
        "mean": float(a.mean()),
        "std": float(a.std()),
        "folds": folds,
        "repeats": repeats,
        "low": float(np.quantile(a, 0.1)),
        "high": float(np.quantile(a, 0.9)),
    }


def regression_metrics(y, p) -> dict:
    from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score

    y = np.asarray(y, dtype=float)
    p = np.asarray(p, dtype=float)
    nz = np.abs(y) > 1e-12
    return {
        "r2": float(r2_score(y, p)),
        "rmse": float(math.sqrt(mean_squared_error(y, p))),
        "mae": float(mean_absolute_error(y, p)),
        "mape": float(np.mean(np.abs((y[nz] - p[nz]) / y[nz])) * 100) if nz.any() else None,
    }


def classification_metrics(y, pred, proba, classes) -> dict:
    from sklearn.metrics import accuracy_score, confusion_matrix, f1_score, precision_score, recall_score, roc_auc_score

    binary = len(classes) == 2
    avg = "binary" if binary else "macro"
    kw = {"pos_label": classes[1]} if binary else {}
    out = {
        "accuracy": float(accuracy_score(y, pred)),
        "precision": float(precision_score(y, pred, average=avg, zero_division=0, **kw)),
        "recall": float(recall_score(y, pred, average=avg, zero_division=0, **kw)),
        "f1": float(f1_score(y, pred, average=avg, zero_division=0, **kw)),
        "roc_auc": None,
        "average": "binary (positive class " + classes[1] + ")" if binary else "macro",
    }
    if proba is not None and len(set(y)) > 1:
        try:
            if binary:
                out["roc_auc"] = float(roc_auc_score(np.asarray(y) == classes[1], proba[:, 1]))
            elif len(set(y)) == len(classes):
                out["roc_auc"] = float(roc_auc_score(y, proba, multi_class="ovr", labels=classes))
        except ValueError:
            pass
    out["confusion_matrix"] = confusion_matrix(y, pred, labels=classes).tolist()
    return out


def _thin(*arrays, k=MAX_POINTS):
    n = len(arrays[0])
    idx = _sample(n, k)
    return [np.asarray(a)[idx].tolist() if not isinstance(a, list) else [a[i] for i in idx] for a in arrays]


def _out_of_fold(proj: Project, algo: Algorithm, params: dict) -> tuple[np.ndarray, np.ndarray | None]:
    """Cross-validation-only evaluation: each row predicted by the model of the fold that did not train on it."""
    from sklearn.model_selection import cross_val_predict

    est, _ = build_pipeline(proj, algo, params, len(proj.X_train))
    cv = _cv(proj, proj.cv_folds)
    pred = cross_val_predict(est, proj.X_train, proj.y_train, cv=cv)
    proba = None
    if proj.classification and hasattr(est, "predict_proba"):
        proba = cross_val_predict(est, proj.X_train, proj.y_train, cv=cv, method="predict_proba")
    return pred, proba


def _supervised_report(proj: Project, algo: Algorithm, model: TrainedModel, log, params: dict | None = None, prof: Profile | None = None) -> dict:
    prof = prof or Profile()
    pipe = model.pipeline
    t_pred = time.monotonic()
    if proj.cv_only:  # the out-of-fold predictions of every row stand where a test set would
        Xte, yte = proj.X_train, proj.y_train
        pred_te, oof_proba = _out_of_fold(proj, algo, params or {})
    else:
        Xte, yte = proj.X_test, proj.y_test
        pred_te = pipe.predict(Xte)
    # training-set figures: every row, or on a large table a sample of TRAIN_METRIC_ROWS
    tr_idx = _sample(len(proj.X_train), TRAIN_METRIC_ROWS, proj.seed) if proj.large else None
    X_tr = proj.X_train if tr_idx is None else proj.X_train.iloc[tr_idx]
    y_tr_all = proj.y_train if tr_idx is None else proj.y_train[tr_idx]
    time_tr = proj.time_train if tr_idx is None or proj.time_train is None else [proj.time_train[i] for i in tr_idx]
    pred_tr = pipe.predict(X_tr)
    proba = None
    if proj.classification:
        if proj.cv_only:
            proba = oof_proba
        else:
            proba = pipe.predict_proba(Xte) if hasattr(pipe, "predict_proba") else None
    prof.steps["prediction"] = round(prof.steps.get("prediction", 0.0) + time.monotonic() - t_pred, 3)
    with prof.step("report_charts"):
        return _supervised_charts(proj, model, yte, pred_te, proba, y_tr_all, pred_tr, time_tr)


def _supervised_charts(proj: Project, model: TrainedModel, yte, pred_te, proba, y_tr_all, pred_tr, time_tr) -> dict:
    charts: dict[str, Any] = {}
    if proj.classification:
        metrics = classification_metrics(yte, pred_te, proba, proj.classes)
        train_metrics = {k: v for k, v in classification_metrics(y_tr_all, pred_tr, None, proj.classes).items() if k != "confusion_matrix"}
        charts["confusion_matrix"] = {"labels": proj.classes, "matrix": metrics["confusion_matrix"]}
        if proba is not None:
            charts["roc"] = _roc_curves(yte, proba, proj.classes)
        from sklearn.metrics import classification_report

        charts["per_class"] = classification_report(yte, pred_te, labels=proj.classes, output_dict=True, zero_division=0)
    else:
        ytr = y_tr_all
        if _target_scalings(model):
            # The condition scaled the target: figures a person reads (RMSE, MAE, MAPE, charts) in its own units.
            yte, pred_te = model.target_inverse(np.asarray(yte, dtype=float)), model.target_inverse(np.asarray(pred_te, dtype=float))
            ytr, pred_tr = model.target_inverse(np.asarray(ytr, dtype=float)), model.target_inverse(np.asarray(pred_tr, dtype=float))
        metrics = regression_metrics(yte, pred_te)
        train_metrics = regression_metrics(ytr, pred_tr)
        a, p = _thin(yte, pred_te)
        charts["predicted_vs_actual"] = {"actual": a, "predicted": p}
        charts["residuals"] = {"predicted": p, "residual": (np.asarray(a) - np.asarray(p)).tolist()}
        hist, edges = np.histogram(np.asarray(yte) - np.asarray(pred_te), bins=30)
        charts["residual_histogram"] = {"counts": hist.tolist(), "edges": edges.tolist()}
        if proj.project_type == "soft_sensor":
            idx_tr = _sample(len(pred_tr), MAX_POINTS)
            idx_te = _sample(len(pred_te), MAX_POINTS)
            charts["time_series"] = {
                "train": {
                    "time": [time_tr[i] for i in idx_tr],
                    "actual": np.asarray(ytr)[idx_tr].tolist(),
                    "predicted": np.asarray(pred_tr)[idx_tr].tolist(),
                },
                "test": {
                    "time": [proj.time_test[i] for i in idx_te],
                    "actual": np.asarray(yte)[idx_te].tolist(),
                    "predicted": np.asarray(pred_te)[idx_te].tolist(),
                },
            }
        coef = _coefficients(proj, model)
        if coef:
            charts["coefficients"] = coef
    scalings = [] if proj.classification else _target_scalings(model)
    target_units = {"scaled": bool(scalings), "target": proj.target, "method": ", ".join(scalings) or None}
    return {
        "metrics": metrics,
        "train_metrics": train_metrics,
        "charts": charts,
        "permutation_importance": [],
        "shap": None,
        "cv": None,
        "target_units": target_units,
    }


def _target_scalings(model: TrainedModel) -> list[str]:
    """The methods of the condition's fitted scalings of the target (none: the target keeps its units).
    Cross-validated R² is the same in either unit (an affine change), so only the report's other figures move."""
    out = []
    for step in (model.condition or {}).get("steps") or []:
        fitted = (step.get("fitted") or {}).get("columns") or {}
        if step.get("process_type") == "scaling" and model.target in fitted:
            out.append(str(step.get("method") or "scaling"))
    return out


def _roc_curves(y, proba, classes) -> list[dict]:
    from sklearn.metrics import auc, roc_curve

    out = []
    targets = [classes[1]] if len(classes) == 2 else classes
    for c in targets:
        i = classes.index(c)
        yy = np.asarray(y) == c
        if yy.all() or not yy.any():
            continue
        fpr, tpr, _ = roc_curve(yy, proba[:, i])
        if len(fpr) > 200:
            k = np.unique(np.linspace(0, len(fpr) - 1, 200).astype(int))
            fpr, tpr = fpr[k], tpr[k]
        out.append({"class": c, "fpr": fpr.tolist(), "tpr": tpr.tolist(), "auc": float(auc(fpr, tpr))})
    return out


def _coefficients(proj: Project, model: TrainedModel) -> list[dict] | None:
    """Linear models: coefficients on standardised inputs; ordinary least squares adds p-values (statsmodels)."""
    est = model.pipeline[-1]
    inner = getattr(est, "regressor_", est)
    coef = getattr(inner, "coef_", None)
    if coef is None or model.algorithm not in ("linear", "ridge", "lasso", "elastic_net", "pls"):
        return None
    names = list(model.pipeline[0].get_feature_names_out())
    coef = np.asarray(coef).reshape(-1)
    rows = [{"feature": n, "coefficient": float(c)} for n, c in zip(names, coef)]
    if model.algorithm == "linear":
        try:
            import statsmodels.api as sm

            Z = np.asarray(model.pipeline[0].transform(proj.X_train), dtype=float)
            if Z.shape[0] > Z.shape[1] + 1:
                fit = sm.OLS(proj.y_train, sm.add_constant(Z, has_constant="add")).fit()
                for r, p, se in zip(rows, fit.pvalues[1:], fit.bse[1:]):
                    r["std_error"] = float(se)
                    r["p_value"] = float(p)
                    r["significant"] = bool(p < proj.significance_level)
        except Exception:  # noqa: BLE001 - p-values are a bonus; the coefficients stand without them
            pass
    return rows


def _permutation(proj: Project, pipe) -> list[dict]:
    from sklearn.inspection import permutation_importance

    if proj.cv_only:
        return []  # no rows the model has not seen: importance on training rows would flatter it

    wide = len(proj.X_test.columns) > 20
    idx = _sample(len(proj.X_test), IMPORTANCE_ROWS // 2 if wide else IMPORTANCE_ROWS, proj.seed)
    X, y = proj.X_test.iloc[idx], proj.y_test[idx]
    r = permutation_importance(pipe, X, y, scoring=scoring(proj)[0], n_repeats=3 if wide else 5, random_state=proj.seed, n_jobs=1)
    rows = [{"feature": c, "mean": float(m), "std": float(s)} for c, m, s in zip(X.columns, r.importances_mean, r.importances_std)]
    return sorted(rows, key=lambda r: -r["mean"])


def _shap(proj: Project, algo: Algorithm, pipe, log) -> list[dict] | None:
    if not algo.tree:
        return None
    try:
        import shap

        est = pipe[-1]
        if isinstance(est, Balanced):
            est = est.estimator
        X = proj.X_train if proj.cv_only else proj.X_test  # SHAP explains the model, on rows of the data
        idx = _sample(len(X), SHAP_ROWS, proj.seed)
        Z = pipe[0].transform(X.iloc[idx])
        if isinstance(pipe[0], NativeFrame):
            # category columns as they are: LightGBM's own TreeSHAP (pred_contrib), one value per input and class
            contrib = np.asarray(est.booster_.predict(Z, pred_contrib=True))
            k = Z.shape[1] + 1
            per_class = contrib.reshape(len(Z), -1, k)[:, :, :-1]
            mean = np.abs(per_class).mean(axis=0).sum(axis=0)
            rows = [{"feature": n, "mean_abs": float(v)} for n, v in zip(Z.columns, mean)]
            return sorted(rows, key=lambda r: -r["mean_abs"])
        values = shap.TreeExplainer(est).shap_values(np.asarray(Z, dtype=float), check_additivity=False)
        arr = np.stack(values, axis=-1) if isinstance(values, list) else np.asarray(values)
        mean = np.abs(arr).mean(axis=0)
        if mean.ndim > 1:
            mean = mean.sum(axis=-1)
        rows = [{"feature": n, "mean_abs": float(v)} for n, v in zip(Z.columns, mean)]
        return sorted(rows, key=lambda r: -r["mean_abs"])
    except Exception as exc:  # noqa: BLE001
        log(f"SHAP values could not be computed: {exc}")
        return None


def _pca2(Z: np.ndarray) -> tuple[np.ndarray, list[float]]:
    from sklearn.decomposition import PCA

    k = min(2, Z.shape[1])
    p = PCA(n_components=k, random_state=0).fit(Z)
    xy = p.transform(Z)
    if k == 1:
        xy = np.column_stack([xy[:, 0], np.zeros(len(xy))])
    return xy, p.explained_variance_ratio_.tolist()


def _clustering_report(proj: Project, algo: Algorithm, model: TrainedModel, Z: np.ndarray, params: dict) -> dict:
    from sklearn.metrics import calinski_harabasz_score, davies_bouldin_score, silhouette_score
    from sklearn.neighbors import KNeighborsClassifier

    est = model.pipeline[-1]
    labels = getattr(est, "labels_", None)
    if labels is None:
        labels = est.predict(Z)
    labels = np.asarray(labels).astype(int)
    if not hasattr(est, "predict"):
        # hierarchical and DBSCAN have no predict: new rows join the nearest (core) training point's cluster
        if algorithm_is_dbscan(est):
            core = np.asarray(getattr(est, "core_sample_indices_", []), dtype=int)
            if len(core):
                model.assigner = KNeighborsClassifier(n_neighbors=1).fit(Z[core], labels[core])
                model.assign_radius = float(est.eps)
        else:
            model.assigner = KNeighborsClassifier(n_neighbors=1).fit(Z, labels)
    mask = labels >= 0
    found = sorted(set(labels[mask].tolist()))
    metrics: dict[str, Any] = {"n_clusters": len(found), "noise": int((~mask).sum())}
    if len(found) >= 2:
        idx = _sample(int(mask.sum()), 5000, proj.seed)
        Zm, lm = Z[mask][idx], labels[mask][idx]
        metrics["silhouette"] = float(silhouette_score(Zm, lm))
        metrics["davies_bouldin"] = float(davies_bouldin_score(Zm, lm))
        metrics["calinski_harabasz"] = float(calinski_harabasz_score(Zm, lm))
    else:
        metrics.update({"silhouette": None, "davies_bouldin": None, "calinski_harabasz": None})
    sizes = pd.Series(labels).value_counts().sort_index()
    metrics["cluster_sizes"] = {str(k): int(v) for k, v in sizes.items()}
    xy, evr = _pca2(Z)
    idx = _sample(len(Z), MAX_POINTS, proj.seed)
    charts: dict[str, Any] = {"pca_scatter": {"x": xy[idx, 0].tolist(), "y": xy[idx, 1].tolist(), "cluster": labels[idx].tolist(), "explained": evr}}
    num = [c for c, k in proj.kinds.items() if k == "numeric"]
    prof = proj.X_train[num].assign(_c=labels).groupby("_c").mean()
    charts["profiles"] = {"features": num, "clusters": [str(c) for c in prof.index], "means": prof.to_numpy().tolist()}
    if algo.key == "kmeans":
        charts["elbow"] = _elbow(Z, proj.seed)
    if algo.key == "hierarchical":
        charts["dendrogram"] = _dendrogram(Z, params.get("linkage", "ward"), proj.seed)
    return {"metrics": metrics, "train_metrics": {}, "charts": charts, "permutation_importance": _cluster_importance(proj, Z, labels), "shap": None}


def algorithm_is_dbscan(est) -> bool:
    return type(est).__name__ == "DBSCAN"


def _cluster_importance(proj: Project, Z: np.ndarray, labels: np.ndarray) -> list[dict]:
    """Which inputs separate the clusters: permutation importance of a forest that predicts the cluster."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.inspection import permutation_importance
    from sklearn.pipeline import Pipeline

    if len(set(labels.tolist())) < 2:
        return []
    idx = _sample(len(Z), IMPORTANCE_ROWS, proj.seed)
    pre = D.make_preprocessor(proj.kinds, True, 0.0)
    pipe = Pipeline([("p", pre), ("m", RandomForestClassifier(n_estimators=60, random_state=proj.seed, n_jobs=THREADS))])
    X = proj.X_train.iloc[idx]
    pipe.fit(X, labels[idx])
    r = permutation_importance(pipe, X, labels[idx], n_repeats=3, random_state=proj.seed, n_jobs=1)
    rows = [{"feature": c, "mean": float(m), "std": float(s)} for c, m, s in zip(X.columns, r.importances_mean, r.importances_std)]
    return sorted(rows, key=lambda r: -r["mean"])


def _elbow(Z: np.ndarray, seed: int) -> dict:
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score

    idx = _sample(len(Z), UNSUP_SCORE_ROWS, seed)
    Zs = Z[idx]
    ks, inertia, sil = [], [], []
    for k in range(2, min(11, len(Zs))):
        km = KMeans(n_clusters=k, n_init=4, random_state=seed).fit(Zs)
        ks.append(k)
        inertia.append(float(km.inertia_))
        sil.append(float(silhouette_score(Zs, km.labels_)) if len(set(km.labels_)) > 1 else None)
    return {"k": ks, "inertia": inertia, "silhouette": sil}


def _dendrogram(Z: np.ndarray, linkage: str, seed: int) -> dict:
    from scipy.cluster.hierarchy import dendrogram
    from scipy.cluster.hierarchy import linkage as link

    idx = _sample(len(Z), 2000, seed)
    L = link(Z[idx], method=linkage)
    d = dendrogram(L, truncate_mode="lastp", p=30, no_plot=True)
    return {"icoord": d["icoord"], "dcoord": d["dcoord"], "leaves": [str(v) for v in d["ivl"]]}


def _compression_report(proj: Project, algo: Algorithm, model: TrainedModel, Z: np.ndarray, emb: np.ndarray) -> dict:
    from sklearn.manifold import trustworthiness

    est = model.pipeline[-1]
    emb = np.asarray(emb)
    idx = _sample(len(emb), MAX_POINTS, proj.seed)
    charts: dict[str, Any] = {
        "map": {
            "x": emb[idx, 0].tolist(),
            "y": (emb[idx, 1] if emb.shape[1] > 1 else np.zeros(len(idx))).tolist(),
            "color": None if proj.color is None else proj.color[idx].tolist(),
            "color_label": proj.target,
        }
    }
    metrics: dict[str, Any] = {"n_components": int(emb.shape[1]), "rows": int(len(emb))}
    names = list(model.pipeline[0].get_feature_names_out())
    if algo.key == "pca":
        evr = est.explained_variance_ratio_
        metrics["explained_variance"] = float(evr.sum())
        metrics["explained_variance_ratio"] = evr.tolist()
        from sklearn.decomposition import PCA

        full = PCA(random_state=0).fit(Z)
        charts["scree"] = {"ratio": full.explained_variance_ratio_[:30].tolist(), "cumulative": np.cumsum(full.explained_variance_ratio_)[:30].tolist()}
        charts["loadings"] = {"features": names, "components": est.components_.tolist()}
        # arrows reach to where most points lie (an outlier would otherwise stretch them off the cloud)
        scale = float(np.quantile(np.abs(emb[:, :2]), 0.98)) if emb.size else 1.0
        comp = est.components_[:2] if est.components_.shape[0] > 1 else np.vstack([est.components_, np.zeros_like(est.components_)])
        charts["biplot"] = {"features": names, "x": (comp[0] * scale).tolist(), "y": (comp[1] * scale).tolist()}
    s = _sample(len(Z), 1000, proj.seed)
    if len(s) > 12:
        metrics["trustworthiness"] = float(trustworthiness(Z[s], emb[s], n_neighbors=min(5, len(s) // 2 - 1)))
    return {"metrics": metrics, "train_metrics": {}, "charts": charts, "permutation_importance": _loading_importance(names, est), "shap": None}


def _loading_importance(names, est) -> list[dict]:
    """PCA: a feature's weight is its squared loadings weighted by explained variance (maps have none)."""
    comps = getattr(est, "components_", None)
    if comps is None:
        return []
    w = np.asarray(est.explained_variance_ratio_)[:, None] * np.asarray(comps) ** 2
    rows = [{"feature": n, "mean": float(v), "std": 0.0} for n, v in zip(names, w.sum(axis=0))]
    return sorted(rows, key=lambda r: -r["mean"])
