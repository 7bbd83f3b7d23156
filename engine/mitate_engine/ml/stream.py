"""Training on a table too large to hold (from `stream_rows()` rows, default STREAM_ROWS): the feature columns are
never loaded whole. The Parquet file is read row group by row group, twice:

1. `scan` checks the columns (kinds, empty/constant, categories, target) as the whole-table path does, keeps the
   training labels (4 bytes a row: LightGBM needs them) and two samples of SAMPLE_ROWS rows each, one of training and
   one of test rows: they stand in `Project.X_train` / `X_test` for cross-validation, auto-tune, the training-set
   figures, permutation importance, SHAP and the charts;
2. `fit_streamed` builds LightGBM's Dataset with the bins learnt on the training sample (a `reference` Dataset) and the
   rows pushed group by group through `lightgbm.Sequence`, so the final model is fitted on every training row while
   memory holds one row group, the labels and LightGBM's own binned copy (one byte per value);
3. `predict_test` predicts every test row group by group: the test figures are on all test rows.

The hold-out split is by a hash of the row position (splitmix64 with the seed): row r is a test row when its number
u(r) in [0, 1) is below the test share; the samples are the rows whose u falls in a band of the right width. Nothing
needs the whole table to decide where a row goes, and every pass decides the same. Only LightGBM (regression and
classification with a hold-out) trains this way; another algorithm on such a table is refused by its row limit.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..lang import say
from ..task import EngineError

STREAM_ROWS = 20_000_000
SAMPLE_ROWS = 1_000_000  # training rows and test rows kept in memory for the steps that work on samples
BIN_ROWS = 200_000  # rows the bins of the streamed Dataset are learnt on (LightGBM's bin_construct_sample_cnt)
_MASK = (1 << 64) - 1


def stream_rows() -> int:
    """Tables from this many rows train streamed (MITATE_ML_STREAM_ROWS overrides the default)."""
    try:
        return max(10, int(os.environ.get("MITATE_ML_STREAM_ROWS", "") or STREAM_ROWS))
    except ValueError:
        return STREAM_ROWS


def streamable(spec: dict, n_rows: int) -> bool:
    t = spec.get("project_type")
    if t not in ("regression", "discriminant_analysis") or (spec.get("evaluation") or "holdout") == "cv_only":
        return False
    return n_rows >= stream_rows()


def unit(pos: np.ndarray, seed: int) -> np.ndarray:
    """A number in [0, 1) for each row position, the same in every pass (splitmix64 of position and seed)."""
    z = pos.astype(np.uint64) + np.uint64(((seed + 1) * 0x9E3779B97F4A7C15) & _MASK)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) / float(1 << 53)


@dataclass
class Stream:
    """Where the rows of a streamed project are and which of them train: enough to read them again."""

    path: str
    features: list[str]
    target: str
    test_share: float
    seed: int
    text: list[str]
    group_train: list[int]  # training rows per row group
    y_train: np.ndarray  # float32 (regression) or int32 class codes into Project.classes
    n_rows: int = 0
    group_offset: list[int] = field(default_factory=list)

    @property
    def n_train(self) -> int:
        return len(self.y_train)

    def file(self):
        import pyarrow.parquet as pq

        return pq.ParquetFile(self.path, read_dictionary=self.text)

    def group(self, f, g: int, with_target: bool = False) -> tuple[pd.DataFrame, np.ndarray]:
        """Row group g: its frame (features, and the target when asked) and each row's u."""
        cols = [*self.features, self.target] if with_target else self.features
        frame = _frame(f.read_row_group(g, columns=cols), set(self.features))
        start = self.group_offset[g]
        return frame, unit(np.arange(start, start + len(frame)), self.seed)


def _frame(table, features: set[str]) -> pd.DataFrame:
    """A row group as pandas: numbers float32 (the target as stored), text as categories."""
    import pyarrow as pa
    import pyarrow.compute as pc

    out = {}
    for c in table.column_names:
        col = table.column(c)
        if c in features and (pa.types.is_floating(col.type) or pa.types.is_integer(col.type)):
            col = pc.cast(col, pa.float32())
        out[c] = col.to_pandas()
    return pd.DataFrame(out)


