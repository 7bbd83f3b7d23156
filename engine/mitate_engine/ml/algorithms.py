"""Algorithms of each tabular training type, with their editable hyper-parameters, defaults and search spaces.

One `Algorithm` per (type, key): `params` lists what the wizard shows (with the library default) and what Optuna
searches; `build(params, ctx)` returns an unfitted estimator that takes the already-encoded feature matrix.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SUPERVISED = ("regression", "soft_sensor", "discriminant_analysis")


def ml_threads(env=os.environ) -> int:
    """Threads per model fit: MITATE_ML_THREADS, or by default the cores this worker may use divided by the local pool's
    workers (MITATE_WORKERS, 2 unless set), so one job alone uses its share and several never oversubscribe: OpenMP
    threads competing for busy cores made LightGBM several times slower in our measurements."""
    given = env.get("MITATE_ML_THREADS")
    if given:
        return max(1, int(given))
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    workers = max(1, int(env.get("MITATE_WORKERS") or 2))
    return max(1, cores // workers)


THREADS = ml_threads()


# A parameter whose meaning differs by algorithm has its own texts (ml_param_<text>, ml_param_<text>_help).
PARAM_TEXT = {
    ("pls", "n_components"): "pls_n_components",
    ("pca", "n_components"): "pca_n_components",
    ("tsne", "n_components"): "map_n_components",
    ("umap", "n_components"): "map_n_components",
    ("gaussian_mixture", "n_components"): "mixture_n_components",
    ("gaussian_process", "alpha"): "gp_alpha",
    ("gaussian_process", "kernel"): "gp_kernel",
    ("mlp", "alpha"): "mlp_alpha",
    ("umap", "n_neighbors"): "umap_n_neighbors",
    ("tsne", "learning_rate"): "tsne_learning_rate",
}


@dataclass
class Param:
    name: str
    kind: str  # int | float | choice | bool
    default: Any
    low: float | None = None
    high: float | None = None
    log: bool = False
    choices: list | None = None
    tune: bool = True  # part of the auto-tune search

    def describe(self, algorithm: str) -> dict:
        """The catalogue entry: figures, and message keys (engine/mitate_engine/messages.json) for the label and help."""
        text = f"ml_param_{PARAM_TEXT.get((algorithm, self.name), self.name)}"
        out = {**{k: v for k, v in self.__dict__.items() if v is not None}, "label_key": text, "help_key": f"{text}_help"}
        if self.choices:
            # Each choice in words a person reads (ml_choice_<param>_<value>); a plain number stands for itself (null).
            out["choice_keys"] = [
                None if re.fullmatch(r"\d+(\.\d+)?", str(c)) else f"ml_choice_{self.name}_{re.sub(r'[^a-z0-9]+', '_', str(c).lower())}" for c in self.choices
            ]
        return out

    def coerce(self, value: Any) -> Any:
        if value is None or value == "":
            return self.default
        if self.kind == "int":
            v = int(round(float(value)))
        elif self.kind == "float":
            v = float(value)
        elif self.kind == "bool":
            v = value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes")
            return v
        else:
            if self.choices and value not in self.choices and str(value) not in [str(c) for c in self.choices]:
                raise ValueError(f'"{value}" is not one of {", ".join(map(str, self.choices))}')
            return next((c for c in self.choices or [value] if str(c) == str(value)), value)
        if self.low is not None and v < self.low:
            raise ValueError(f"must be at least {self.low}")
        return v

    def suggest(self, trial) -> Any:
        if self.kind == "int":
            return trial.suggest_int(self.name, int(self.low), int(self.high), log=self.log)
        if self.kind == "float":
            return trial.suggest_float(self.name, float(self.low), float(self.high), log=self.log)
        if self.kind == "bool":
            return trial.suggest_categorical(self.name, [True, False])
        return trial.suggest_categorical(self.name, list(self.choices))


@dataclass
class BuildContext:
    n_rows: int
    n_features: int
    n_classes: int = 0
    balance: bool = False
    seed: int = 0


@dataclass
class Algorithm:
    key: str
    label: str
    params: list[Param]
    build: Callable[[dict, BuildContext], Any]
    scale: bool = True  # standardise numeric inputs first
    tree: bool = False  # SHAP TreeExplainer applies
    max_rows: int | None = None  # beyond this many training rows the algorithm refuses (cubic cost)
    balance_native: bool = False  # handles class balance through class_weight
    adjust: Callable[[dict, BuildContext], dict] | None = None  # clamps params to the data (e.g. PLS components)

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.params}

    def coerce(self, given: dict | None) -> dict:
        out = self.defaults()
        errors = []
        for p in self.params:
            if given and p.name in given:
                try:
                    out[p.name] = p.coerce(given[p.name])
                except (TypeError, ValueError) as exc:
                    errors.append(f"{self.label} {p.name}: {exc}")
        if errors:
            raise ValueError("; ".join(errors))
        return out

    def describe(self) -> dict:
        """The catalogue entry: the name is a message key (ml_algorithm_<key>), no English text."""
        return {"key": self.key, "name_key": f"ml_algorithm_{self.key}", "tree": self.tree, "params": [p.describe(self.key) for p in self.params]}


def _none_if_zero(v):
    return None if not v else int(v)


def _hidden(v: str) -> tuple:
    parts = [int(x) for x in str(v).replace(";", ",").split(",") if x.strip()]
    return tuple(parts) or (100,)


def _pls_adjust(p: dict, c: BuildContext) -> dict:
    return {**p, "n_components": max(1, min(int(p["n_components"]), c.n_features, max(1, c.n_rows - 1)))}


def _clusters_adjust(name: str):
    def f(p: dict, c: BuildContext) -> dict:
        return {**p, name: max(1, min(int(p[name]), max(1, c.n_rows - 1)))}

    return f


# ---- regression and soft sensor ----------------------------------------------------------------------------


def _linear(p, c):
    from sklearn.linear_model import LinearRegression

    return LinearRegression(fit_intercept=p["fit_intercept"])


def _ridge(p, c):
    from sklearn.linear_model import Ridge

    return Ridge(alpha=p["alpha"], random_state=c.seed)


def _lasso(p, c):
    from sklearn.linear_model import Lasso

    return Lasso(alpha=p["alpha"], max_iter=int(p["max_iter"]), random_state=c.seed)


def _enet(p, c):
    from sklearn.linear_model import ElasticNet

    return ElasticNet(alpha=p["alpha"], l1_ratio=p["l1_ratio"], max_iter=int(p["max_iter"]), random_state=c.seed)


def _pls(p, c):
    from sklearn.cross_decomposition import PLSRegression

    return PLSRegression(n_components=int(p["n_components"]), scale=False)


def _svr(p, c):
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVR

    return TransformedTargetRegressor(SVR(C=p["C"], epsilon=p["epsilon"], kernel=p["kernel"], gamma=p["gamma"]), transformer=StandardScaler())


def _knn_reg(p, c):
    from sklearn.neighbors import KNeighborsRegressor

    return KNeighborsRegressor(n_neighbors=min(int(p["n_neighbors"]), max(1, c.n_rows - 1)), weights=p["weights"], p=int(p["p"]))


def _forest_params(p, c):
    """The _TREE parameters as the keyword arguments of scikit-learn's forests (random and extra trees)."""
    return dict(
        n_estimators=int(p["n_estimators"]),
        max_depth=_none_if_zero(p["max_depth"]),
        min_samples_leaf=int(p["min_samples_leaf"]),
        max_features=p["max_features"],
        random_state=c.seed,
        n_jobs=THREADS,
    )


