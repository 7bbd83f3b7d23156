"""The server's declaration of each job kind (job_kinds.json, written by the server's `npm run -w server openapi`
from the zod declarations in server/src/features/<area>/jobs.ts): the spec a task is handed is checked on entry, so
a server and engine that disagree fail with a clear message before any work; with MITATE_STRICT_RESULTS (tests) the
result is checked too, so a key the server does not declare is caught where it is written."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

from jsonschema import Draft202012Validator

from .task import EngineError

STRICT_ENV = "MITATE_STRICT_RESULTS"


@cache
def _declared() -> dict:
    return json.loads((Path(__file__).parent / "job_kinds.json").read_text(encoding="utf-8"))


@cache
def _validator(kind: str, part: str) -> Draft202012Validator | None:
    schema = _declared().get(kind, {}).get(part)
    return Draft202012Validator(schema) if schema is not None else None


def _first_error(kind: str, part: str, value: dict) -> str | None:
    validator = _validator(kind, part)
    if validator is None:
        return None
    error = next(iter(sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))), None)
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(top)"
    return f"{where}: {error.message[:300]}"


def check_spec(kind: str, spec: dict) -> None:
    """A spec that is not its kind's declared shape is refused, naming the first place it differs."""
    problem = _first_error(kind, "spec", spec)
    if problem:
        raise EngineError("job_spec_invalid", kind=kind, problem=problem)


def check_result(kind: str, result: dict) -> None:
    """Tests only (MITATE_STRICT_RESULTS): a result must be its kind's declared shape, no undeclared key."""
    if not os.environ.get(STRICT_ENV):
        return
    problem = _first_error(kind, "result", result)
    if problem:
        raise TypeError(f"the {kind} result is not the shape the server declares ({problem}); declare it in the area's jobs.ts")
