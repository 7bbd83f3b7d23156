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
needs the whole table to decide where a row goes, and every pass decides the same. A soft sensor keeps the file's
order instead (it must be the time order; its lags and windows carry over from group to group; the split is a file
position: ml/stream_time.py). Only LightGBM (regression, classification and soft sensor with a hold-out) trains this
way; another algorithm on such a table is refused by its row limit (`algorithm_row_limit`). Cross-validation-only
evaluation is for small tables and is refused before such a table is read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace

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
    if t not in ("regression", "discriminant_analysis", "soft_sensor") or (spec.get("evaluation") or "holdout") == "cv_only":
        return False  # cross-validation only is for small tables (refused before reading: project.prepare_project)
    return n_rows >= stream_rows()


def target_rows(path: str, target: str) -> int:
    """Rows of a Parquet file with a target, from its statistics (no row read); all rows when they say nothing."""
    import pyarrow.parquet as pq

    try:
        md = pq.ParquetFile(path).metadata
    except Exception:  # noqa: BLE001 - the whole-table path reports an unreadable file in the user's words
        return 0
    leaves = [md.schema.column(j).path for j in range(md.num_columns)]
    if target not in leaves:
        return md.num_rows
    i = leaves.index(target)
    nulls = 0
    for g in range(md.num_row_groups):
        stats = md.row_group(g).column(i).statistics
        if stats is None or not stats.has_null_count:
            return md.num_rows
        nulls += stats.null_count
    return md.num_rows - nulls


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
    # a soft sensor (time order): the inputs lagged/averaged, and where the test rows start (a file position)
    inputs: list[str] = field(default_factory=list)
    lags: list[int] = field(default_factory=list)
    windows: list[int] = field(default_factory=list)
    split_pos: int | None = None
    # ... whose training sample is its most recent rows: a hashed share of every training row for LightGBM's bins
    bins: tuple[pd.DataFrame, np.ndarray] | None = field(default=None, repr=False, compare=False)
    _carry: tuple | None = field(default=None, repr=False, compare=False)  # (g, the inputs' last rows up to g)

    @property
    def n_train(self) -> int:
        return len(self.y_train)

    @property
    def warmup(self) -> int:
        from .data import warmup_rows

        return warmup_rows(self.lags, self.windows)

    def plan(self) -> Stream:
        """This stream without its labels: what a Dask worker needs to read its row groups (ml/distributed.py)."""
        return replace(self, y_train=np.empty(0, np.float32), bins=None, _carry=None)

    def file(self):
        import pyarrow.parquet as pq

        return pq.ParquetFile(self.path, read_dictionary=self.text)

    def group(self, f, g: int) -> tuple[pd.DataFrame, pd.Series, np.ndarray, np.ndarray, np.ndarray]:
        """Row group g: its features (with a soft sensor's lags and windows), target, training and test rows, and
        each row's hash number u."""
        frame = frame_of(f.read_row_group(g, columns=[*self.features, self.target]), set(self.features))
        y = frame.pop(self.target)
        if self.lags or self.windows:
            frame = self._time_features(f, g, frame)
        start = self.group_offset[g]
        pos = np.arange(start, start + len(frame))
        u = unit(pos, self.seed)
        has = y.notna().to_numpy()
        if self.split_pos is None:
            test = u < self.test_share
            return frame, y, ~test & has, test & has, u
        has = has & (pos >= self.warmup)
        return frame, y, has & (pos < self.split_pos), has & (pos >= self.split_pos), u

    def _time_features(self, f, g: int, frame: pd.DataFrame) -> pd.DataFrame:
        """The lags and windows of group g's rows as the whole table gives them: the inputs' last `warmup` rows before
        the group (kept from the previous group, or read again) go first."""
        from .data import add_time_features

        w = self.warmup
        if self._carry is not None and self._carry[0] == g - 1:
            tail = self._carry[1]
        else:
            parts, need, h = [], w, g - 1
            while need > 0 and h >= 0:
                part = frame_of(f.read_row_group(h, columns=self.inputs), set(self.inputs)).iloc[-need:]
                parts.insert(0, part)
                need, h = need - len(part), h - 1
            tail = pd.concat(parts, ignore_index=True) if parts else frame[self.inputs].iloc[:0]
        block = pd.concat([tail, frame[self.inputs]], ignore_index=True)
        self._carry = (g, block.iloc[len(block) - w :].reset_index(drop=True) if w else block.iloc[:0])
        full, extra = add_time_features(block, self.inputs, self.lags, self.windows)
        return pd.concat([frame, full[extra].iloc[len(tail) :].reset_index(drop=True)], axis=1)


