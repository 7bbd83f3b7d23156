"""Detectors on a time-ordered feature matrix. Each has fit(X[, y]), score(X) (higher = more anomalous) and,
where it has them, contributions(X) per feature column."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from pathlib import Path

import numpy as np

from ..task import EngineError
from .mspc import PcaMspc

CATALOGUE = json.loads(Path(__file__).with_name("catalogue.json").read_text(encoding="utf-8"))
SUPERVISED = {a["key"] for a in CATALOGUE["supervised"]}
UNSUPERVISED = {a["key"] for a in CATALOGUE["unsupervised"]}


def params_of(algorithm: str, given: dict) -> dict:
    """The catalogue's defaults overlaid with the given values (checked against the catalogue's ranges)."""
    spec = next((a for mode in CATALOGUE.values() for a in mode if a["key"] == algorithm), None)
    if spec is None:
        raise EngineError("tsad_algorithm_unknown", algorithm=algorithm)
    out = {}
    for p in spec["params"]:
        v = given.get(p["name"], p["default"])
        if v is None or v == "":
            v = p["default"]
        v = int(v) if p["kind"] == "int" else float(v)
        if not (p["low"] <= v <= p["high"]):
            # names from the catalogue's message keys, so the server says them in the reader's language
            raise EngineError("tsad_param_range", label=EngineError(spec["name_key"]), param=EngineError(p["label_key"]), low=p["low"], high=p["high"])
        out[p["name"]] = v
    return out


def held_back_quantile(scores: np.ndarray, level: float) -> float:
    """The threshold that at most a (1 - level) share of held-back normal rows exceed: the ceil((n + 1) * level)-th
    smallest of their n scores (the split-conformal quantile, so a new normal row from the same process is over it
    with probability at most 1 - level), the largest when n is too small for that level. Rows without a score (NaN)
    are left out; with none at all the threshold is +inf (nothing can be said)."""
    s = np.sort(np.asarray(scores, dtype=float)[~np.isnan(np.asarray(scores, dtype=float))])
    if not len(s):
        return float("inf")
    k = int(np.ceil((len(s) + 1) * float(level)))
    return float(s[min(max(k, 1), len(s)) - 1])


class _Standard:
    def fit(self, X):
        self.mean_ = X.mean(axis=0)
        sd = X.std(axis=0, ddof=1) if len(X) > 1 else np.ones(X.shape[1])
        self.scale_ = np.where(sd > 0, sd, 1.0)
        return self

    def __call__(self, X):
        return (X - self.mean_) / self.scale_


class Mspc:
    rowwise = True  # a row's score depends on that row alone: it may be scored in chunks

    def __init__(self, p):
        self.m = PcaMspc(p["n_components"] or None, p["explained_variance"] or None, p["confidence"])

    def fit(self, X, y=None):
        self.m.fit(X)
        return self

    def score(self, X):
        return self.m.score(X)

    def contributions(self, X):
        return self.score_and_contributions(X)[1]

    def score_and_contributions(self, X):
        """Both from one projection: T² and Q are the sums of their contributions."""
        ct2, cq = self.m.contributions(X)
        t2, q = ct2.sum(axis=1), cq.sum(axis=1)
        ql = self.m.q_limit_
        score = np.maximum(t2 / self.m.t2_limit_, q / ql if ql > 0 else 0.0)
        # each statistic relative to its own limit, so the bars say which variables pushed the row past a limit
        return score, ct2 / self.m.t2_limit_ + (cq / ql if ql > 0 else 0)

    def threshold_from(self, held_back_scores):
        """The control limits are read on held-back normal rows: their `confidence` quantile of the score (1 = the
        textbook T²/Q limits, which assume independent rows and so alarm more often on real, autocorrelated ones)."""
        return held_back_quantile(held_back_scores, self.m.confidence)

    def info(self):
        return {
            "components": self.m.a_,
            "components_rule": self.m.rule_,
            "explained_variance": self.m.explained_,
            "t2_limit": self.m.t2_limit_,
            "q_limit": self.m.q_limit_,
            "confidence": self.m.confidence,
        }


class _Percentile:
    def __init__(self, p):
        self.p = p

    def threshold_from(self, held_back_scores):
        """The `percentile` of the held-back normal rows' scores (rows the detector was not fitted on)."""
        return held_back_quantile(held_back_scores, self.p["percentile"] / 100)

    def info(self):
        return {"percentile": self.p["percentile"]}


