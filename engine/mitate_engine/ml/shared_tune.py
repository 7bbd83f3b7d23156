"""Auto-tune trials of one training job spread over several workers through Optuna's RDB storage (PostgreSQL).

The server turns it on when its database is PostgreSQL and more than one worker may take jobs: the `train` job gets
spec.tune_shared = {"storage": <SQLAlchemy URL>, "study": <job id>} and helper jobs (kind `tune_helper`) with the same
spec run on other workers. Each tunable model has one study `<job id>:<model key>`, with a state in its user
attributes: `pending` (made at the job's start), `open` (the main job is tuning it: helpers join), `closed` (done,
failed or never tuned: helpers move on). The total count of trials stays the project's n.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from functools import lru_cache

STATE = "mitate_state"
N_TRIALS = "mitate_n_trials"
WAIT_S = float(os.environ.get("MITATE_TUNE_WAIT_S") or 120)


_lock = threading.Lock()


@lru_cache(maxsize=4)
def _storage(url: str):
    import optuna
    import sqlalchemy.exc

    for attempt in range(5):
        try:
            return optuna.storages.RDBStorage(url, engine_kwargs={"pool_pre_ping": True, "pool_size": 2, "max_overflow": 2})
        except (sqlalchemy.exc.IntegrityError, sqlalchemy.exc.ProgrammingError) as e:
            # another worker created Optuna's tables (or their enum types: DuplicateObject) at the same moment: they
            # exist now; any other programming error is a fault
            if attempt == 4 or (isinstance(e, sqlalchemy.exc.ProgrammingError) and "already exists" not in str(e.orig)):
                raise
            time.sleep(0.2 * (attempt + 1))
    raise RuntimeError("unreachable")


def storage(url: str):
    with _lock:
        return _storage(url)


storage.cache_clear = _storage.cache_clear  # type: ignore[attr-defined]


def name(shared: dict, key: str) -> str:
    return f"{shared['study']}:{key}"


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _create(shared: dict, key: str, sampler=None):
    import optuna

    return optuna.create_study(direction="maximize", sampler=sampler, storage=storage(shared["storage"]), study_name=name(shared, key), load_if_exists=True)


def prepare(shared: dict, keys: list[str]) -> None:
    """The main job, before any model: every model's study exists (pending), so helpers know what to wait for."""
    for key in keys:
        s = _create(shared, key)
        if STATE not in s.user_attrs:
            s.set_user_attr(STATE, "pending")


def study(shared: dict, key: str, sampler):
    return _create(shared, key, sampler)


def open_study(s, n_trials: int) -> None:
    s.set_user_attr(N_TRIALS, n_trials)
    s.set_user_attr(STATE, "open")


def close_study(s) -> None:
    s.set_user_attr(STATE, "closed")


def wait_running(s, deadline: float | None) -> None:
    """The main job, its own trials done: trials other workers already started count among the n, so wait for them
    to finish before closing the study (else the report lists fewer than n). Bounded: by the time budget, and by
    three times the longest finished trial (at least 30 s), in case a helper died mid-trial."""
    import optuna

    running = optuna.trial.TrialState.RUNNING
    took = [(t.datetime_complete - t.datetime_start).total_seconds() for t in s.get_trials(deepcopy=False) if t.datetime_complete and t.datetime_start]
    end = time.monotonic() + max(30.0, 3 * max(took, default=0.0))
    if deadline is not None:
        end = min(end, deadline)
    while time.monotonic() < end and any(t.state == running for t in s.get_trials(deepcopy=False)):
        time.sleep(0.2)


def close(shared: dict, key: str) -> None:
    """A model finished (or failed, or had nothing to tune): helpers stop and move on."""
    try:
        close_study(_create(shared, key))
    except Exception:  # noqa: BLE001 - closing is best effort; helpers also stop at n trials or their deadline
        pass


def is_closed(s) -> bool:
    import optuna

    return optuna.load_study(study_name=s.study_name, storage=s._storage).user_attrs.get(STATE) == "closed"


def wait_open(shared: dict, key: str, sampler):
    """A helper: the study once the main job opens it; None once it is closed, or when it never appears."""
    import optuna

    end = time.monotonic() + WAIT_S
    hard = time.monotonic() + 3600  # the server cancels helpers when the main job ends; this is the last resort
    while time.monotonic() < hard:
        try:
            s = optuna.load_study(study_name=name(shared, key), storage=storage(shared["storage"]), sampler=sampler)
            state = s.user_attrs.get(STATE)
            if state == "closed":
                return None
            if state == "open":
                return s
            end = time.monotonic() + WAIT_S  # pending: the main job is on an earlier model
        except KeyError:
            if time.monotonic() > end:
                return None
        time.sleep(0.2)
    return None
