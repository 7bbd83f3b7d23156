"""t-SNE (openTSNE) and UMAP with the scikit-learn verbs, so new rows can be embedded into a trained map."""

from __future__ import annotations

import numpy as np

from .algorithms import THREADS


class OpenTSNE:
    def __init__(self, n_components=2, perplexity=30.0, learning_rate="auto", n_iter=500, seed=0):
        self.n_components = n_components
        self.perplexity = perplexity
        self.learning_rate = learning_rate
        self.n_iter = n_iter
        self.seed = seed

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in ("n_components", "perplexity", "learning_rate", "n_iter", "seed")}

    def set_params(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)
        return self

    def fit(self, X, y=None):
        from openTSNE import TSNE

        lr = self.learning_rate if self.learning_rate == "auto" else float(self.learning_rate)
        self.embedding_ = TSNE(
            n_components=self.n_components,
            perplexity=self.perplexity,
            learning_rate=lr,
            n_iter=self.n_iter,
            random_state=self.seed,
            n_jobs=THREADS,
            verbose=False,
        ).fit(np.asarray(X, dtype=float))
        return self

    def fit_transform(self, X, y=None):
        return np.asarray(self.fit(X).embedding_)

    def transform(self, X):
        # openTSNE places new points against the fixed reference map (its documented way to embed new data).
        return np.asarray(self.embedding_.transform(np.asarray(X, dtype=float)))


class Umap:
    def __init__(self, n_components=2, n_neighbors=15, min_dist=0.1, seed=0):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.min_dist = min_dist
        self.seed = seed

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in ("n_components", "n_neighbors", "min_dist", "seed")}

    def set_params(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)
        return self

    def fit(self, X, y=None):
        import umap

        self.model_ = umap.UMAP(n_components=self.n_components, n_neighbors=self.n_neighbors, min_dist=self.min_dist, random_state=self.seed, n_jobs=1).fit(
            np.asarray(X, dtype=float)
        )
        return self

    def fit_transform(self, X, y=None):
        return np.asarray(self.fit(X).model_.embedding_)

    def transform(self, X):
        return np.asarray(self.model_.transform(np.asarray(X, dtype=float)))
