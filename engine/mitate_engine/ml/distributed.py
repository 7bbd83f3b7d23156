"""LightGBM's final fit on a Dask cluster (issue 34, "Past one machine").

With `MITATE_DASK_SCHEDULER` set (e.g. ``tcp://scheduler:8786``), the final fit of a LightGBM model on a table of at
least `MITATE_DASK_MIN_ROWS` training rows (default 1,000,000; 0 = always) goes through LightGBM's own Dask interface
(`lightgbm.DaskLGBMRegressor` / `DaskLGBMClassifier`): the Dask workers read the dataset's Parquet row ranges
themselves (from the S3 store when `MITATE_S3_*` is set on the engine, else from the same path on a shared disk),
keep the job's training rows (the product's own split, checked against the rows the engine holds), apply the
model's preprocessing (fitted by the engine on the training rows, as a local fit does) and train together. A table
too large to hold (ml/stream.py: the engine keeps samples only) goes the same way: each worker reads whole row
groups and keeps the training rows by the stream's hash split of row positions, so the engine never loads the table.

What comes back is a plain `lightgbm.LGBMRegressor`/`LGBMClassifier` (`to_local()`) put in the model's pipeline in
place of the unfitted one, so the saved model, prediction and serving are those of a local fit. The job reports the
boosting round while it trains; Stop makes every Dask worker end its boosting at its next round (a distributed
Event the workers poll), then the client is closed, which releases every task of the job.

Used for: LightGBM with hold-out evaluation: regression and discriminant analysis, and a streamed soft sensor (its
partitions read the rows before them for the lags and windows; a soft sensor the engine holds whole is sorted by
time in the engine and fits there, as does every other model). When the cluster cannot be used (no
scheduler answer, no workers, rows not matching) the log says why and the model is fitted in the engine as usual.
The Dask workers need the engine's Python packages and this package (run them from the engine's image).
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

import numpy as np
import pandas as pd

from ..lang import say
from ..task import Cancelled
from . import data as D

DEFAULT_MIN_ROWS = 1_000_000
PART_ROWS = 1_000_000  # rows per Dask partition (each worker task reads one row range of the Parquet file)
CONNECT_S = 10  # seconds to reach the scheduler before fitting here instead
POLL_S = 0.5
LOCK_NAME = "mitate-lightgbm-fit"
STOP_WAIT_S = 60  # after Stop, how long the job waits for the workers' fit to end before closing the client anyway


def scheduler_address(env: dict | None = None) -> str | None:
    env = os.environ if env is None else env
    return (env.get("MITATE_DASK_SCHEDULER") or "").strip() or None


def min_rows(env: dict | None = None) -> int:
    env = os.environ if env is None else env
    try:
        return max(0, int(env.get("MITATE_DASK_MIN_ROWS") or DEFAULT_MIN_ROWS))
    except ValueError:
        return DEFAULT_MIN_ROWS


def applies(proj: Any, algorithm: str, pipe: Any, env: dict | None = None) -> str | None:
    """The scheduler's address when this model's final fit goes to the Dask cluster, else None."""
    address = scheduler_address(env)
    if not address or algorithm != "lightgbm":
        return None
    streamed = getattr(proj, "stream", None) is not None  # a soft sensor too: its rows stay in file order
    if proj.project_type not in ("regression", "discriminant_analysis", *(("soft_sensor",) if streamed else ())) or proj.cv_only:
        return None
    if not proj.source or not proj.source.get("parquet") or (not streamed and (proj.lags or proj.windows or proj.source.get("split_time"))):
        return None
    if proj.train_rows < min_rows(env):
        return None
    if not hasattr(pipe, "steps") or len(pipe.steps) != 2 or type(pipe.steps[-1][1]).__name__ not in ("LGBMRegressor", "LGBMClassifier"):
        return None
    return address


# ---- where the workers read the rows ----------------------------------------------------------------------


def source_of(path: str, env: dict | None = None) -> dict:
    """How a Dask worker opens the dataset: its S3 object when the engine works from the object store (the key is the
    path relative to the engine's data folder, MITATE_DATA_DIR, as objectstore.JobFiles maps it), else the path."""
    from ..objectstore import settings_from_env

    env = os.environ if env is None else env
    s3 = settings_from_env(env)
    root = env.get("MITATE_DATA_DIR")
    if s3 and root:
        base = os.path.realpath(root)
        full = os.path.realpath(path)
        if full.startswith(base.rstrip("/") + "/"):
            return {"s3_key": s3["prefix"] + os.path.relpath(full, base).replace(os.sep, "/")}
    return {"path": path}


def _open(source: dict, text: list[str] | None = None):
    import pyarrow.parquet as pq

    if "s3_key" not in source:
        return pq.ParquetFile(source["path"], read_dictionary=text)
    from pyarrow import fs

    from ..objectstore import settings_from_env

    s = settings_from_env()  # the worker's own settings: no key travels in the task graph
    if not s:
        raise RuntimeError("this Dask worker has no MITATE_S3_* settings; it cannot read the dataset from the object store")
    kw: dict[str, Any] = {"region": s["region"], "force_virtual_addressing": not s["path_style"]}
    if s["access_key_id"]:
        kw.update(access_key=s["access_key_id"], secret_key=s["secret_access_key"])
    if s["endpoint"]:
        u = urlparse(s["endpoint"])
        kw.update(endpoint_override=u.netloc or u.path, scheme=u.scheme or "https")
    return pq.ParquetFile(fs.S3FileSystem(**kw).open_input_file(f"{s['bucket']}/{source['s3_key']}"), read_dictionary=text)


def read_part(source: dict, start: int, stop: int, columns: list[str], kinds: dict, target: str, classification: bool, keep: np.ndarray, pre) -> tuple:
    """On a Dask worker: rows [start, stop) of the Parquet file, the training rows among them (`keep`), preprocessed."""
    pf = _open(source)
    md = pf.metadata
    groups, first, offset = [], None, 0
    for g in range(md.num_row_groups):
        n = md.row_group(g).num_rows
        if offset + n > start and offset < stop:
            groups.append(g)
            first = offset if first is None else first
        offset += n
    table = pf.read_row_groups(groups, columns=columns).slice(start - (first or 0), stop - start)
    df = table.to_pandas().loc[keep].reset_index(drop=True)
    X = pre.transform(D.as_model_frame(df, kinds))  # the same dtypes in every partition (fixed categories, if any)
    X.index = pd.RangeIndex(len(X))
    if classification:
        y = pd.Series(np.asarray(df[target].map(str).tolist(), dtype=object), name=target)
    else:
        y = pd.Series(df[target].astype("float64").to_numpy(), name=target)
    return X, y


def read_groups(source: dict, groups: list[int], st: Any, classification: bool, pre) -> tuple:
    """On a Dask worker, for a table too large to hold (ml/stream.py): the training rows of row groups `groups`,
    preprocessed. `st` is the project's Stream without its labels (`Stream.plan`): the rows it trains are decided from
    their positions (the hash split, or a soft sensor's split position), as the engine's own passes decide them, and
    a soft sensor's lags and windows read the rows before the first group."""
    pf = _open(source, st.text)  # text columns as categories, as the engine's passes read them
    Xs, ys = [], []
    for g in groups:
        frame, y, train, _, _ = st.group(pf, g)
        Xs.append(pre.transform(frame[train]))
        ys.append(y[train])
    X = pd.concat(Xs, ignore_index=True)
    y = pd.concat(ys, ignore_index=True)
    if classification:
        return X, pd.Series(np.asarray(y.astype(str).tolist(), dtype=object), name=st.target)
    return X, pd.Series(y.astype("float64").to_numpy(), name=st.target)


def training_mask(path: str, proj: Any) -> np.ndarray:
    """Which rows of the file are this job's training rows: the product's split (data.split) over the rows with a
    target, recomputed from the target column alone and checked against the rows the engine holds."""
    import pyarrow.parquet as pq

    t = pq.read_table(path, columns=[proj.target]).column(0).to_pandas()
    has = t.notna().to_numpy()
    pos = np.flatnonzero(has)
    if proj.classification:
        y = t[has].map(str).to_numpy(dtype=object)
    else:
        y = t[has].astype("float64").to_numpy()
    ratio = float(proj.source.get("split_ratio") or 0.85)
    tr, _ = D.split(len(pos), ratio, False, y if proj.classification else None, proj.seed)
    if len(tr) != len(proj.X_train) or not np.array_equal(y[tr], np.asarray(proj.y_train, dtype=y.dtype)):
        raise RuntimeError("the Parquet file's training rows do not match the engine's")
    mask = np.zeros(len(t), dtype=bool)
    mask[pos[tr]] = True
    return mask


def _table_pieces(proj: Any, pre, workers: int) -> tuple[list, int]:
    """The Dask partitions of a table the engine holds: row ranges of PART_ROWS rows (at least one per worker), each
    with the training rows among them (the product's split, checked against the engine's rows)."""
    import dask

    path = proj.source["parquet"]
    keep = training_mask(path, proj)
    columns = list(dict.fromkeys([*proj.kinds, proj.target]))
    n = len(keep)
    edges = np.linspace(0, n, max(workers, -(-n // PART_ROWS)) + 1).astype(int)
    read = dask.delayed(read_part, nout=2)
    source = source_of(path)
    pieces = [
        read(source, int(a), int(b), columns, proj.kinds, proj.target, proj.classification, keep[a:b], pre)
        for a, b in zip(edges[:-1], edges[1:], strict=True)
        if keep[a:b].any()
    ]
    return pieces, int(keep.sum())


def _stream_pieces(proj: Any, pre, workers: int) -> tuple[list, int]:
    """The Dask partitions of a table too large to hold (ml/stream.py): runs of whole row groups of about PART_ROWS
    rows (at least one per worker while there are groups); each worker picks the training rows itself by the hash
    split, so nothing of the size of the table travels in the task graph."""
    import dask

    st = proj.stream
    sizes = np.diff([*st.group_offset, st.n_rows]).tolist()
    per = min(PART_ROWS, max(1, -(-st.n_rows // workers)))
    runs: list[list[int]] = [[]]
    filled = 0
    for g, n in enumerate(sizes):
        if not st.group_train[g]:
            continue
        if runs[-1] and filled + n > per:
            runs.append([])
            filled = 0
        runs[-1].append(g)
        filled += n
    read = dask.delayed(read_groups, nout=2)
    source = source_of(st.path)
    plan = st.plan()
    return [read(source, run, plan, proj.classification, pre) for run in runs if run], st.n_train


# ---- on the workers, each boosting round ------------------------------------------------------------------


class RoundWatch:
    """A LightGBM callback run by every Dask worker: publishes the round (a distributed Variable) and ends the boosting
    at the next round once the job's Stop event is set (an early stop, so the worker leaves LightGBM's network cleanly;
    a peer still waiting for it gets a socket error and ends too)."""

    order = 5

    def __init__(self, token: str, every: float = 0.5):
        self.token = token
        self.every = every
        self._last = 0.0

    def __call__(self, env) -> None:
        now = time.monotonic()
        if now - self._last < self.every and env.iteration + 1 < env.end_iteration:
            return
        self._last = now
        from distributed import Event, Variable
        from lightgbm.callback import EarlyStopException

        Variable(f"mitate-round-{self.token}").set([env.iteration + 1, env.end_iteration])
        if Event(f"mitate-stop-{self.token}").is_set():
            raise EarlyStopException(env.iteration, [])


# ---- in the engine ----------------------------------------------------------------------------------------


def fit_on_cluster(pipe: Any, proj: Any, algorithm: str, progress: Callable[[float, str], None], log: Callable[[str], None], label: str) -> dict | None:
    """The final fit of `pipe` on the Dask cluster when it applies (see `applies`): where it trained, else None (the
    caller fits here). Raises Cancelled when the job is stopped."""
    address = applies(proj, algorithm, pipe)
    return fit(pipe, proj, address, progress, log, label) if address else None


def fit(pipe: Any, proj: Any, address: str, progress: Callable[[float, str], None], log: Callable[[str], None], label: str) -> dict | None:
    """Fits `pipe` (preprocess + LightGBM) with the boosting on the Dask cluster at `address`; returns where it trained
    ({"engine": "dask", "scheduler", "workers"}), or None when the cluster could not be used (the log says why; the
    caller then fits here). Raises Cancelled when the job is stopped."""
    try:
        from distributed import Client
    except ImportError as exc:
        log(f"{label}: the Dask scheduler {address} is set but dask.distributed is not installed ({exc}); training here")
        return None
    try:
        client = Client(address, timeout=CONNECT_S, set_as_default=False)
    except Exception as exc:  # noqa: BLE001 - an unreachable cluster means a local fit, said in the log
        log(f"{label}: the Dask scheduler {address} did not answer ({type(exc).__name__}: {exc}); training here")
        return None
    try:
        return _fit(client, pipe, proj, address, progress, log, label)
    finally:
        client.close()


def _fit(client, pipe, proj, address, progress, log, label) -> dict | None:
    import dask
    import dask.dataframe as dd
    import lightgbm as lgb
    from distributed import Event, Lock, Variable

    workers = len(client.scheduler_info().get("workers") or {})
    if workers == 0:
        log(f"{label}: the Dask cluster at {address} has no workers; training here")
        return None
    pre = pipe.steps[0][1]
    pre.fit(proj.X_train, proj.y_train)  # as a local fit does: the preprocessing learns from the training rows
    est = pipe.steps[-1][1]
    try:
        pieces, rows = (_stream_pieces if proj.stream else _table_pieces)(proj, pre, workers)
    except Exception as exc:  # noqa: BLE001 - rows that cannot be matched mean a local fit
        log(f"{label}: the training rows could not be read for the Dask cluster ({exc}); training here")
        return None
    meta_X = pre.transform(proj.X_train.iloc[:2]).iloc[:0]
    meta_y = pd.Series(np.array([], dtype=object if proj.classification else "float64"), name=proj.target)
    with dask.config.set({"dataframe.convert-string": False}):
        X = dd.from_delayed([p[0] for p in pieces], meta=meta_X, verify_meta=False)
        y = dd.from_delayed([p[1] for p in pieces], meta=meta_y, verify_meta=False)
    params = {k: v for k, v in est.get_params().items() if k != "n_jobs"}
    cls = lgb.DaskLGBMClassifier if proj.classification else lgb.DaskLGBMRegressor
    model = cls(client=client, **params)
    token = uuid.uuid4().hex
    stop = Event(f"mitate-stop-{token}", client=client)
    rounds = Variable(f"mitate-round-{token}", client=client)
    rounds.set([0, int(params.get("n_estimators") or 0)])  # read while the workers load (a get never waits)
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            with client.as_current(), dask.config.set({"dataframe.convert-string": False}):
                model.fit(X, y, callbacks=[RoundWatch(token)])
            outcome["ok"] = True
        except BaseException as exc:  # noqa: BLE001 - handed to the job's thread
            outcome["error"] = exc

    # One LightGBM network per worker process: fits of several jobs take turns on the cluster (the lock is the client's
    # lease, freed if this process dies).
    lock = Lock(LOCK_NAME, scheduler_rpc=client.scheduler, loop=client.loop)
    while not lock.acquire(timeout=POLL_S):
        progress(0.78, say("job_dask_waiting", proj.lang, label=label))
    log(f"{label}: training on the Dask cluster at {address}, {workers} workers, {rows:,} rows in {len(pieces)} partitions")
    thread = threading.Thread(target=run, name="mitate-dask-fit", daemon=True)
    started = time.monotonic()
    thread.start()
    try:
        while thread.is_alive():
            thread.join(POLL_S)
            i, of = rounds.get()
            if i:
                progress(0.78 + 0.06 * i / max(1, of), say("job_dask_round", proj.lang, label=label, i=str(i), total=str(of), workers=str(workers)))
            else:
                progress(0.78, say("job_dask_reading", proj.lang, label=label, partitions=str(len(pieces))))
    except Cancelled:
        stop.set()
        thread.join(STOP_WAIT_S)
        if thread.is_alive():
            log(f"{label}: stopped; the Dask fit did not end within {STOP_WAIT_S} s, its tasks are released")
        else:
            log(f"{label}: stopped; the Dask workers ended their boosting")
        raise
    finally:
        for done in (rounds.delete, lock.release):
            try:
                done()
            except Exception:  # noqa: BLE001, S110 - the client may already be gone
                pass
    if "error" in outcome:
        exc = outcome["error"]
        log(f"{label}: the Dask fit failed ({type(exc).__name__}: {exc}); training here")
        return None
    local = model.to_local()
    if proj.classification and [str(c) for c in local.classes_] != list(proj.classes):
        log(f"{label}: the Dask fit saw classes {list(local.classes_)} instead of {proj.classes}; training here")
        return None
    pipe.steps[-1] = (pipe.steps[-1][0], local)
    log(f"{label}: trained on the Dask cluster at {address}, {workers} workers, in {time.monotonic() - started:.1f} s")
    return {"engine": "dask", "scheduler": address, "workers": workers}
