"""Runs one job and turns its outcome into the protocol's terminal event; shared by both worker front ends."""

from __future__ import annotations

import gc
import sys
import traceback
from typing import Any

from .job_kinds import check_result, check_spec
from .task import Cancelled, Context, EngineError, encoded, get_task


def run_task(kind: str, spec: dict, ctx: Context) -> dict:
    if not isinstance(spec, dict):
        raise EngineError("spec_not_object")
    task = get_task(kind)
    check_spec(kind, spec)
    result = task.run(spec, ctx)
    ctx.flush()
    if result is None:
        return {}
    if not isinstance(result, dict):
        raise TypeError(f"task {kind!r} returned {type(result).__name__}, not a dict")
    check_result(kind, result)
    return result


def error_event(exc: BaseException) -> dict[str, Any]:
    """The failure record: a user error (EngineError) as its JSON {code, params, message}, which the server says in
    the reader's language; any other exception as '<Type>: <message>' with the traceback."""
    if isinstance(exc, Cancelled):
        return {"type": "error", "error": "cancelled", "cancelled": True}
    if isinstance(exc, EngineError):
        return {"type": "error", "error": encoded(exc)}
    text = str(exc)
    return {
        "type": "error",
        "error": f"{type(exc).__name__}: {text}" if text else type(exc).__name__,
        "traceback": "".join(traceback.format_exception(exc)),
    }


def release_memory() -> None:
    """Hands memory back to the system between jobs; Arrow's allocator otherwise keeps what a big job took."""
    gc.collect()
    pyarrow = sys.modules.get("pyarrow")
    if pyarrow is not None:
        pyarrow.default_memory_pool().release_unused()