def _rf_reg(p, c):
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor(**_forest_params(p, c))


def _et_reg(p, c):
    from sklearn.ensemble import ExtraTreesRegressor

    return ExtraTreesRegressor(**_forest_params(p, c))


def _lgbm_params(p, c):
    return dict(
        n_estimators=int(p["n_estimators"]),
        learning_rate=p["learning_rate"],
        num_leaves=int(p["num_leaves"]),
        min_child_samples=int(p["min_child_samples"]),
        subsample=p["subsample"],
        subsample_freq=1 if p["subsample"] < 1 else 0,
        colsample_bytree=p["colsample_bytree"],
        reg_lambda=p["reg_lambda"],
        random_state=c.seed,
        n_jobs=THREADS,
        verbose=-1,
    )


def _lgbm_reg(p, c):
    from lightgbm import LGBMRegressor

    return LGBMRegressor(**_lgbm_params(p, c))


def _gp_reg(p, c):
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern, WhiteKernel

    base = RBF(length_scale=p["length_scale"]) if p["kernel"] == "rbf" else Matern(length_scale=p["length_scale"], nu=1.5)
    kernel = ConstantKernel(1.0) * base + WhiteKernel(noise_level=p["noise_level"])
    gp = GaussianProcessRegressor(kernel=kernel, alpha=p["alpha"], n_restarts_optimizer=int(p["n_restarts_optimizer"]), normalize_y=False, random_state=c.seed)
    from sklearn.preprocessing import StandardScaler

    return TransformedTargetRegressor(gp, transformer=StandardScaler())


