"""Persistent job worker over stdio: JSON lines in (one job each), JSON lines out (events).

In:  {"id": "<job id>", "kind": "statistics", "spec": {...}, "request_id"?, "trace"?: {"traceparent", ...}, "attempt"?}
Out: {"type": "ready"} once, then per job {"id", "type": "started"}, any number of progress / log / typed
     events, and exactly one terminal {"type": "result", "result": {...}} or {"type": "error", "error": "..."}.
"""

from __future__ import annotations

import io
import json
import os
import queue
import sys
import threading
import time

from .encoding import dumps
from .lifeline import exit_with_parent
from .logs import JobLog, error_code
from .runner import error_event, release_memory, run_task
from .task import Context, task_kinds
from .telemetry import job_span, mark_failed, span_fields, tracer


class Protocol:
    """Owns the real stdout; everything else that writes to fd 1 lands on stderr instead."""

    def __init__(self) -> None:
        sys.stdout.flush()
        self._out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1, newline="\n")
        os.dup2(2, 1)  # C extensions and print() now write to stderr, never into the protocol
        sys.stdout = sys.stderr
        self._lock = threading.Lock()

    def send(self, event: dict) -> None:
        line = dumps(event)
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()


def run_one(proto: Protocol, message: dict) -> None:
    job_id = message.get("id")
    kind = str(message.get("kind"))
    jlog = JobLog(job_id, kind, request_id=message.get("request_id"), attempt=message.get("attempt"))
    with job_span(kind, job_id, message.get("trace"), message.get("request_id"), message.get("attempt")) as span:
        jlog.fields.update(span_fields(span))
        failure = _run(proto, message, jlog)
        if failure:
            mark_failed(span, error_code(failure))


def _run(proto: Protocol, message: dict, jlog: JobLog) -> dict | None:
    """Runs the job and sends its events; answers the failure event, if it failed."""
    job_id = message.get("id")

    def emit(event: dict) -> None:
        proto.send({"id": job_id, **event})

    spec = message.get("spec") or {}
    ctx = Context(emit, work_dir=spec.get("output_dir") if isinstance(spec, dict) else None, kind=str(message.get("kind")))
    emit({"type": "started", "pid": os.getpid()})
    jlog.started()
    started = time.monotonic()
    try:
        result = run_task(str(message.get("kind")), spec, ctx)
    except Exception as exc:  # every failure becomes one terminal event; the worker lives on
        ctx.flush()
        busy.clear()  # the job is over before its last event leaves: an end of input after it is a clean end
        failure = error_event(exc)
        jlog.failed(failure)
        emit(failure)
        return failure
    busy.clear()
    try:
        emit({"type": "result", "result": result, "seconds": round(time.monotonic() - started, 3)})
    except (TypeError, ValueError) as exc:  # a result JSON cannot hold
        failure = error_event(exc)
        jlog.failed(failure)
        emit(failure)
        return failure
    jlog.succeeded()
    return None


def read_jobs(lines: queue.Queue[str | None]) -> None:
    """Reads stdin on its own thread, so the end of input is seen even while a job runs."""
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8")
    for raw in stdin:
        lines.put(raw)
    lines.put(None)
    if busy.is_set():
        # Input ended mid-job: the server is gone (a stopping server kills busy workers itself), and no one
        # will read the result. Stop now rather than run on as an orphan.
        os._exit(71)


busy = threading.Event()


def main() -> int:
    exit_with_parent()
    proto = Protocol()
    kinds = task_kinds()  # imports every task module before we say we are ready
    tracer()  # and the tracing SDK, when configured
    proto.send({"type": "ready", "pid": os.getpid(), "kinds": kinds})
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=read_jobs, args=(lines,), name="stdin", daemon=True).start()
    while (raw := lines.get()) is not None:
        raw = raw.strip()
        if not raw:
            continue
        try:
            message = json.loads(raw)
            if not isinstance(message, dict) or "id" not in message:
                raise ValueError("a job line needs an object with id, kind and spec")
        except ValueError as exc:
            proto.send({"id": None, "type": "error", "error": f"bad job line: {exc}"})
            continue
        busy.set()
        try:
            run_one(proto, message)
        finally:
            busy.clear()
        release_memory()
    return 0


if __name__ == "__main__":
    sys.exit(main())
