"""Tables in, feature matrices out: column kinds, soft-sensor time features, encoders, the train/test split."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ..task import EngineError

MAX_CATEGORIES = 50  # one-hot columns per categorical feature; rarer levels share one 'infrequent' column


def read_table(path: str, columns: list[str] | None = None, compact: bool = False, exact: tuple[str, ...] = ()) -> pd.DataFrame:
    """The Parquet file's columns (all, or `columns`). compact: text columns come as pandas categories (read as
    Parquet dictionaries, never as one Python string per row) and on a large table (scale.LARGE_ROWS rows) numbers as
    float32, except the `exact` columns (the target: its values and class labels stay as stored) — the training read;
    a prediction or an export keeps the values as stored."""
    names = parquet_columns(path, columns or [])
    if columns is not None:
        columns = list(dict.fromkeys(columns))
    if not compact:
        return pd.read_parquet(path, columns=columns)
    return _read_compact(path, columns if columns is not None else names, exact)


def parquet_columns(path: str, needed: list[str]) -> list[str]:
    """The Parquet file's column names; a clear message when the file is missing or unreadable or lacks a `needed`
    column."""
    import pyarrow.parquet as pq

    if not path or not os.path.isfile(path):
        raise EngineError("data_file_missing", path=path)
    try:
        names = pq.ParquetFile(path).schema_arrow.names
    except Exception as exc:  # noqa: BLE001 - any unreadable file is the user's
        raise EngineError("data_file_unreadable", reason=str(exc)) from exc
    missing = [c for c in needed if c not in names]
    if missing:
        raise EngineError("column_not_in_data", column=missing[0])
    return names


def _read_compact(path: str, columns: list[str], exact: tuple[str, ...]) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from .scale import is_large

    f = pq.ParquetFile(path)
    schema = f.schema_arrow
    text = [c for c in columns if c not in exact and (pa.types.is_string(schema.field(c).type) or pa.types.is_large_string(schema.field(c).type))]
    large = is_large(f.metadata.num_rows)
    table = pq.read_table(path, columns=columns, read_dictionary=text)
    out = {}
    for c in columns:
        col = table.column(c)
        t = col.type
        if large and c not in exact and (pa.types.is_floating(t) or pa.types.is_integer(t)):
            col = pc.cast(col, pa.float32())
        out[c] = col.to_pandas()
        table = table.drop_columns([c])  # each Arrow column is freed once converted
    return pd.DataFrame(out)


def column_kinds(df: pd.DataFrame, features: list[str]) -> dict[str, str]:
    """numeric or category per feature; a date/time feature is refused (derive numbers from it first)."""
    kinds: dict[str, str] = {}
    for c in features:
        s = df[c]
        if pd.api.types.is_datetime64_any_dtype(s):
            raise EngineError("feature_datetime", column=c)
        if pd.api.types.is_bool_dtype(s) or pd.api.types.is_numeric_dtype(s):
            kinds[c] = "numeric"
        else:
            kinds[c] = "category"
        distinct = _distinct_at_most_two(s)
        if distinct == 0:
            raise EngineError("feature_empty", column=c)
        if distinct == 1:
            raise EngineError("feature_constant", column=c)
    return kinds


def _distinct_at_most_two(s: pd.Series) -> int:
    """0, 1 or 2 (two or more) distinct non-missing values, in one vectorised pass (no hashing of every value)."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        codes = s.cat.codes.to_numpy()
        used = codes[codes >= 0]
        return 0 if not len(used) else (1 if used.min() == used.max() else 2)
    v = s.to_numpy() if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s) else None
    if v is not None and v.dtype.kind == "f":
        if np.isnan(v).all():
            return 0
        return 1 if np.nanmin(v) == np.nanmax(v) else 2
    if v is not None and v.dtype.kind in "iu":
        return 0 if not len(v) else (1 if v.min() == v.max() else 2)
    return min(2, int(s.nunique(dropna=True)))


def as_model_frame(df: pd.DataFrame, kinds: dict[str, str]) -> pd.DataFrame:
    """The feature columns with stable dtypes: floats for numbers, object strings (NaN kept) for categories."""
    """A category column read as a pandas category (data.read_table compact) stays one, with its values as strings;
    float32 numbers stay float32 (a large table's compact read)."""
    out = {}
    for c, k in kinds.items():
        s = df[c]
        if k == "numeric":
            out[c] = s if s.dtype == np.float32 else pd.to_numeric(s, errors="coerce").astype("float64")
        elif isinstance(s.dtype, pd.CategoricalDtype):
            cats = s.cat.categories
            if all(isinstance(v, str) for v in cats):
                out[c] = s
            elif len(set(map(str, cats))) == len(cats):
                out[c] = s.cat.rename_categories([str(v) for v in cats])
            else:
                out[c] = s.astype("object").where(s.notna(), np.nan).map(lambda v: v if isinstance(v, float) else str(v))
        else:
            out[c] = s.astype("object").where(s.notna(), np.nan).map(lambda v: v if isinstance(v, float) else str(v))
    return pd.DataFrame(out, index=df.index)