def _mlp_reg(p, c):
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.neural_network import MLPRegressor
    from sklearn.preprocessing import StandardScaler

    m = MLPRegressor(
        hidden_layer_sizes=_hidden(p["hidden_layer_sizes"]),
        alpha=p["alpha"],
        learning_rate_init=p["learning_rate_init"],
        max_iter=int(p["max_iter"]),
        early_stopping=c.n_rows >= 200,
        random_state=c.seed,
    )
    return TransformedTargetRegressor(m, transformer=StandardScaler())


_TREE = [
    Param("n_estimators", "int", 100, 20, 500, log=True),
    Param("max_depth", "int", 0, 0, 30),
    Param("min_samples_leaf", "int", 1, 1, 20, log=True),
    Param("max_features", "float", 1.0, 0.1, 1.0),
]
_LGBM = [
    Param("n_estimators", "int", 100, 20, 1000, log=True),
    Param("learning_rate", "float", 0.1, 0.005, 0.3, log=True),
    Param("num_leaves", "int", 31, 4, 256, log=True),
    Param("min_child_samples", "int", 20, 2, 100, log=True),
    Param("subsample", "float", 1.0, 0.5, 1.0),
    Param("colsample_bytree", "float", 1.0, 0.3, 1.0),
    Param("reg_lambda", "float", 0.0, 0.0, 10.0),
]
_GP = [
    Param("kernel", "choice", "rbf", choices=["rbf", "matern"]),
    Param("length_scale", "float", 1.0, 0.05, 20.0, log=True),
    Param("noise_level", "float", 1.0, 1e-5, 1.0, log=True),
    Param("alpha", "float", 1e-10, 1e-12, 1e-2, log=True),
    Param("n_restarts_optimizer", "int", 0, 0, 3, tune=False),
]
_RIDGE = [Param("alpha", "float", 1.0, 1e-4, 1e5, log=True)]
_LASSO = [Param("alpha", "float", 1.0, 1e-5, 10.0, log=True), Param("max_iter", "int", 1000, 100, 100000, tune=False)]
_PLS = [Param("n_components", "int", 2, 1, 20)]
_KNN = [Param("n_neighbors", "int", 5, 1, 50), Param("weights", "choice", "uniform", choices=["uniform", "distance"]), Param("p", "int", 2, 1, 2)]

REGRESSION = [
    Algorithm("linear", "Linear regression", [Param("fit_intercept", "bool", True, tune=False)], _linear),
    Algorithm("ridge", "Ridge", _RIDGE, _ridge),
    Algorithm("lasso", "Lasso", _LASSO, _lasso),
    Algorithm(
        "elastic_net",
        "Elastic net",
        [
            Param("alpha", "float", 1.0, 1e-5, 10.0, log=True),
            Param("l1_ratio", "float", 0.5, 0.0, 1.0),
            Param("max_iter", "int", 1000, 100, 100000, tune=False),
        ],
        _enet,
    ),
    Algorithm("pls", "PLS", _PLS, _pls, adjust=_pls_adjust),
    Algorithm(
        "svr",
        "SVR",
        [
            Param("C", "float", 1.0, 1e-2, 1e3, log=True),
            Param("epsilon", "float", 0.1, 1e-3, 1.0, log=True),
            Param("kernel", "choice", "rbf", choices=["rbf", "linear", "poly", "sigmoid"]),
            Param("gamma", "choice", "scale", choices=["scale", "auto"]),
        ],
        _svr,
        max_rows=20000,
    ),
    Algorithm(
        "knn",
        "k-nearest neighbours",
        _KNN,
        _knn_reg,
    ),
    Algorithm("random_forest", "Random forest", _TREE, _rf_reg, scale=False, tree=True),
    Algorithm("extra_trees", "Extra trees", _TREE, _et_reg, scale=False, tree=True),
    Algorithm("lightgbm", "LightGBM", _LGBM, _lgbm_reg, scale=False, tree=True),
    Algorithm("gaussian_process", "Gaussian process", _GP, _gp_reg, max_rows=3000),
    Algorithm(
        "mlp",
        "MLP (neural network)",
        [
            Param("hidden_layer_sizes", "choice", "100", choices=["50", "100", "100,50", "200,100", "64,64,64"]),
            Param("alpha", "float", 1e-4, 1e-6, 1e-1, log=True),
            Param("learning_rate_init", "float", 1e-3, 1e-4, 1e-1, log=True),
            Param("max_iter", "int", 500, 50, 2000, tune=False),
        ],
        _mlp_reg,
    ),
]

