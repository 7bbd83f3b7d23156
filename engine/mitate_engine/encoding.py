"""What crosses the process boundary: plain JSON, with NaN and infinities as null."""

from __future__ import annotations

import datetime as dt
import json
import math
from typing import Any

import numpy as np


def to_jsonable(value: Any) -> Any:
    """Turns numpy scalars and arrays, dates and non-finite floats into what JSON can hold."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, int):
        return value
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        f = float(value)
        return f if math.isfinite(f) else None
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if hasattr(value, "isoformat"):  # pandas.Timestamp and friends
        return value.isoformat()
    return str(value)


def dumps(value: Any) -> str:
    """One line of strict JSON (allow_nan=False proves no NaN slipped through)."""
    return json.dumps(to_jsonable(value), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
