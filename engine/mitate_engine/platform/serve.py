"""A serving process over stdio: JSON lines in (a batch of prediction requests for one model), JSON lines out.

In:  {"id": n, "model": {"key": "<cache key>", "dir": "<folder with model.joblib [, condition.json]>"},
      "requests": [{"rows": [{column: value, ...}, ...]} | {"csv": "<CSV text with a header>"} | {"plan": true}, ...]}
Out: {"type": "ready"} once, then per line {"id": n, "results": [{"outputs": [...], "predictions": [{...}]}
      | {"error": "<message>", "column": "<column or null>", "status": 422}
      | {"plan": <serving plan or null>, "samples": {"rows", "outputs", "predictions"} or null}, ...]}
      in the order of the requests.

Models stay loaded (a small LRU cache), so a request costs a prediction, not a load. Each model is also compiled at
load into a cheap array predictor (platform/fast.py, checked equal to the shared path); JSON rows it can take go
through it, everything else (CSV, a condition with steps, lags, a value the shared check must refuse) through the
shared model path. {"plan": true} asks for the compiled predictor as JSON data (fast.FastPredictor.plan) with the
shared path's answers on its sample rows, for the server to evaluate in its own process. Concurrent requests for the same model arrive as one line and are predicted together; if that
fails, each request is predicted alone so every caller gets its own answer. A time-series detector's requests carry
"tsad" (threshold in force, and for a stream the rows the server kept) and are answered by platform/timeseries.py.

A folder with model.pt holds an image model: its requests are {"image": "<base64>", "threshold", "heatmap"}, answered
by platform/images.py.
"""

from __future__ import annotations

import os

# OpenMP's threads (torch, LightGBM, scikit-learn) wait for work by sleeping, not spinning: on a busy machine a
# spinning thread holds a core another process needs, and a 2-thread forward pass of an image model took 1 s instead
# of 15 ms. Read when OpenMP loads, so before numpy, pandas and torch; the same threads split the same work, so the
# numbers do not change. A policy set by the operator is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import io  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
from collections import OrderedDict  # noqa: E402
from typing import Any  # noqa: E402

import joblib  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ..encoding import dumps  # noqa: E402
from ..ml.model_io import load_condition, predict_frame  # noqa: E402
from ..task import EngineError, UserError  # noqa: E402
from . import timeseries  # noqa: E402
from .fast import FastPredictor, compile_model  # noqa: E402
from .images import ImageModels, is_image_model  # noqa: E402
from .images import answer as image_answers  # noqa: E402

CACHE_SIZE = int(os.environ.get("MITATE_SERVE_CACHE", "16"))
MAX_ROWS = int(os.environ.get("MITATE_SERVE_MAX_ROWS", "10000"))


def error_result(exc: BaseException) -> dict:
    """One place that turns an engine error into the serving answer: 422 with the catalogue code and parameters
    (the server says it in the caller's language) and the column when the error names one."""
    if isinstance(exc, EngineError):
        column = exc.params.get("column")
        return {"error": str(exc), "code": exc.code, "params": exc.params, "column": None if column is None else str(column), "status": 422}
    if isinstance(exc, UserError):  # an uncoded user error (a step outside the catalogue): its English text
        m = re.search(r'"([^"]+)"', str(exc))
        return {"error": str(exc), "code": None, "column": m.group(1) if m else None, "status": 422}
    return {"error": f"{type(exc).__name__}: {exc}", "column": None, "status": 500}


class ModelCache:
    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._items: OrderedDict[str, tuple[Any, dict | None, FastPredictor | None]] = OrderedDict()
        self.images = ImageModels()  # image OK/NG and classification models (platform/images.py)

    def get(self, key: str, folder: str) -> tuple[Any, dict | None, FastPredictor | None]:
        hit = self._items.get(key)
        if hit is not None:
            self._items.move_to_end(key)
            return hit
        path = os.path.join(folder, "model.joblib")
        if not os.path.isfile(path):
            raise EngineError("serve_model_missing")
        cond_path = os.path.join(folder, "condition.json")
        model = joblib.load(path)
        condition = load_condition(cond_path) if os.path.isfile(cond_path) else None
        item = (model, condition, compile_model(model, condition))
        self._items[key] = item
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        return item


def to_frame(request: dict) -> pd.DataFrame:
    if "csv" in request:
        try:
            df = pd.read_csv(io.StringIO(str(request["csv"])))
        except Exception as exc:  # noqa: BLE001 - an unreadable body is the caller's
            raise EngineError("serve_csv_unreadable", reason=str(exc)) from exc
    else:
        rows = request.get("rows")
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise EngineError("serve_bad_body")
        df = pd.DataFrame.from_records(rows)
    if len(df) == 0:
        raise EngineError("serve_no_rows")
    if len(df) > MAX_ROWS:
        raise EngineError("serve_too_many_rows", max=MAX_ROWS, rows=len(df))
    return df