def _kind(t) -> str:
    import pyarrow as pa

    if pa.types.is_timestamp(t) or pa.types.is_date(t) or pa.types.is_time(t):
        return "datetime"
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t) or pa.types.is_decimal(t):
        return "numeric"
    return "category"


class _Seen:
    """What a column held over the whole table: non-missing count, range (numbers), values used (text)."""

    def __init__(self) -> None:
        self.n = 0
        self.lo = np.inf
        self.hi = -np.inf
        self.values: set[str] = set()

    def add(self, s: pd.Series, kind: str) -> None:
        if kind == "numeric":
            v = s.to_numpy(dtype=np.float64, na_value=np.nan)
            v = v[~np.isnan(v)]
            if len(v):
                self.n += len(v)
                self.lo, self.hi = min(self.lo, float(v.min())), max(self.hi, float(v.max()))
            return
        cat = s if isinstance(s.dtype, pd.CategoricalDtype) else s.astype("category")
        codes = cat.cat.codes.to_numpy()
        used = np.unique(codes[codes >= 0])
        self.n += int((codes >= 0).sum())
        self.values.update(str(cat.cat.categories[i]) for i in used)

    def distinct(self) -> int:
        if not self.n:
            return 0
        return 1 if (self.values and len(self.values) == 1) or (not self.values and self.lo == self.hi) else 2


@dataclass
class Scan:
    stream: Stream
    kinds: dict[str, str]
    categories: dict[str, list[str]]
    classes: list[str]
    X_train: pd.DataFrame
    y_train: np.ndarray
    X_test: pd.DataFrame
    y_test: np.ndarray
    n_test: int


def scan(
    path: str, project_type: str, features: list[str], target: str, ratio: float, seed: int, progress: Callable[[str], None] | None = None, lang: str = "en"
) -> Scan:
    """Pass 1 (see the module): the checks of the whole-table path, the training labels and the two samples."""
    import pyarrow.parquet as pq

    f = pq.ParquetFile(path)
    schema = f.schema_arrow
    kinds = {c: _kind(schema.field(c).type) for c in features}
    for c, k in kinds.items():
        if k == "datetime":
            raise EngineError("feature_datetime", column=c)
    classification = project_type == "discriminant_analysis"
    if not classification and _kind(schema.field(target).type) != "numeric":
        raise EngineError("target_not_numeric", column=target)
    n = f.metadata.num_rows
    md = f.metadata
    offsets = list(np.cumsum([0] + [md.row_group(g).num_rows for g in range(md.num_row_groups)])[:-1].tolist())
    text = [c for c, k in kinds.items() if k == "category"]
    if classification:
        text.append(target)
    st = Stream(path, features, target, 1.0 - ratio, seed, text, [], np.empty(0, np.float32), n, offsets)
    test_share = st.test_share
    k = SAMPLE_ROWS / max(n, 1)
    seen = {c: _Seen() for c in features}
    labels: dict[str, int] = {}  # class -> code in order of appearance (renumbered in sorted order at the end)
    ys, tr_parts, te_parts, ytr_parts, yte_parts = [], [], [], [], []
    n_test = 0
    tsum = tsq = 0.0
    tlo, thi = np.inf, -np.inf
    f = st.file()
    for g in range(md.num_row_groups):
        frame, u = st.group(f, g, with_target=True)
        y = frame.pop(target)
        keep = y.notna().to_numpy()
        for c in features:
            seen[c].add(frame[c], kinds[c])
        if classification:
            cat = y if isinstance(y.dtype, pd.CategoricalDtype) else y.astype("category")
            remap = np.asarray([labels.setdefault(str(v), len(labels)) for v in cat.cat.categories], dtype=np.int32)  # as str(value)
            codes = cat.cat.codes.to_numpy()
            yv = np.where(codes >= 0, remap[np.maximum(codes, 0)] if len(remap) else -1, -1).astype(np.int32)
        else:
            yv = y.to_numpy(dtype=np.float64, na_value=np.nan)
            fin = yv[keep]
            if len(fin):
                tsum, tsq = tsum + float(fin.sum()), tsq + float((fin * fin).sum())
                tlo, thi = min(tlo, float(fin.min())), max(thi, float(fin.max()))
        test = u < test_share
        train = ~test & keep
        st.group_train.append(int(train.sum()))
        n_test += int((test & keep).sum())
        ys.append(yv[train].astype(np.int32 if classification else np.float32))
        s_tr = train & (u < test_share + k)
        s_te = test & keep & (u < min(test_share, k))
        tr_parts.append(frame[s_tr])
        te_parts.append(frame[s_te])
        ytr_parts.append(yv[s_tr])
        yte_parts.append(yv[s_te])
        if progress:
            progress(say("job_read_rows_of", lang, rows=f"{offsets[g] + len(frame):,}", total=f"{n:,}"))
    for c in features:
        d = seen[c].distinct()
        if d == 0:
            raise EngineError("feature_empty", column=c)
        if d == 1:
            raise EngineError("feature_constant", column=c)
    y_train = np.concatenate(ys) if ys else np.empty(0, np.float32)
    if len(y_train) + n_test < 10:
        raise EngineError("target_too_few", column=target)
    classes: list[str] = []
    y_tr_s, y_te_s = np.concatenate(ytr_parts), np.concatenate(yte_parts)
    if classification:
        classes = sorted(labels)
        if len(classes) < 2:
            raise EngineError("single_class", column=target)
        order = np.empty(len(labels), np.int32)
        for name, code in labels.items():
            order[code] = classes.index(name)
        y_train = order[y_train]
        counts = np.bincount(y_train, minlength=len(classes))
        if (counts == 0).any():
            raise EngineError("class_missing_in_training", value=classes[int(np.flatnonzero(counts == 0)[0])])
        names = np.asarray(classes, dtype=object)
        y_tr_s, y_te_s = names[order[y_tr_s]], names[order[y_te_s]]
    elif thi == tlo:
        raise EngineError("target_constant", column=target)
    st.y_train = y_train
    categories = {c: sorted(seen[c].values) for c in features if kinds[c] == "category"}
    return Scan(st, kinds, categories, classes, _sample_frame(tr_parts, categories), y_tr_s, _sample_frame(te_parts, categories), y_te_s, n_test)


