"""A preprocessing condition: an ordered pipeline of steps (SPEC §3), fitted once and applied unchanged after."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from ..encoding import to_jsonable
from ..task import EngineError
from .steps import LABELS, State, Step, is_numeric, make_step


def _label(i: int, spec: dict) -> str:
    kind = spec.get("process_type") if isinstance(spec, dict) else None
    method = spec.get("method") if isinstance(spec, dict) else None
    return f"Step {i + 1} ({LABELS.get(str(kind), str(kind))}{', ' + str(method) if method else ''})"


def step_error(i: int, spec: dict, reason: EngineError) -> EngineError:
    """A step's failure: which step (number and kind) with the reason nested."""
    kind = spec.get("process_type") if isinstance(spec, dict) else None
    method = spec.get("method") if isinstance(spec, dict) else None
    return EngineError("step_failed", step=i + 1, kind=LABELS.get(str(kind), str(kind)) + (f", {method}" if method else ""), reason=reason)


def build_steps(specs: list[dict]) -> list[Step]:
    """Builds (and validates without data) every step; a bad one raises EngineError naming it."""
    if not isinstance(specs, list) or not specs:
        raise EngineError("condition_no_steps")
    steps = []
    for i, spec in enumerate(specs):
        try:
            steps.append(make_step(spec))
        except EngineError as exc:
            raise step_error(i, spec, exc) from None
    return steps


#: steps that keep every row in place, with the methods that do (None: all of them)
ROW_KEEPING: dict[str, set[str] | None] = {
    "missing": {"mean", "median", "mode", "constant", "ffill", "bfill", "linear", "time"},
    "outliers": None,
    "scaling": None,
    "computed": None,
    "window": None,
}


