"""Pre-processing: the one implementation of every step, used by the preview, the run and later inference.

Public API
----------
``apply_condition(df: pandas.DataFrame, condition: dict, skip_missing_columns: bool = False) -> pandas.DataFrame``
    Applies a stored condition with its stored fitted parameters (no re-fitting). Use it at prediction time on
    inference data; ``skip_missing_columns=True`` leaves out the parts of steps about absent columns (e.g. the
    target column, which inference data lacks) instead of raising ``EngineError``. The condition of a preprocessed dataset is stored as JSON in the dataset's storage folder,
    ``<MITATE_DATA_DIR>/files/org/<orgId>/datasets/<datasetId>/condition.json`` (key ``datasetKey(orgId, datasetId) + '/condition.json'``) (server side:
    ``storage.pathOf(`${datasetKey(orgId, id)}/condition.json`)``), and in the server table
    ``preprocess_runs.condition_json`` (column ``dataset_id`` = the registered dataset; the named condition's latest
    fit is also in ``preprocess_conditions.fitted_json``); over HTTP: ``GET /api/preprocess/dataset/{id}/condition``.
    Load it with ``json.load(open(path))``. Shape::

        {"name": "...", "datetime_column": "t" | None, "output_datetime_column": "t" | None,
         "steps": [{"process_type": "scaling", "method": "standard", "columns": ["x"], "params": {},
                    "fitted": {"columns": {"x": {"center": 1.5, "scale": 0.5}}}}, ...]}

``Condition(steps, datetime_column)``: the pipeline; ``fit_transform(df)`` learns, ``transform(df)`` reuses.
``preview_step(df, steps, index, datetime_column)``: what step ``index`` changes (rows, cells, charts).

Steps (process_type / method): outliers iqr|zscore|hampel (action remove|set_missing|clip); missing
drop_rows|drop_columns|mean|median|mode|constant|ffill|bfill|linear|time; scaling standard|minmax|robust;
computed expression (safe parser, see expression.py); window mean|std|min|max|median|lag (rows or time span);
columns drop|rename|retype; filter keep; sort datetime|column.
"""

from .condition import Condition, apply_condition, build_steps, preview_step
from .expression import compute, parse
from .steps import STEP_TYPES, State, Step, make_step

__all__ = [
    "Condition",
    "apply_condition",
    "build_steps",
    "preview_step",
    "compute",
    "parse",
    "STEP_TYPES",
    "State",
    "Step",
    "make_step",
]
