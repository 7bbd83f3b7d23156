"""A supervised model's report: metrics, charts, the trust in its figures (evaluation), importances and SHAP — on
samples where the table is large, nothing quadratic in rows."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import pandas as pd

from .algorithms import Algorithm
from .model import TrainedModel
from .pipeline import Balanced, _cv, _sample, build_pipeline, scoring
from .project import Project
from .scale import TRAIN_METRIC_ROWS, NativeFrame, Profile
from .stream import predict_test

MAX_POINTS = 2000  # points per scatter chart in a report
IMPORTANCE_ROWS = 2000
SHAP_ROWS = 400
SMALL_TEST = 30  # below this many test rows a hold-out score is too noisy to be the headline


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
    elif proj.stream:  # a table too large to hold: every test row, read and predicted row group by row group
        yte, pred_te, stream_proba = predict_test(pipe, proj)
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
        elif proj.stream:
            proba = stream_proba
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