class _StandardisedOutlierModel(_Percentile, ABC):
    """A scikit-learn outlier model fitted on the standardised columns; the score is its negated score_samples."""

    rowwise = True  # a row's score depends on that row alone: it may be scored in chunks

    @abstractmethod
    def _estimator(self, n_rows: int):
        """The unfitted scikit-learn model for a fit on `n_rows` rows."""

    def fit(self, X, y=None):
        self.std = _Standard().fit(X)
        self.m = self._estimator(len(X))
        self.m.fit(self.std(X))
        return self

    def score(self, X):
        return -self.m.score_samples(self.std(X))


class IForest(_StandardisedOutlierModel):
    def _estimator(self, n_rows):
        from sklearn.ensemble import IsolationForest

        return IsolationForest(n_estimators=self.p["n_estimators"], max_samples=min(self.p["max_samples"], n_rows), random_state=0, n_jobs=1)


class Lof(_StandardisedOutlierModel):
    def _estimator(self, n_rows):
        from sklearn.neighbors import LocalOutlierFactor

        return LocalOutlierFactor(n_neighbors=min(self.p["n_neighbors"], n_rows - 1), novelty=True)


class OcSvm(_StandardisedOutlierModel):
    def _estimator(self, n_rows):
        from sklearn.svm import OneClassSVM

        return OneClassSVM(nu=self.p["nu"], gamma="scale")

    def score(self, X):
        # the decision function (score_samples less the model's offset), as thresholds of saved models were set on it
        return -self.m.decision_function(self.std(X))


