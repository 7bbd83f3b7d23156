"""Reports of clustering and dimensional compression models."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from . import data as D
from .algorithms import THREADS, Algorithm
from .model import TrainedModel
from .pipeline import UNSUP_SCORE_ROWS, _sample
from .project import Project
from .reports import IMPORTANCE_ROWS, MAX_POINTS


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
