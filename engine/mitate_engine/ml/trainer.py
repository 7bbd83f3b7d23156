"""Training one model of a project: auto-tune (Optuna under cross-validation), fit, evaluate, explain, package.

`prepare_project` (ml/project.py) turns the table and the project settings into the shared train/test frames once;
`train_model` then trains one algorithm on them and returns its report (metrics, charts, importances, CV folds,
parameters). The estimator and its validation live in ml/pipeline.py, auto-tune in ml/tuning.py, the reports in
ml/reports.py and ml/unsupervised_report.py, the large-table rules and the LightGBM fit (`fit_lightgbm`) in ml/scale.py.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..encoding import to_jsonable
from ..lang import say
from ..task import EngineError
from . import data as D
from . import distributed
from .algorithms import Algorithm, get_algorithm
from .model import TrainedModel
from .model_io import save_model
from .pipeline import build_pipeline, cv_evaluate, scoring
from .project import CV_ONLY_MAX_ROWS, Project, prepare_project
from .reports import IMPORTANCE_ROWS, MAX_POINTS, SHAP_ROWS, _permutation, _shap, _supervised_report, evaluation
from .scale import TRAIN_METRIC_ROWS, FitHooks, Profile, fit_pipeline, fit_streamed_pipeline, sampling
from .stream import stream_rows
from .tuning import join_tuning, tune
from .unsupervised_report import _clustering_report, _compression_report

__all__ = ["CV_ONLY_MAX_ROWS", "Project", "join_tuning", "prepare_project", "train_model"]


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
    n_rows = proj.train_rows
    if algo.max_rows and n_rows > algo.max_rows:
        raise EngineError("algorithm_row_limit", algorithm=algo.label, max=algo.max_rows, rows=n_rows)
    if proj.stream and algorithm != "lightgbm":  # only LightGBM trains on a table too large to hold (ml/stream.py)
        raise EngineError("algorithm_row_limit", algorithm=algo.label, max=stream_rows() - 1, rows=n_rows)
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
            progress(0.05 + 0.7 * i / n, say("job_trial", proj.lang, label=label, i=str(i), n=str(n), best=b))
            event("trial", model=label, trial=i, of=n, value=value, best=best)
            log(f"{label}: trial {i}/{n} score {v} best {b}")

        with prof.step("auto_tune"):
            params, trials, folds = tune(proj, algo, params, report, timeout=time_budget, Z=Z_all, study_key=study_key)
        log(f"{label}: best parameters {json.dumps(to_jsonable(params))}")
    progress(0.78, say("job_fitting", proj.lang, label=label, rows=f"{n_rows:,}"))
    with warnings.catch_warnings(), prof.step("final_fit"):
        warnings.simplefilter("ignore")
        pipe, params = build_pipeline(proj, algo, params, n_rows)
        trained_on = None  # or where the boosting ran: the Dask cluster (MITATE_DASK_SCHEDULER, ml/distributed.py)
        if proj.supervised:
            trained_on = _final_fit(pipe, proj, algorithm, progress, log, label)
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
    progress(0.85, say("job_evaluating", proj.lang, label=label))
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
            "test_rows": proj.test_rows,
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
    progress(0.9, say("job_packaging", proj.lang, label=label))
    with prof.step("writing"):
        save_model(model, out_dir, rep["metrics"])
        _write_report(out_dir, rep)
    if not proj.supervised:
        return rep
    # The model is usable from here (it predicts, its test metrics are known): say so before the slower explanations.
    if on_ready:
        on_ready(rep)
    progress(0.93, say("job_cv_and_importance", proj.lang, label=label))
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
        progress(0.98, say("job_importance", proj.lang, label=label))
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


def _final_fit(pipe, proj: Project, algorithm: str, progress, log, label: str) -> dict | None:
    """A supervised model's final fit: on the Dask cluster when configured (its description returned), else here on
    every training row — read again row group by row group when the table is too large to hold (ml/stream.py)."""
    trained_on = distributed.fit_on_cluster(pipe, proj, algorithm, progress, log, label)
    if trained_on is None:
        hooks = FitHooks(progress, say("job_final_fit", proj.lang, label=label), (0.78, 0.85), proj.lang)
        fit_streamed_pipeline(pipe, proj, hooks) if proj.stream else fit_pipeline(pipe, proj.X_train, proj.y_train, hooks)
    return trained_on


def _write_report(out_dir: Path, rep: dict) -> None:
    """report.json replaced whole (written beside, then renamed): a reader never sees half a report."""
    tmp = out_dir / "report.json.tmp"
    tmp.write_text(json.dumps(rep), encoding="utf-8")
    tmp.replace(out_dir / "report.json")


def model_sampling(proj: Project, algo: Algorithm) -> dict | None:
    """The rows each step used (the report page states the rule)."""
    if not proj.supervised:
        return None
    n = proj.train_rows
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