class RobustZ(_Percentile):
    """|x - median| / (1.4826 MAD) per column, the largest across columns. With a window, the median and MAD are
    those of the previous `window` rows (Hampel), so row t never sees itself or later rows."""

    @property
    def rowwise(self) -> bool:
        """Without a window a row is scored on its own; with one, on the rows before it."""
        return int(self.p["window"]) <= 0

    def fit(self, X, y=None):
        self.med_ = np.median(X, axis=0)
        mad = 1.4826 * np.median(np.abs(X - self.med_), axis=0)
        sd = X.std(axis=0)
        self.mad_ = np.where(mad > 0, mad, np.where(sd > 0, sd, 1.0))
        return self

    def contributions(self, X):
        w = int(self.p["window"])
        if w <= 0:
            return np.abs(X - self.med_) / self.mad_
        import pandas as pd

        df = pd.DataFrame(X)
        prev = df.shift(1).rolling(w, min_periods=max(3, w // 2))
        med = prev.median()
        mad = 1.4826 * (df.shift(1) - med).abs().rolling(w, min_periods=max(3, w // 2)).median()
        med = med.to_numpy()
        mad = mad.to_numpy()
        med = np.where(np.isnan(med), self.med_, med)
        mad = np.where(np.isnan(mad) | (mad <= 0), self.mad_, mad)
        return np.abs(X - med) / mad

    def score(self, X):
        return self.contributions(X).max(axis=1)


class Autoencoder(_Percentile):
    """A small fully connected autoencoder on the (windowed) standardised features; the score is the mean squared
    reconstruction error, each feature's squared error its contribution. CPU, one thread, seeded."""

    rowwise = True  # a row's score depends on that row alone: it may be scored in chunks

    def fit(self, X, y=None):
        import torch

        torch.manual_seed(0)
        torch.set_num_threads(1)
        self.std = _Standard().fit(X)
        Z = torch.tensor(self.std(X), dtype=torch.float32)
        m = Z.shape[1]
        h = int(self.p["hidden"]) or max(2, m // 2)
        b = int(self.p["bottleneck"]) or max(1, m // 4)
        self.net = torch.nn.Sequential(
            torch.nn.Linear(m, h), torch.nn.ReLU(), torch.nn.Linear(h, b), torch.nn.ReLU(), torch.nn.Linear(b, h), torch.nn.ReLU(), torch.nn.Linear(h, m)
        )
        opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        gen = torch.Generator().manual_seed(0)
        for _ in range(int(self.p["epochs"])):
            for idx in torch.randperm(len(Z), generator=gen).split(256):
                opt.zero_grad()
                loss = torch.mean((self.net(Z[idx]) - Z[idx]) ** 2)
                loss.backward()
                opt.step()
        self.net.eval()
        return self

    def contributions(self, X):
        import torch

        Z = torch.tensor(self.std(X), dtype=torch.float32)
        out = []
        with torch.no_grad():
            for part in Z.split(65536):
                out.append(((self.net(part) - part) ** 2).numpy())
        return np.concatenate(out).astype(float) if out else np.zeros((0, X.shape[1]))

    def score(self, X):
        return self.contributions(X).mean(axis=1)


def persist(score: np.ndarray, rows: int) -> np.ndarray:
    """The smallest score of the last `rows` rows (row t and the rows before it): above a threshold exactly when
    every one of those rows is, so an alarm needs `rows` consecutive rows over the line and never waits for later
    rows. NaN (no score yet) keeps the rows it covers without a score."""
    if rows <= 1 or len(score) == 0:
        return score
    import pandas as pd

    return pd.Series(score).rolling(rows, min_periods=rows).min().to_numpy()


class SequenceAutoencoder:
    """A 1-D convolutional autoencoder over windows of `window` consecutive rows (the architecture of the SKAB
    leaderboard's Conv-AE, in PyTorch on the CPU): two strided convolutions down, two transposed ones up. Trained on
    the windows lying inside the normal period (the last tenth of them, in time order, for early stopping). The
    score of row t is the reconstruction error of the window that ends at t (rows t-window+1..t, never later
    rows): the sum over feature columns of the mean absolute error over the window's time steps, so each column's
    share is its contribution. The default threshold is a quantile of the training windows' scores times a factor;
    with `persistence` > 1 a row is an alarm only when the last `persistence` windows all exceed it. Seeded."""

    def __init__(self, p, check=None):
        self.p = p
        self.check = check or (lambda: None)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("check", None)  # the job's cancel check belongs to the job, not to the saved model
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.check = lambda: None

    def _net(self, m: int):
        import torch
        from torch import nn

        f1, f2 = int(self.p["filters"]), max(1, int(self.p["filters"]) // 2)
        k = int(self.p["kernel"])
        pad = k // 2
        return nn.Sequential(
            nn.Conv1d(m, f1, k, stride=2, padding=pad),
            nn.ReLU(),
            nn.Dropout(0.2),
            nn.Conv1d(f1, f2, k, stride=2, padding=pad),
            nn.ReLU(),
            nn.ConvTranspose1d(f2, f2, k, stride=2, padding=pad, output_padding=1),
            nn.ReLU(),
            nn.Dropout(0.2),
            nn.ConvTranspose1d(f2, f1, k, stride=2, padding=pad, output_padding=1),
            nn.ReLU(),
            nn.ConvTranspose1d(f1, m, k, padding=pad),
        ), torch

    def _windows(self, Z: np.ndarray) -> np.ndarray:
        """(windows, columns, steps) for every window of consecutive rows, in order of their last row."""
        w = int(self.p["window"])
        return np.lib.stride_tricks.sliding_window_view(Z, w, axis=0)

    def fit(self, X, y=None):
        import torch

        w = int(self.p["window"])
        if len(X) < w + 10:
            raise EngineError("tsad_window_longer_than_normal", window=w, rows=len(X))
        torch.manual_seed(0)
        torch.set_num_threads(1)
        self.std = _Standard().fit(X)
        W = torch.tensor(np.ascontiguousarray(self._windows(self.std(X))), dtype=torch.float32)
        self.net, _ = self._net(X.shape[1])
        n_val = max(1, len(W) // 10)
        train, val = W[:-n_val], W[-n_val:]
        opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        gen = torch.Generator().manual_seed(0)
        best, best_state, waited, self.epochs_run_ = np.inf, None, 0, 0
        for _ in range(int(self.p["epochs"])):
            self.check()
            self.net.train()
            for idx in torch.randperm(len(train), generator=gen).split(32):
                opt.zero_grad()
                loss = torch.mean((self._out(train[idx]) - train[idx]) ** 2)
                loss.backward()
                opt.step()
            self.epochs_run_ += 1
            self.net.eval()
            with torch.no_grad():
                v = float(torch.mean((self._out(val) - val) ** 2))
            if v < best - 1e-7:
                best, waited = v, 0
                best_state = {k: t.clone() for k, t in self.net.state_dict().items()}
            else:
                waited += 1
                if waited >= int(self.p["patience"]):
                    break
        if best_state is not None:
            self.net.load_state_dict(best_state)
        self.net.eval()
        self.val_loss_ = best
        self.train_errors_ = self.window_errors(X).sum(axis=1)[w - 1 :]
        return self

    def _out(self, batch):
        return self.net(batch)[..., : batch.shape[-1]]

    def window_errors(self, X) -> np.ndarray:
        """Per row t (from window-1 on) and feature column: mean absolute reconstruction error over the window
        ending at t; NaN before the first full window."""
        import torch

        w = int(self.p["window"])
        out = np.full(X.shape, np.nan)
        if len(X) < w:
            return out
        Z = self.std(X)
        V = self._windows(Z)
        errs = []
        with torch.no_grad():
            for a in range(0, len(V), 8192):
                b = torch.tensor(np.ascontiguousarray(V[a : a + 8192]), dtype=torch.float32)
                errs.append(torch.mean(torch.abs(self._out(b) - b), dim=2).numpy())
        out[w - 1 :] = np.concatenate(errs).astype(float)
        return out

    def contributions(self, X):
        return self.window_errors(X)

    def score_and_contributions(self, X):
        c = self.window_errors(X)
        return persist(c.sum(axis=1), int(self.p["persistence"])), c

    def score(self, X):
        return self.score_and_contributions(X)[0]

    def threshold_from(self, held_back_scores):
        """The quantile of the held-back normal rows' scores (windows the network was not trained on) times the
        factor."""
        return held_back_quantile(held_back_scores, self.p["quantile"]) * self.p["factor"]

    def info(self):
        return {
            "window": int(self.p["window"]),
            "quantile": self.p["quantile"],
            "factor": self.p["factor"],
            "persistence": int(self.p["persistence"]),
            "epochs_run": getattr(self, "epochs_run_", None),
            "validation_loss": getattr(self, "val_loss_", None),
        }


class Supervised:
    rowwise = True  # a row's score depends on that row alone: it may be scored in chunks

    def __init__(self, key, p):
        self.key, self.p = key, p

    def fit(self, X, y):
        y = np.asarray(y, dtype=int)
        if self.key == "lightgbm":
            import lightgbm as lgb

            pos = max(int(y.sum()), 1)
            self.m = lgb.LGBMClassifier(
                n_estimators=self.p["n_estimators"],
                learning_rate=self.p["learning_rate"],
                num_leaves=self.p["num_leaves"],
                scale_pos_weight=(len(y) - pos) / pos,
                random_state=0,
                n_jobs=1,
                verbose=-1,
            )
            self.m.fit(X, y)
        elif self.key == "random_forest":
            from sklearn.ensemble import RandomForestClassifier

            self.m = RandomForestClassifier(
                n_estimators=self.p["n_estimators"], max_depth=self.p["max_depth"] or None, class_weight="balanced", random_state=0, n_jobs=1
            )
            self.m.fit(X, y)
        else:
            from sklearn.linear_model import LogisticRegression

            self.std = _Standard().fit(X)
            self.m = LogisticRegression(C=self.p["C"], class_weight="balanced", max_iter=2000)
            self.m.fit(self.std(X), y)
        return self

    def score(self, X):
        Xs = self.std(X) if self.key == "logistic" else X
        return self.m.predict_proba(Xs)[:, 1]

    def contributions(self, X):
        if self.key == "lightgbm":  # TreeSHAP values in log-odds, LightGBM's own implementation
            return np.asarray(self.m.predict(X, pred_contrib=True))[:, :-1]
        if self.key == "logistic":
            return self.std(X) * self.m.coef_[0]
        return forest_contributions(self.m, X)

    def info(self):
        return {}


def forest_contributions(forest, X) -> np.ndarray:
    """Path contributions of a scikit-learn random forest (Saabas; the `treeinterpreter` decomposition) from the
    trees' own structure: along each row's path, every split moves the anomaly probability from the parent node's
    value to the child's, and that change is credited to the split's feature. Per row, the contributions plus the
    forest's mean root value equal predict_proba's anomaly probability exactly."""
    X = np.asarray(X, dtype=np.float32)
    out = np.zeros(X.shape, dtype=float)
    for est in forest.estimators_:
        tr = est.tree_
        v = tr.value[:, 0, :]
        v = v[:, 1] / np.where(v.sum(axis=1) > 0, v.sum(axis=1), 1.0)
        parent = np.full(tr.node_count, -1)
        for side in (tr.children_left, tr.children_right):
            inner = side >= 0
            parent[side[inner]] = np.flatnonzero(inner)
        D = np.zeros((tr.node_count, X.shape[1]))
        child = np.flatnonzero(parent >= 0)
        D[child, tr.feature[parent[child]]] = v[child] - v[parent[child]]
        out += np.asarray(est.decision_path(X) @ D)
    return out / len(forest.estimators_)


def k_of_n(score: np.ndarray, k: int, n: int) -> np.ndarray:
    """The k-th largest score of rows t-n+1..t (row t and the rows before it only): above a threshold exactly when at
    least k of those rows are, so one threshold reads as the alarm rule "k of the last n rows over the line" (1 of n
    is the largest, n of n the smallest as `persist`). The first rows use the rows there are; a row without a score
    (NaN, the warm-up) counts as not over the line, and a row with fewer than k scored rows behind it has none."""
    s = np.asarray(score, dtype=float)
    if n <= 1 or len(s) == 0:
        return s
    padded = np.concatenate([np.full(n - 1, -np.inf), np.where(np.isnan(s), -np.inf, s)])
    out = np.empty(len(s))
    step = max(1, _K_OF_N_CELLS // n)
    windows = np.lib.stride_tricks.sliding_window_view(padded, n)
    for a in range(0, len(s), step):
        m = min(step, len(s) - a)
        if n <= _K_OF_N_NETWORK:
            # the n rows behind each row sorted by a sorting network (odd-even transposition) of elementwise
            # minima and maxima over whole columns: the same values as a partition of each row, at numpy's speed
            # rather than one small partition per row
            cols = [padded[a + i : a + i + m] for i in range(n)]
            for r in range(n):
                for i in range(r % 2, n - 1, 2):
                    cols[i], cols[i + 1] = np.minimum(cols[i], cols[i + 1]), np.maximum(cols[i], cols[i + 1])
            out[a : a + m] = cols[n - k]
        else:
            out[a : a + m] = np.partition(windows[a : a + m], n - k, axis=1)[:, n - k]
    return np.where(np.isneginf(out), np.nan, out)


# k_of_n: rows x n cells at a time (its temporaries stay small whatever the series' length); up to this n, a sorting
# network over whole columns (n rounds of n / 2 minima and maxima) beats a partition of every row
_K_OF_N_CELLS = 1 << 22
_K_OF_N_NETWORK = 12


class AlarmRule:
    """A detector whose score is read through `k_of_n`: the threshold, its default (set on the held-back normal rows'
    scores read the same way, so the alarm rule is calibrated with the limits), the threshold page and predictions
    all keep working on one score."""

    def __init__(self, det, k: int, n: int):
        self.det, self.k, self.n = det, k, n

    def __getattr__(self, name):
        # the wrapped detector's other parts (info, window errors, fitted values); not while unpickling
        if name in ("det", "k", "n") or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.det, name)

    def fit(self, X, y=None):
        self.det.fit(X, y)
        return self

    def score(self, X):
        return k_of_n(self.det.score(X), self.k, self.n)

    def score_and_contributions(self, X):
        if hasattr(self.det, "score_and_contributions"):
            s, c = self.det.score_and_contributions(X)
        else:
            s, c = self.det.score(X), (self.det.contributions(X) if hasattr(self.det, "contributions") else None)
        return k_of_n(s, self.k, self.n), c


def make(algorithm: str, params: dict, check=None):
    """The detector and its checked parameters; `check` is called between training epochs of the neural
    detectors (the job's cancel check). An alarm rule other than 1 of 1 wraps the detector (AlarmRule)."""
    p = params_of(algorithm, params)
    if algorithm in SUPERVISED:
        return Supervised(algorithm, p), p
    if algorithm == "sequence_autoencoder":
        return SequenceAutoencoder(p, check), p
    det = {"pca_mspc": Mspc, "isolation_forest": IForest, "lof": Lof, "ocsvm": OcSvm, "robust_z": RobustZ, "autoencoder": Autoencoder}[algorithm](p)
    k, n = p.get("alarm_k", 1), p.get("alarm_n", 1)
    if k > n:
        spec = next(a for a in CATALOGUE["unsupervised"] if a["key"] == algorithm)
        raise EngineError("tsad_alarm_rule", label=EngineError(spec["name_key"]), k=k, n=n)
    return (AlarmRule(det, k, n) if n > 1 else det), p