def add_time_features(df: pd.DataFrame, inputs: list[str], lags: list[int], windows: list[int]) -> tuple[pd.DataFrame, list[str]]:
    """Soft sensor inputs: each numeric input lagged by `lags` rows and averaged over trailing `windows` rows."""
    extra = {}
    for c in inputs:
        s = pd.to_numeric(df[c], errors="coerce")
        for k in lags:
            extra[f"{c}_lag{k}"] = s.shift(k)
        for w in windows:
            extra[f"{c}_mean{w}"] = s.rolling(w, min_periods=w).mean()
    if not extra:
        return df, []
    return pd.concat([df, pd.DataFrame(extra, index=df.index)], axis=1), list(extra)


def warmup_rows(lags: list[int], windows: list[int]) -> int:
    return max([0, *lags, *[w - 1 for w in windows]])


def make_preprocessor(kinds: dict[str, str], scale: bool, variance_threshold: float):
    from sklearn.compose import ColumnTransformer
    from sklearn.feature_selection import VarianceThreshold
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    num = [c for c, k in kinds.items() if k == "numeric"]
    cat = [c for c, k in kinds.items() if k == "category"]
    steps = []
    if num:
        s = [("impute", SimpleImputer(strategy="median"))]
        if variance_threshold and variance_threshold > 0:
            s.append(("variance", VarianceThreshold(threshold=float(variance_threshold))))
        if scale:
            s.append(("scale", StandardScaler()))
        steps.append(("num", Pipeline(s), num))
    if cat:
        steps.append(
            (
                "cat",
                Pipeline(
                    [
                        ("impute", SimpleImputer(strategy="most_frequent")),
                        ("onehot", OneHotEncoder(handle_unknown="infrequent_if_exist", max_categories=MAX_CATEGORIES, sparse_output=False)),
                    ]
                ),
                cat,
            )
        )
    ct = ColumnTransformer(steps, verbose_feature_names_out=False, remainder="drop")
    ct.set_output(transform="pandas")
    return ct


def categories_of(df: pd.DataFrame, kinds: dict[str, str]) -> dict[str, list[str]]:
    out = {}
    for c, k in kinds.items():
        if k != "category":
            continue
        s = df[c]
        if isinstance(s.dtype, pd.CategoricalDtype):  # the categories that occur, without a pass over the strings
            codes = pd.unique(s.cat.codes.to_numpy())
            out[c] = sorted(str(s.cat.categories[i]) for i in codes if i >= 0)
        else:
            out[c] = sorted(map(str, s.dropna().unique().tolist()))
    return out


def split(n: int, ratio: float, time_ordered: bool, y=None, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Row positions of train and test: the first `ratio` in time order, or a (stratified) shuffle."""
    idx = np.arange(n)
    n_train = int(round(n * ratio))
    n_train = min(max(n_train, 2), n - 1)
    if time_ordered:
        return idx[:n_train], idx[n_train:]
    from sklearn.model_selection import train_test_split

    strat = None
    if y is not None:
        counts = pd.Series(y).value_counts()
        if counts.min() >= 2 and n - n_train >= counts.size:
            strat = y
    tr, te = train_test_split(idx, train_size=n_train, random_state=seed, shuffle=True, stratify=strat)
    return np.sort(tr), np.sort(te)


def check_inference(df: pd.DataFrame, features: list[str], kinds: dict[str, str], categories: dict[str, list[str]]) -> None:
    """A clear message naming the column, before any prediction is made."""
    for c in features:
        if c not in df.columns:
            raise EngineError("inference_feature_missing", column=c)
    for c, k in kinds.items():
        s = df[c]
        if k == "numeric":
            if not (pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s)):
                bad = s[pd.to_numeric(s, errors="coerce").isna() & s.notna()]
                if len(bad):
                    raise EngineError("inference_not_numeric", column=c, value=str(bad.iloc[0]))
        else:
            known = set(categories.get(c, []))
            if isinstance(s.dtype, pd.CategoricalDtype):
                seen = set(categories_of(s.to_frame(), {c: "category"})[c])
            else:
                seen = set(map(str, s.dropna().unique().tolist()))
            unseen = sorted(seen - known)
            if unseen:
                raise EngineError("inference_unseen_category", column=c, value=unseen[0])
