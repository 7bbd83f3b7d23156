"""A training project's data once: the table read and checked, column kinds, the target, the train/test split
and the rows cross-validation uses (all, or on a large table a stated sample)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..lang import lang_of
from ..task import EngineError
from . import data as D
from .algorithms import SUPERVISED
from .predict_chunks import parquet_rows
from .scale import CV_SAMPLE_ROWS, Profile, is_large, sample_positions
from .stream import Stream, scan, streamable, target_rows


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
    lang: str = "en"  # the language progress is said in (the job's `lang`, mitate_engine/lang.py)
    source: dict | None = None  # the spec's parquet and split, for a fit that reads the rows again (ml/distributed.py)
    profile: Profile = field(default_factory=Profile)  # seconds per step (read, conversion, ... writing)
    # a table too large to hold (ml/stream.py): X_train/X_test are samples; the rows are read again from here
    stream: Stream | None = None
    stream_test_rows: int = 0
    _cv_rows: np.ndarray | None = None

    @property
    def large(self) -> bool:
        return self.stream is not None or is_large(self.train_rows)

    @property
    def train_rows(self) -> int:
        """Rows the final model trains on (on a streamed table more than X_train, its sample, holds)."""
        return self.stream.n_train if self.stream else len(self.X_train)

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
        if self.stream:
            return self.stream_test_rows
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


def prepare_project(spec: dict, df: pd.DataFrame | None = None, progress: Callable[[str], None] | None = None) -> Project:
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
    if df is None and t in ("regression", "discriminant_analysis") and spec.get("evaluation") == "cv_only":
        rows = target_rows(spec.get("parquet") or "", target)  # refused before the table is read, as the server does
        if rows > CV_ONLY_MAX_ROWS:
            raise EngineError("cv_only_too_large", max=CV_ONLY_MAX_ROWS, rows=rows)
    if df is None and target and streamable(spec, parquet_rows(spec.get("parquet") or "")):
        return _prepare_streamed(spec, profile, progress)
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
    proj = _new_project(
        _settings(spec, profile),
        kinds,
        cats,
        X_train=X,
        y_train=y,
        X_test=None,
        y_test=None,
        classes=classes,
        lags=lags,
        windows=windows,
        datetime_column=dt_col,
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


def _settings(spec: dict, profile: Profile) -> dict:
    """The project settings that do not depend on the rows: the spec's type, target, inputs and options (checked in
    prepare_project) and the language progress is said in."""
    folds = spec.get("cv_folds", "default")
    folds = 5 if folds in (None, "", "default") else int(folds)
    if folds < 2:
        raise EngineError("bad_folds")
    return {
        "lang": lang_of(spec),
        "project_type": spec.get("project_type"),
        "target": spec.get("target") or None,
        "features": list(spec.get("features") or []),
        "cv_folds": folds,
        "auto_tune": bool(spec.get("auto_tune")),
        "n_trials": int(spec.get("n_trials") or 10),
        "balance": bool(spec.get("balance")),
        "variance_threshold": float(spec.get("variance_threshold") or 0.0),
        "significance_level": float(spec.get("significance_level") or 0.05),
        "condition": _condition(spec),
        "seed": int(spec.get("seed") or 0),
        "tune_shared": spec.get("tune_shared") if isinstance(spec.get("tune_shared"), dict) else None,
        "profile": profile,
    }


def _new_project(settings: dict, kinds: dict[str, str], categories: dict[str, list[str]], **rows) -> Project:
    """The one construction of a Project, in memory or streamed: the settings of _settings, the column kinds and
    categories found in the rows, and the rows themselves (X_train, y_train, X_test, y_test, classes, ...)."""
    return Project(**settings, kinds=kinds, categories=categories, **rows)


def _prepare_streamed(spec: dict, profile: Profile, progress) -> Project:
    """A table too large to hold (ml/stream.py): checked and split in one pass; X_train/X_test are samples."""
    settings = _settings(spec, profile)
    t, target, features = settings["project_type"], settings["target"], settings["features"]
    dt_col = (spec.get("datetime_column") or None) if t == "soft_sensor" else None
    D.parquet_columns(spec["parquet"], [*features, target, *([dt_col] if dt_col else [])])
    timing = None
    if t == "soft_sensor":  # rows in file order, which must be the time order (ml/stream_time.py)
        timing = {"datetime_column": dt_col, "lags": [int(v) for v in spec.get("lags") or []], "windows": [int(v) for v in spec.get("windows") or []]}
        if any(v < 1 for v in timing["lags"]) or any(v < 2 for v in timing["windows"]):
            raise EngineError("bad_time_features")
        timing["split_time"] = spec.get("split_time") if dt_col else None
    with profile.step("read"):
        sc = scan(spec["parquet"], t, features, target, float(spec.get("split_ratio") or 0.85), settings["seed"], progress, settings["lang"], timing)
    kinds = dict(sc.kinds)
    proj = _new_project(
        settings,
        kinds,
        sc.categories,
        X_train=D.as_model_frame(sc.X_train, kinds),
        y_train=sc.y_train,
        X_test=D.as_model_frame(sc.X_test, kinds),
        y_test=sc.y_test,
        classes=sc.classes,
    )
    proj.stream, proj.stream_test_rows = sc.stream, sc.n_test
    if timing is not None:
        proj.lags, proj.windows, proj.datetime_column = timing["lags"], timing["windows"], dt_col
        proj.time_train, proj.time_test = sc.time_train, sc.time_test
    return proj


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