def frame_of(table, features: set[str]) -> pd.DataFrame:
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
    time_train: list | None = None  # a soft sensor: the training sample's time axis
    time_test: dict | None = None  # ... and that of the test rows the report's time-series chart draws, by ordinal


def _stream_of(path: str, project_type: str, features: list[str], target: str, ratio: float, seed: int) -> tuple[Stream, dict[str, str]]:
    """The stream of a table and its column kinds, with the whole-table path's checks of the columns' types."""
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
    md = f.metadata
    offsets = list(np.cumsum([0] + [md.row_group(g).num_rows for g in range(md.num_row_groups)])[:-1].tolist())
    text = [c for c, k in kinds.items() if k == "category"]
    if classification:
        text.append(target)
    return Stream(path, features, target, 1.0 - ratio, seed, text, [], np.empty(0, np.float32), md.num_rows, offsets), kinds


def scan(
    path: str,
    project_type: str,
    features: list[str],
    target: str,
    ratio: float,
    seed: int,
    progress: Callable[[str], None] | None = None,
    lang: str = "en",
    time: dict | None = None,
) -> Scan:
    """Pass 1 (see the module): the checks of the whole-table path, the training labels and the two samples. A soft
    sensor gives `time` ({datetime_column, lags, windows, split_time}): rows in file order (ml/stream_time.py)."""
    st, kinds = _stream_of(path, project_type, features, target, ratio, seed)
    classification = project_type == "discriminant_analysis"
    n = st.n_rows
    f = st.file()
    clock = None
    if time is not None:
        from .reports import MAX_POINTS
        from .stream_time import time_plan

        st.inputs = [c for c in features if kinds[c] == "numeric"]
        st.lags, st.windows = list(time.get("lags") or []), list(time.get("windows") or [])
        clock = time_plan(f, st, time.get("datetime_column"), ratio, time.get("split_time"), (SAMPLE_ROWS, BIN_ROWS), MAX_POINTS)
    k = SAMPLE_ROWS / max(n, 1)
    seen = {c: _Seen() for c in features}
    labels: dict[str, int] = {}  # class -> code in order of appearance (renumbered in sorted order at the end)
    ys, tr_parts, te_parts, ytr_parts, yte_parts, bin_parts, ybin_parts = [], [], [], [], [], [], []
    n_test = 0
    tlo, thi = np.inf, -np.inf
    for g in range(len(st.group_offset)):
        frame, y, train, test, u = st.group(f, g)
        keep = train | test
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
                tlo, thi = min(tlo, float(fin.min())), max(thi, float(fin.max()))
        st.group_train.append(int(train.sum()))
        n_test += int(test.sum())
        ys.append(yv[train].astype(np.int32 if classification else np.float32))
        if clock is None:
            s_tr, s_te = train & (u < st.test_share + k), test & (u < min(st.test_share, k))
        else:  # the most recent training rows; a hashed share of the test rows
            s_tr, s_te = train & (np.arange(st.group_offset[g], st.group_offset[g] + len(frame)) >= clock.sample_pos), test & (u < clock.test_band)
            clock.collect(f, g, s_tr, test, keep)
            s_bin = train & (u < clock.bin_band)
            bin_parts.append(frame[s_bin])
            ybin_parts.append(yv[s_bin].astype(np.float32))
        tr_parts.append(frame[s_tr])
        te_parts.append(frame[s_te])
        ytr_parts.append(yv[s_tr])
        yte_parts.append(yv[s_te])
        if progress:
            progress(say("job_read_rows_of", lang, rows=f"{st.group_offset[g] + len(frame):,}", total=f"{n:,}"))
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
    X_tr, X_te = _sample_frame(tr_parts, categories), _sample_frame(te_parts, categories)
    sc = Scan(st, kinds, categories, classes, X_tr, y_tr_s, X_te, y_te_s, n_test)
    if clock is not None:
        sc.time_train, sc.time_test = clock.time_train, clock.time_test
        st.bins = (_sample_frame(bin_parts, categories), np.concatenate(ybin_parts))
        sc.kinds.update({c: "numeric" for c in X_tr.columns if c not in kinds})  # the lags and windows
    return sc


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
                frame, _, train, _, _ = st.group(f, self.g)  # the training rows as scan counted them
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

    # the bins: learnt on BIN_ROWS rows of the training sample (LightGBM itself looks at 200,000 rows for them), or
    # for a soft sensor (whose sample is its most recent rows) on rows hashed from every training row
    if st.bins is not None:
        Zs, y_s = pre.transform(st.bins[0]), st.bins[1]
    else:
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
        frame, y, _, rows, _ = st.group(f, g)
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
