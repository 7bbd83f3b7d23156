"""Every pre-processing step, one class each, with the scikit-learn contract (the contract in base.py; the steps by
family: cleaning.py, derived.py, table.py). A step is described by a dict
``{"process_type", "method", "columns", "params", "fitted"?}``.
"""

from __future__ import annotations

from ...task import EngineError
from .base import State, Step, datetime_index, is_numeric, quartiles
from .cleaning import Missing, Outliers
from .derived import Computed, Scaling, Window
from .table import Columns, Filter, Sort

__all__ = ["State", "Step", "datetime_index", "is_numeric", "quartiles", "STEP_TYPES", "LABELS", "catalogue", "make_step"]

STEP_TYPES: dict[str, type[Step]] = {cls.process_type: cls for cls in (Outliers, Missing, Scaling, Computed, Window, Columns, Filter, Sort)}

LABELS = {
    "outliers": "Outliers",
    "missing": "Missing values",
    "scaling": "Scaling",
    "computed": "Computed column",
    "window": "Moving window",
    "columns": "Columns",
    "filter": "Row filter",
    "sort": "Sort",
}


def catalogue() -> dict:
    """Each kind's methods with the parameters they read and require (catalogue.json, for the server's checks)."""
    return {kind: {m: {"reads": list(cls.reads[m]), "required": list(cls.required.get(m, ()))} for m in cls.methods} for kind, cls in STEP_TYPES.items()}


def make_step(spec: dict) -> Step:
    if not isinstance(spec, dict):
        raise EngineError("step_not_object")
    kind = spec.get("process_type")
    cls = STEP_TYPES.get(str(kind))
    if cls is None:
        raise EngineError("step_unknown_type_of_process", kind=str(kind), allowed=", ".join(STEP_TYPES))
    return cls(spec)