SOFT_SENSOR = [a for a in REGRESSION if a.key in ("pls", "ridge", "lasso", "random_forest", "lightgbm", "gaussian_process")]


# ---- discriminant analysis --------------------------------------------------------------------------------


def _cw(c: BuildContext):
    return "balanced" if c.balance else None


def _lda(p, c):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    if p["solver"] == "svd":
        return LinearDiscriminantAnalysis(solver="svd")
    return LinearDiscriminantAnalysis(solver=p["solver"], shrinkage="auto" if p["shrinkage"] else None)


def _qda(p, c):
    from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis

    return QuadraticDiscriminantAnalysis(reg_param=p["reg_param"])


def _logistic(p, c):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=p["C"], max_iter=int(p["max_iter"]), class_weight=_cw(c))


def _svc(p, c):
    from sklearn.svm import SVC

    return SVC(C=p["C"], kernel=p["kernel"], gamma=p["gamma"], probability=True, class_weight=_cw(c), random_state=c.seed)


def _knn_clf(p, c):
    from sklearn.neighbors import KNeighborsClassifier

    return KNeighborsClassifier(n_neighbors=min(int(p["n_neighbors"]), max(1, c.n_rows - 1)), weights=p["weights"], p=int(p["p"]))


def _rf_clf(p, c):
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(**_forest_params(p, c), class_weight=_cw(c))


def _lgbm_clf(p, c):
    from lightgbm import LGBMClassifier

    return LGBMClassifier(**_lgbm_params(p, c), class_weight=_cw(c))


DISCRIMINANT = [
    Algorithm(
        "lda",
        "Linear discriminant analysis",
        [
            Param("solver", "choice", "svd", choices=["svd", "lsqr", "eigen"]),
            Param("shrinkage", "bool", False),
        ],
        _lda,
    ),
    Algorithm("qda", "Quadratic discriminant analysis", [Param("reg_param", "float", 0.0, 0.0, 1.0)], _qda),
    Algorithm(
        "logistic",
        "Logistic regression",
        [Param("C", "float", 1.0, 1e-3, 1e3, log=True), Param("max_iter", "int", 1000, 100, 10000, tune=False)],
        _logistic,
        balance_native=True,
    ),
    Algorithm(
        "svm",
        "Support vector machine",
        [
            Param("C", "float", 1.0, 1e-2, 1e3, log=True),
            Param("kernel", "choice", "rbf", choices=["rbf", "linear", "poly"]),
            Param("gamma", "choice", "scale", choices=["scale", "auto"]),
        ],
        _svc,
        max_rows=20000,
        balance_native=True,
    ),
    Algorithm(
        "knn",
        "k-nearest neighbours",
        _KNN,
        _knn_clf,
    ),
    Algorithm("random_forest", "Random forest", _TREE, _rf_clf, scale=False, tree=True, balance_native=True),
    Algorithm("lightgbm", "LightGBM", _LGBM, _lgbm_clf, scale=False, tree=True, balance_native=True),
]


# ---- clustering ------------------------------------------------------------------------------------------


def _kmeans(p, c):
    from sklearn.cluster import KMeans

    return KMeans(n_clusters=int(p["n_clusters"]), n_init=int(p["n_init"]), random_state=c.seed)