def _sample_frame(parts: list[pd.DataFrame], categories: dict[str, list[str]]) -> pd.DataFrame:
    """The sample's parts as one frame; text columns as categories over the whole table's values."""
    from .scale import as_category

    parts = [p.assign(**{c: as_category(p[c], cats) for c, cats in categories.items()}) for p in parts]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


# ---- pass 2: the final fit on every training row ---------------------------------------------------------------


def _matrix(Z: pd.DataFrame) -> np.ndarray:
    """A NativeFrame output as LightGBM reads a pandas frame: category codes as numbers (missing as NaN), float32."""
    cols = []
    for c in Z.columns:
        s = Z[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            v = s.cat.codes.to_numpy().astype(np.float32)
            v[v < 0] = np.nan
            cols.append(v)
        else:
            cols.append(s.to_numpy(dtype=np.float32, na_value=np.nan))
    return np.ascontiguousarray(np.column_stack(cols)) if cols else np.empty((0, 0), np.float32)


def _sequences(st: Stream, pre, on_group: Callable[[int], None]):
    import lightgbm as lgb

    class Group(lgb.Sequence):
        """The training rows of one row group; read once when LightGBM asks for them (in order)."""

        def __init__(self, g: int, n: int) -> None:
            self.g, self.n, self.batch_size = g, n, max(n, 1)
            self._rows: np.ndarray | None = None

        def __len__(self) -> int:
            return self.n

        def __getitem__(self, idx):
            if self._rows is None:
                frame, u = st.group(f, self.g, with_target=True)
                train = (u >= st.test_share) & frame.pop(st.target).notna().to_numpy()  # as scan counted them
                self._rows = _matrix(pre.transform(frame[train].reset_index(drop=True)))
                on_group(self.g)
            rows = self._rows[idx]
            if isinstance(idx, slice) and (idx.stop is None or idx.stop >= self.n):
                self._rows = None  # the group is pushed: free it
            return rows

    f = st.file()
    return [Group(g, n) for g, n in enumerate(st.group_train) if n]


def fit_streamed(est, pre, proj, callbacks: list, progress: Callable[[str], None] | None = None):
    """Fits the LightGBM estimator `est` (of a Pipeline whose first step `pre` is a NativeFrame) on every training row
    of the streamed project, then makes it the fitted scikit-learn estimator a whole-table fit makes."""
    import lightgbm as lgb

    st: Stream = proj.stream
    classifier = proj.classification
    if classifier:
        from lightgbm.compat import _LGBMLabelEncoder

        est._le = _LGBMLabelEncoder().fit(np.asarray(proj.classes, dtype=object))
        est._class_map = dict(zip(est._le.classes_, est._le.transform(est._le.classes_), strict=True))
        est._classes = est._le.classes_
        est._n_classes = len(est._classes)
        if est.objective is None:
            est._objective = None
    params = est._process_params(stage="fit")
    params["metric"] = [m for m in ([params.get("metric")] if isinstance(params.get("metric"), (str, type(None))) else params["metric"]) if m is not None]
    cols = list(pre.kinds)
    cat_idx = [i for i, c in enumerate(cols) if pre.kinds[c] == "category"]
    from .scale import sample_positions

    # the bins: learnt on BIN_ROWS rows of the training sample (LightGBM itself looks at 200,000 rows for them)
    idx = sample_positions(len(proj.X_train), BIN_ROWS, proj.seed)
    Zs = pre.transform(proj.X_train.iloc[idx])
    y_s = est._le.transform(proj.y_train[idx]) if classifier else np.asarray(proj.y_train[idx], dtype=np.float32)
    ref = lgb.Dataset(_matrix(Zs), label=y_s, feature_name=cols, categorical_feature=cat_idx, params=params, free_raw_data=True).construct()
    weight = None
    if classifier and est.class_weight is not None:
        from sklearn.utils.class_weight import compute_class_weight

        cw = est.class_weight if est.class_weight == "balanced" else {est._class_map[k]: v for k, v in est.class_weight.items()}
        present = np.arange(len(proj.classes))
        weight = compute_class_weight(cw, classes=present, y=st.y_train).astype(np.float32)[st.y_train]
    total = len(st.group_train)

    def on_group(g: int) -> None:
        if progress:
            progress(say("job_building_training_set", proj.lang, g=str(g + 1), n=str(total)))

    train_set = lgb.Dataset(
        _sequences(st, pre, on_group), label=st.y_train, weight=weight, reference=ref, feature_name=cols, categorical_feature=cat_idx, params=params
    )
    booster = lgb.train(params, train_set, num_boost_round=est.n_estimators, callbacks=callbacks)
    booster.pandas_categorical = [list(pre.categories.get(c, [])) for c in cols if pre.kinds[c] == "category"]
    est._Booster = booster
    est._n_features = booster.num_feature()
    est.n_features_in_ = len(cols)
    est._fitted_with_feature_names = True
    est._evals_result = {}
    est._best_iteration = booster.best_iteration
    est._best_score = booster.best_score
    est.fitted_ = True
    booster.free_dataset()
    return est


# ---- pass 3: every test row predicted ---------------------------------------------------------------------------


def predict_test(pipe, proj, progress: Callable[[str], None] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(actual, predicted, class probabilities) of every test row, predicted row group by row group."""
    st: Stream = proj.stream
    f = st.file()
    ys, ps, probas = [], [], []
    names = np.asarray(proj.classes, dtype=object)
    n_groups = len(st.group_train)
    for g in range(n_groups):
        frame, u = st.group(f, g, with_target=True)
        y = frame.pop(st.target)
        rows = (u < st.test_share) & y.notna().to_numpy()
        if not rows.any():
            continue
        X, y = frame[rows], y[rows]
        if proj.classification:
            proba = pipe.predict_proba(X).astype(np.float32)
            probas.append(proba)
            ps.append(names[proba.argmax(axis=1)])
            ys.append(y.astype(str).to_numpy(dtype=object))
        else:
            ps.append(np.asarray(pipe.predict(X), dtype=np.float64))
            ys.append(y.to_numpy(dtype=np.float64))
        if progress:
            progress(say("job_predicting_test_rows", proj.lang, g=str(g + 1), n=str(n_groups)))
    return np.concatenate(ys), np.concatenate(ps), (np.concatenate(probas) if probas else None)
