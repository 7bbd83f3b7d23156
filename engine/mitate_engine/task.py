"""The task contract: one class per job kind, one `run` method, a registry built from the subclasses."""

from __future__ import annotations

import importlib
import os
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar


class UserError(Exception):
    """A failure the user can act on. Raise it as EngineError, its one subclass (a test holds every module to that)."""


_MESSAGES: dict | None = None


def messages() -> dict:
    """The engine's message catalogue {code: {en, ja}} (messages.json), which the server also renders from."""
    global _MESSAGES
    if _MESSAGES is None:
        import json

        _MESSAGES = json.loads((Path(__file__).parent / "messages.json").read_text(encoding="utf-8"))
    return _MESSAGES


class EngineError(UserError):
    """The one user error of the engine: a stable code of messages.json and its parameters, raised as
    `EngineError(code, **params)` by every package. str() is the catalogue's English (logs, tests). A job's failure
    carries it as JSON {code, params, message} (see `encoded`) and the server says it in the caller's language from the
    same catalogue. A parameter may be another EngineError (e.g. the reason inside a preprocessing step's error); it
    nests as {code, params, message}."""

    def __init__(self, code: str, **params: Any):
        self.code = code
        self.params = {k: (v.as_dict() if isinstance(v, EngineError) else v) for k, v in params.items()}
        template = (messages().get(code) or {}).get("en")
        self.message = fill(template, params) if template else code
        super().__init__(self.message)

    def as_dict(self) -> dict:
        return {"code": self.code, "params": self.params, "message": self.message}


def fill(template: str, params: dict) -> str:
    """{name} placeholders, as the server's localize does; a nested error gives its English message."""
    import re

    def one(m: re.Match[str]) -> str:
        v = params.get(m.group(1))
        if v is None:
            return m.group(0)
        if isinstance(v, EngineError):
            return v.message
        if isinstance(v, dict) and "message" in v:
            return str(v["message"])
        return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)

    return re.sub(r"\{(\w+)\}", one, template)


def encoded(exc: BaseException) -> str:
    """How a user error travels to the server: JSON {code, params, message} for an EngineError, else its text."""
    if isinstance(exc, EngineError):
        import json

        return json.dumps(exc.as_dict(), ensure_ascii=False, default=str)
    return str(exc)


class Cancelled(Exception):
    """Raised by `Context.check_cancelled` when the job was cancelled."""


_registry: dict[str, type[Task]] = {}


class Task(ABC):
    """Base of every job kind. Subclasses set `kind` and implement `run`; defining the class registers it."""

    kind: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        kind = cls.__dict__.get("kind")
        if not kind:  # an intermediate base without a kind of its own
            return
        known = _registry.get(kind)
        if known is not None and (known.__module__, known.__qualname__) != (cls.__module__, cls.__qualname__):
            raise TypeError(f"task kind {kind!r} is defined twice: {known.__module__} and {cls.__module__}")
        _registry[kind] = cls

    @abstractmethod
    def run(self, spec: dict, ctx: Context) -> dict:
        """The one method a task implements: the JSON result of the job."""


def load_tasks() -> None:
    importlib.import_module("mitate_engine.tasks")


def get_task(kind: str) -> Task:
    load_tasks()
    cls = _registry.get(kind)
    if cls is None:
        raise EngineError("unknown_job_kind", kind=kind)
    return cls()


def task_kinds() -> list[str]:
    load_tasks()
    return sorted(_registry)


Emit = Callable[[dict], None]
HOLD_ENV = "MITATE_TEST_HOLD_FILE"


class Context:
    """What a running task may do besides computing: report progress, log, emit typed events, notice a cancel.

    Progress is throttled here (at most one event per `progress_interval`), so a task may call it per row.
    """

    def __init__(
        self,
        emit: Emit,
        work_dir: str | os.PathLike | None = None,
        cancel_requested: Callable[[], bool] | None = None,
        progress_interval: float = 0.1,
        cancel_interval: float = 0.5,
        kind: str | None = None,
    ) -> None:
        self._emit = emit
        self._kind = kind
        self._held = False
        self._work_dir = Path(work_dir) if work_dir else None
        self._cancel_requested = cancel_requested
        self._progress_interval = progress_interval
        self._cancel_interval = cancel_interval
        self._last_progress = 0.0
        self._last_cancel_check = 0.0
        self._pending: dict | None = None
        self._cancelled = False
        self._lock = threading.Lock()  # a task may report from its own threads

    @property
    def work_dir(self) -> Path:
        if self._work_dir is None:
            raise EngineError("job_no_output_folder")
        self._work_dir.mkdir(parents=True, exist_ok=True)
        return self._work_dir

    def progress(self, fraction: float, message: str = "") -> None:
        fraction = min(1.0, max(0.0, float(fraction))) if fraction == fraction else 0.0
        event = {"type": "progress", "progress": fraction, "message": message}
        now = time.monotonic()
        with self._lock:
            if now - self._last_progress >= self._progress_interval:
                self._last_progress = now
                self._pending = None
                self._emit(event)
            else:
                self._pending = event
        if not self._held and self._kind and os.environ.get(HOLD_ENV):
            self._hold()
        self.check_cancelled()

    def _hold(self) -> None:
        """Crash tests only (MITATE_TEST_HOLD_FILE): while that file lists this job's kind, the task stops at its first
        progress report, mid-way (inputs read, outputs possibly half-written), so a test can kill the process there."""
        path = Path(os.environ[HOLD_ENV])

        def listed() -> bool:
            try:
                return self._kind in path.read_text(encoding="utf-8").split()
            except OSError:
                return False

        if not listed():
            return
        self._held = True
        self.flush()
        line = f"[test hold] {self._kind} pid {os.getpid()}"
        with self._lock:
            self._emit({"type": "log", "line": line})
        with open(f"{path}.held", "a", encoding="utf-8") as f:  # what the test waits for
            f.write(line + "\n")
        while listed():
            time.sleep(0.05)

    def log(self, line: str) -> None:
        with self._lock:
            self._emit({"type": "log", "line": str(line)})

    def event(self, type: str, **data: Any) -> None:
        if type in ("started", "progress", "log", "result", "error", "ready"):
            raise ValueError(f"event type {type!r} is reserved for the protocol")
        with self._lock:
            self._emit({**data, "type": type})

    def check_cancelled(self) -> None:
        if self._cancelled:
            raise Cancelled("cancelled")
        if self._cancel_requested is None:
            return
        now = time.monotonic()
        if now - self._last_cancel_check < self._cancel_interval:
            return
        self._last_cancel_check = now
        if self._cancel_requested():
            self._cancelled = True
            raise Cancelled("cancelled")

    def flush(self) -> None:
        """Sends the last throttled progress, so the final figure is never lost."""
        with self._lock:
            if self._pending is not None:
                event, self._pending = self._pending, None
                self._emit(event)
