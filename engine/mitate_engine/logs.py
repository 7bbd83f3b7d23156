"""The engine's structured log: one JSON object per line on stderr, which the server passes into its own log.

Each record has time, level, msg and `"logger": "mitate_engine"` (how the server tells it from a library's
print), plus what is known of the job: job_id, request_id, kind, attempt; on its end duration_ms, and on a
failure the error code. Both worker front ends (stdio and BullMQ) write the same records.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import threading
import time
from typing import Any

_lock = threading.Lock()


def log(level: str, msg: str, **fields: Any) -> None:
    """Writes one record; fields that are None are left out."""
    record = {
        "time": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "level": level,
        "msg": msg,
        "logger": "mitate_engine",
        "pid": os.getpid(),
        **{k: v for k, v in fields.items() if v is not None},
    }
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
    with _lock:
        # sys.__stderr__: the real stderr even where sys.stdout was pointed at it (worker.Protocol).
        stream = sys.__stderr__ or sys.stderr
        stream.write(line + "\n")
        stream.flush()


def error_code(failure: dict) -> str:
    """A failure event's stable code: an EngineError's code, 'cancelled', a user error, or the exception's type."""
    if failure.get("cancelled"):
        return "cancelled"
    text = str(failure.get("error") or "")
    if text.startswith("{"):
        try:
            code = json.loads(text).get("code")
            if isinstance(code, str):
                return code
        except (ValueError, AttributeError):
            pass
    if failure.get("traceback"):
        return text.split(":", 1)[0] or "error"
    return "user_error"


class JobLog:
    """The records of one job run: started, then succeeded or failed with its duration."""

    def __init__(self, job_id: Any, kind: str, request_id: Any = None, attempt: Any = None, **extra: Any) -> None:
        self.fields: dict[str, Any] = {"job_id": job_id, "request_id": request_id, "kind": kind, "attempt": attempt, **extra}
        self._started = time.monotonic()

    def started(self) -> None:
        log("info", "job started", **self.fields)

    def succeeded(self) -> None:
        log("info", "job succeeded", duration_ms=self._ms(), **self.fields)

    def failed(self, failure: dict) -> None:
        code = error_code(failure)
        level = "info" if code == "cancelled" else "warning" if not failure.get("traceback") else "error"
        log(level, "job cancelled" if code == "cancelled" else "job failed", duration_ms=self._ms(), error_code=code, **self.fields)

    def _ms(self) -> int:
        return round((time.monotonic() - self._started) * 1000)