class Condition:
    """Pipeline of steps with the scikit-learn verbs: fit_transform learns, transform reuses what was learnt."""

    def __init__(self, steps: list[dict], datetime_column: str | None = None, name: str = ""):
        self.specs = steps
        self.steps = build_steps(steps)
        self.datetime_column = datetime_column or None
        self.name = name
        self.output_datetime_column_: str | None = self.datetime_column

    def _run(
        self, df: pd.DataFrame, fit: bool, progress: Callable[[int, int], None] | None = None, upto: int | None = None, lenient: bool = False
    ) -> pd.DataFrame:
        state = State(self.datetime_column if self.datetime_column in df.columns else None)
        steps = self.steps if upto is None else self.steps[:upto]
        self.step_effects_: list[dict] = []
        self.step_seconds_: list[float] = []
        for i, step in enumerate(steps):
            started = time.perf_counter()
            before_rows, before_cols = len(df), list(df.columns)
            if progress:
                progress(i, len(self.steps))
            if lenient:
                limited = step.restricted_to([str(c) for c in df.columns])
                if limited is None:
                    self.step_effects_.append({"rows_before": before_rows, "rows_after": len(df), "skipped": True})
                    continue
                step = limited
            try:
                if fit:
                    step.fit(df, state)
                elif step.fitted_ is None:
                    raise EngineError("step_unfitted")
                df = step.transform(df, state)
            except EngineError as exc:
                raise step_error(i, step.to_dict(), exc) from None
            if df.shape[1] == 0:
                raise step_error(i, step.to_dict(), EngineError("step_no_column_left"))
            effect = {"rows_before": before_rows, "rows_after": len(df)}
            added = [str(c) for c in df.columns if c not in before_cols]
            dropped = [str(c) for c in before_cols if c not in df.columns]
            if added:
                effect["columns_added"] = added
            if dropped:
                effect["columns_dropped"] = dropped
            self.step_effects_.append(effect)
            self.step_seconds_.append(time.perf_counter() - started)
        self.output_datetime_column_ = state.datetime_column
        return df

    def column_plan(self) -> tuple[list[str], list[str]] | None:
        """(the source columns the condition reads, the columns it changes or adds) when it keeps every row in
        place and touches only columns it names, so every other column can pass through untouched (issue 20);
        None when a step may remove, reorder, rename or drop, or works on columns it does not name."""
        read: list[str] = []
        changed: list[str] = []
        made: set[str] = set()
        for step in self.steps:
            kind = step.process_type
            if kind not in ROW_KEEPING or (ROW_KEEPING[kind] and step.method not in ROW_KEEPING[kind]):
                return None
            if kind == "outliers" and step.params.get("action") == "remove":
                return None
            source = step.source_columns() if kind == "computed" else step.columns
            if not source and kind != "computed":
                return None
            read += [c for c in source if c not in made and c not in read]
            # Columns a step creates are read by later steps from the frame, not from the file.
            if kind == "computed":
                targets = [str(step.params.get("name") or "")]
                made.update(targets)
            elif kind == "window":
                targets = [step.out_name(c) for c in step.columns]
                made.update(targets)
            else:
                targets = list(step.columns)
            changed += [c for c in targets if c not in changed]
        # The datetime column only when a step reads the time (these steps keep it where and as it is).
        timed = any((s.process_type == "missing" and s.method == "time") or (s.process_type == "window" and s.params.get("span")) for s in self.steps)
        if timed and self.datetime_column and self.datetime_column not in read:
            read.append(self.datetime_column)
        return read, changed

    def fit_transform(self, df: pd.DataFrame, progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
        return self._run(df, True, progress)

    def transform(self, df: pd.DataFrame, progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
        return self._run(df, False, progress)

    def to_dict(self) -> dict:
        return to_jsonable(
            {
                "name": self.name,
                "datetime_column": self.datetime_column,
                "output_datetime_column": self.output_datetime_column_,
                "steps": [s.to_dict() for s in self.steps],
            }
        )

    def history(self, before: pd.DataFrame | None = None, when: str | None = None) -> list[dict]:
        """One preprocess-history entry per step: {process_type, action_name, changes, modified_at}."""
        when = when or dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        out = []
        effects = getattr(self, "step_effects_", [])
        for i, step in enumerate(self.steps):
            changes = step.changes()
            if i < len(effects):
                changes = {**effects[i], **changes}
            out.append({"process_type": step.process_type, "action_name": step.method, "changes": to_jsonable(changes), "modified_at": when})
        return out


def apply_condition(df: pd.DataFrame, condition: dict, skip_missing_columns: bool = False, keep_index: bool = False) -> pd.DataFrame:
    """Applies a stored condition to new data (e.g. inference data) with its stored fitted parameters.

    `condition` is the dict stored with a preprocessed dataset (``condition.json`` in the dataset's storage
    folder): ``{"name", "datetime_column", "steps": [{"process_type", "method", "columns", "params", "fitted"}]}``.
    Nothing is re-fitted: means, scales, bounds and fill values learnt on the training data are used as they are.
    Rows removed by outlier / missing / filter steps are removed here too; the index is reset at the end.
    Raises ``EngineError`` naming the step and column when the data does not fit the condition
    (e.g. a column the condition needs is missing). With ``skip_missing_columns=True`` the parts of steps that
    concern absent columns are left out instead (typical for inference data without the target column): a scaling
    of [x, target] scales x alone; a computed column or row filter that reads an absent column is skipped.
    With ``keep_index=True`` the input's row labels are kept (a model meets each output with its input row).
    """
    cond = Condition(condition.get("steps") or [], condition.get("datetime_column"), condition.get("name") or "")
    for i, step in enumerate(cond.steps):
        if step.learns and step.fitted_ is None:
            raise step_error(i, step.to_dict(), EngineError("step_not_fitted"))
        if step.fitted_ is None:
            step.fitted_ = {}
    out = cond._run(df, False, lenient=skip_missing_columns)
    return out if keep_index else out.reset_index(drop=True)


# ---- preview ------------------------------------------------------------------------------------


def _hist(before: pd.Series, after: pd.Series, bins: int = 30) -> dict | None:
    b = pd.to_numeric(before, errors="coerce").astype("float64").dropna() if before is not None else pd.Series(dtype="float64")
    a = pd.to_numeric(after, errors="coerce").astype("float64").dropna() if after is not None else pd.Series(dtype="float64")
    both = pd.concat([b, a])
    both = both[np.isfinite(both)]
    if both.empty:
        return None
    lo, hi = float(both.min()), float(both.max())
    if lo == hi:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, bins + 1)
    return {
        "edges": edges.tolist(),
        "before": np.histogram(b[np.isfinite(b)], edges)[0].tolist() if len(b) else [0] * bins,
        "after": np.histogram(a[np.isfinite(a)], edges)[0].tolist() if len(a) else [0] * bins,
    }


def _series(s: pd.Series | None, x: pd.Series, limit: int = 2000) -> list | None:
    if s is None:
        return None
    step = max(1, int(np.ceil(len(s) / limit)))
    part = s.iloc[::step]
    xs = x.loc[part.index] if x is not None else pd.Series(part.index, index=part.index)
    return [[to_jsonable(a), to_jsonable(b)] for a, b in zip(xs.tolist(), pd.to_numeric(part, errors="coerce").tolist())]


def preview_step(df: pd.DataFrame, steps: list[dict], index: int, datetime_column: str | None, max_rows: int = 50) -> dict:
    """Runs steps[:index] (fitted on `df`), then fits step `index` on the result and compares before and after.

    Returns counts (rows before / after / removed, changed cells per column), the affected rows side by side,
    a before/after histogram of the affected column and, for a time series, both series.
    """
    cond = Condition(steps[: index + 1], datetime_column)
    before = cond._run(df, True, upto=index)
    dt_col = cond.output_datetime_column_
    state = State(dt_col if dt_col in before.columns else None)
    step = cond.steps[index]
    try:
        step.fit(before, state)
        after = step.transform(before, state)
    except EngineError as exc:
        raise step_error(index, step.to_dict(), exc) from None
    removed_idx = before.index.difference(after.index)
    kept = after.index.intersection(before.index)
    targets = [c for c in step.target_columns(before if step.process_type != "computed" else after) if c in before.columns or c in after.columns]
    changed: dict[str, int] = {}
    row_mask = pd.Series(False, index=kept)
    for c in after.columns:
        if c in before.columns:
            a, b = after.loc[kept, c], before.loc[kept, c]
            try:
                diff = ~((a == b) | (a.isna() & b.isna()))
            except TypeError:
                diff = a.astype("string") != b.astype("string")
            diff = diff.fillna(True).astype(bool)
        else:
            diff = after.loc[kept, c].notna()
        n = int(diff.sum())
        if n:
            changed[c] = n
            row_mask |= diff
    dropped_columns = [c for c in before.columns if c not in after.columns]
    added_columns = [c for c in after.columns if c not in before.columns]
    order_changed = not before.index.equals(after.index) and len(removed_idx) == 0
    focus = targets[0] if targets else (next(iter(changed)) if changed else None)

    # Affected rows: removed ones first, then changed ones, side by side for the columns that changed.
    show_cols = list(dict.fromkeys(([dt_col] if dt_col and dt_col in before.columns else []) + targets + list(changed)))[:8]
    rows = []
    for idx in list(removed_idx[:max_rows]):
        rows.append(
            {
                "row": int(idx) if isinstance(idx, (int, np.integer)) else str(idx),
                "status": "removed",
                "before": {c: to_jsonable(before.at[idx, c]) for c in show_cols if c in before.columns},
                "after": None,
            }
        )
    for idx in list(row_mask[row_mask].index[: max(0, max_rows - len(rows))]):
        rows.append(
            {
                "row": int(idx) if isinstance(idx, (int, np.integer)) else str(idx),
                "status": "changed",
                "before": {c: to_jsonable(before.at[idx, c]) for c in show_cols if c in before.columns},
                "after": {c: to_jsonable(after.at[idx, c]) for c in show_cols if c in after.columns},
            }
        )

    chart = None
    if focus is not None:
        bcol = before[focus] if focus in before.columns else None
        acol = after[focus] if focus in after.columns else None
        numeric = (bcol is not None and is_numeric(bcol)) or (acol is not None and is_numeric(acol))
        if numeric:
            x_before = before[dt_col] if dt_col and dt_col in before.columns else None
            x_after = after[dt_col] if dt_col and dt_col in after.columns else None
            chart = {
                "column": focus,
                "histogram": _hist(bcol, acol),
                "series": {"x": "datetime" if x_before is not None else "row", "before": _series(bcol, x_before), "after": _series(acol, x_after)},
            }
    return to_jsonable(
        {
            "step": step.to_dict(),
            "step_label": _label(index, step.to_dict()),
            "rows_before": len(before),
            "rows_after": len(after),
            "rows_removed": len(removed_idx),
            "rows_changed": int(row_mask.sum()),
            "cells_changed": changed,
            "columns_before": len(before.columns),
            "columns_after": len(after.columns),
            "columns_added": added_columns,
            "columns_dropped": dropped_columns,
            "order_changed": order_changed,
            "target_columns": targets,
            "affected_rows": rows,
            "affected_columns": show_cols,
            "chart": chart,
            "datetime_column": state.datetime_column,
        }
    )