def _agglo(p, c):
    from sklearn.cluster import AgglomerativeClustering

    return AgglomerativeClustering(n_clusters=int(p["n_clusters"]), linkage=p["linkage"])


def _dbscan(p, c):
    from sklearn.cluster import DBSCAN

    return DBSCAN(eps=p["eps"], min_samples=int(p["min_samples"]))


def _gmm(p, c):
    from sklearn.mixture import GaussianMixture

    return GaussianMixture(n_components=int(p["n_components"]), covariance_type=p["covariance_type"], random_state=c.seed)


CLUSTERING = [
    Algorithm(
        "kmeans",
        "k-means",
        [Param("n_clusters", "int", 3, 2, 12), Param("n_init", "int", 10, 1, 50, tune=False)],
        _kmeans,
        adjust=_clusters_adjust("n_clusters"),
    ),
    Algorithm(
        "hierarchical",
        "Hierarchical (Ward)",
        [Param("n_clusters", "int", 3, 2, 12), Param("linkage", "choice", "ward", choices=["ward", "complete", "average", "single"])],
        _agglo,
        max_rows=20000,
        adjust=_clusters_adjust("n_clusters"),
    ),
    Algorithm("dbscan", "DBSCAN", [Param("eps", "float", 0.5, 0.05, 5.0, log=True), Param("min_samples", "int", 5, 2, 50)], _dbscan, max_rows=100000),
    Algorithm(
        "gaussian_mixture",
        "Gaussian mixture",
        [Param("n_components", "int", 3, 2, 12), Param("covariance_type", "choice", "full", choices=["full", "tied", "diag", "spherical"])],
        _gmm,
        adjust=_clusters_adjust("n_components"),
    ),
]


# ---- dimensional compression ---------------------------------------------------------------------------


def _pca(p, c):
    from sklearn.decomposition import PCA

    return PCA(n_components=max(1, min(int(p["n_components"]), c.n_features, c.n_rows)), random_state=c.seed)


def _tsne(p, c):
    from .embedders import OpenTSNE

    return OpenTSNE(
        n_components=int(p["n_components"]),
        perplexity=min(float(p["perplexity"]), max(2.0, (c.n_rows - 1) / 3)),
        learning_rate=p["learning_rate"],
        n_iter=int(p["n_iter"]),
        seed=c.seed,
    )


def _umap(p, c):
    from .embedders import Umap

    return Umap(n_components=int(p["n_components"]), n_neighbors=min(int(p["n_neighbors"]), max(2, c.n_rows - 1)), min_dist=p["min_dist"], seed=c.seed)


DIMENSIONAL = [
    Algorithm("pca", "PCA", [Param("n_components", "int", 2, 1, 20, tune=False)], _pca),
    Algorithm(
        "tsne",
        "t-SNE (openTSNE)",
        [
            Param("n_components", "int", 2, 2, 3, tune=False),
            Param("perplexity", "float", 30.0, 5.0, 100.0),
            Param("learning_rate", "choice", "auto", choices=["auto", "200", "500", "1000"], tune=False),
            Param("n_iter", "int", 500, 250, 2000, tune=False),
        ],
        _tsne,
        max_rows=100000,
    ),
    Algorithm(
        "umap",
        "UMAP",
        [Param("n_components", "int", 2, 2, 3, tune=False), Param("n_neighbors", "int", 15, 2, 100), Param("min_dist", "float", 0.1, 0.0, 0.99)],
        _umap,
        max_rows=200000,
    ),
]

REGISTRY: dict[str, dict[str, Algorithm]] = {
    "regression": {a.key: a for a in REGRESSION},
    "soft_sensor": {a.key: a for a in SOFT_SENSOR},
    "discriminant_analysis": {a.key: a for a in DISCRIMINANT},
    "clustering": {a.key: a for a in CLUSTERING},
    "dimensional_compression": {a.key: a for a in DIMENSIONAL},
}


def get_algorithm(project_type: str, key: str) -> Algorithm:
    try:
        return REGISTRY[project_type][key]
    except KeyError:
        raise KeyError(f'unknown algorithm "{key}" for {project_type}') from None


def catalogue() -> dict:
    return {t: [a.describe() for a in algos.values()] for t, algos in REGISTRY.items()}