def records(out: pd.DataFrame) -> list[dict]:
    cols = list(out.columns)
    values = out.to_numpy(dtype=object)
    return [{c: (None if isinstance(v, float) and not np.isfinite(v) else v) for c, v in zip(cols, row)} for row in values]


def batch(model, condition, frames: list, members: list[int], results: list) -> bool:
    """One frame for the requests of a group (pandas and scikit-learn cost per call, not per row); False when
    some request's rows are bad, so each is then answered on its own."""
    try:
        whole = pd.concat([frames[i] for i in members], ignore_index=True)
        out = predict_frame(model, whole, condition)
    except BaseException:  # noqa: BLE001
        return False
    start = 0
    for i in members:
        n = len(frames[i])
        results[i] = {"outputs": list(out.columns), "predictions": records(out.iloc[start : start + n])}
        start += n
    return True


def fast_answers(fast: FastPredictor, requests: list, results: list) -> None:
    """The JSON-row requests through the compiled predictor, all together when they can be; a request it cannot
    take (or that fails) keeps None and goes the shared way."""
    mine = [i for i, r in enumerate(requests) if isinstance(r, dict) and isinstance(r.get("rows"), list) and 0 < len(r["rows"]) <= MAX_ROWS]
    if not mine:
        return
    try:
        together = fast.predict_rows([row for i in mine for row in requests[i]["rows"]]) if len(mine) > 1 else None
    except Exception:  # noqa: BLE001
        together = None
    if together is not None:
        names, preds = together
        start = 0
        for i in mine:
            n = len(requests[i]["rows"])
            results[i] = {"outputs": names, "predictions": preds[start : start + n]}
            start += n
        return
    for i in mine:
        try:
            got = fast.predict_rows(requests[i]["rows"])
        except Exception:  # noqa: BLE001
            got = None
        if got is not None:
            results[i] = {"outputs": got[0], "predictions": got[1]}


def plan_result(fast: FastPredictor | None) -> dict:
    try:
        plan = fast.plan() if fast is not None else None
    except Exception:  # noqa: BLE001 - no plan means this process keeps serving the model
        plan = None
    return {"plan": plan, "samples": fast.samples if plan is not None else None}


def tsad_result(model, condition, request) -> dict:
    """A time-series detector's request (platform/timeseries.py): a block of rows, or the next rows of a stream."""
    try:
        if not isinstance(request, dict):
            raise EngineError("serve_bad_body")
        return timeseries.answer(model, condition, request)
    except BaseException as exc:  # noqa: BLE001
        return error_result(exc)


def answer(cache: ModelCache, message: dict) -> list[dict]:
    spec = message.get("model") or {}
    requests = message.get("requests") or []
    if is_image_model(str(spec.get("dir"))):
        return image_answers(cache.images, spec, requests)
    try:
        model, condition, fast = cache.get(str(spec.get("key")), str(spec.get("dir")))
    except BaseException as exc:  # noqa: BLE001
        return [error_result(exc)] * len(requests)
    if timeseries.is_tsad(model):
        return [tsad_result(model, condition, r) for r in requests]
    results: list[dict | None] = [None] * len(requests)
    for i, r in enumerate(requests):
        if isinstance(r, dict) and r.get("plan") is True:
            results[i] = plan_result(fast)
    if fast is not None:
        fast_answers(fast, requests, results)
    frames: list[pd.DataFrame | None] = []
    for i, r in enumerate(requests):
        if results[i] is not None:
            frames.append(None)
            continue
        try:
            frames.append(to_frame(r))
        except BaseException as exc:  # noqa: BLE001
            frames.append(None)
            results[i] = error_result(exc)
    # Requests are batched only with others of the same columns: concatenating would fill a missing column with
    # empty values and hide the error from its caller.
    groups: dict[tuple, list[int]] = {}
    for i, f in enumerate(frames):
        if f is not None:
            groups.setdefault(tuple(f.columns), []).append(i)
    alone: list[int] = []
    for members in groups.values():
        if len(members) == 1 or not batch(model, condition, frames, members, results):
            alone.extend(members)
    for i in alone:
        try:
            out = predict_frame(model, frames[i], condition)
            results[i] = {"outputs": list(out.columns), "predictions": records(out)}
        except BaseException as exc:  # noqa: BLE001
            results[i] = error_result(exc)
    return results  # type: ignore[return-value]


def main() -> int:
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1, newline="\n")
    os.dup2(2, 1)  # stray prints from libraries go to stderr, never into the protocol
    sys.stdout = sys.stderr
    cache = ModelCache()
    out.write(dumps({"type": "ready", "pid": os.getpid()}) + "\n")
    out.flush()
    for raw in io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8"):
        if not raw.strip():
            continue
        try:
            message = json.loads(raw)
            reply = {"id": message.get("id"), "results": answer(cache, message)}
        except Exception as exc:  # noqa: BLE001 - the process lives on
            reply = {"id": None, "error": f"bad line: {exc}"}
        out.write(dumps(reply) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
