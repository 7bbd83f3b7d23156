"""Preprocessing errors carry catalogue codes (en + ja) so the server can say them in the user's language."""

import pandas as pd
import pytest
from mitate_engine.preprocessing import Condition, compute
from mitate_engine.task import EngineError


def df() -> pd.DataFrame:
    return pd.DataFrame({"t": pd.date_range("2024-01-01", periods=4, freq="h"), "x": [1.0, 2.0, 3.0, 4.0], "s": list("abca")})


@pytest.mark.parametrize(
    "text,code,params",
    [
        ("q + 1", "expr_column_missing", {"column": "q"}),
        ("s * 2", "expr_column_not_numeric", {"column": "s"}),
        ("x +", "expr_ends_early", {}),
        ("nope(x)", "expr_unknown_function", {"function": "nope"}),
        ("x / (x - x)", "expr_division_by_zero", {}),
    ],
)
def test_bad_expression_raises_its_code_and_the_catalogue_gives_the_same_english(text, code, params):
    with pytest.raises(EngineError) as info:
        compute(text, df())
    exc = info.value
    assert exc.code == code
    assert params.items() <= exc.params.items()


def test_unknown_column_in_a_step_is_coded_with_the_column():
    with pytest.raises(EngineError) as info:
        Condition([{"process_type": "scaling", "method": "standard", "columns": ["nope"]}], "t").fit_transform(df())
    err = info.value.as_dict()
    assert err["code"] == "step_failed" and err["params"]["step"] == 1
    reason = err["params"]["reason"]
    assert reason["code"] == "step_column_missing" and reason["params"] == {"column": "nope"}


def test_bad_expression_in_a_computed_step_nests_the_expression_code():
    with pytest.raises(EngineError) as info:
        Condition([{"process_type": "computed", "method": "expression", "params": {"name": "w", "expression": "x +"}}], "t")
    err = info.value.as_dict()
    assert err["code"] == "step_failed"
    reason = err["params"]["reason"]
    assert reason["code"] == "step_expression_invalid"
    assert reason["params"]["reason"]["code"] == "expr_ends_early"
    assert str(info.value) == "Step 1 (Computed column, expression): expression: the expression ends too early"


@pytest.mark.parametrize(
    "step,code",
    [
        ({"process_type": "scaling", "method": "zz"}, "step_unknown_method"),
        ({"process_type": "nope", "method": "x"}, "step_unknown_type_of_process"),
        ({"process_type": "outliers", "method": "iqr", "params": {"k": "abc"}}, "step_param_not_number"),
    ],
)
def test_bad_parameters_are_coded_and_the_english_is_unchanged(step, code):
    with pytest.raises(EngineError) as info:
        Condition([step], "t")
    reason = info.value.params["reason"]
    assert reason["code"] == code
    assert EngineError(reason["code"], **reason["params"]).message == reason["message"]


def test_bad_image_settings_are_coded_and_nested_in_the_job_error():
    from mitate_engine.images import preprocess as pp

    with pytest.raises(EngineError) as info:
        pp.settings({"brightness": 9})
    exc = info.value
    assert (exc.code, exc.params) == ("image_factor_range", {"name": "brightness"})
    assert str(exc) == "brightness must be in [0, 5]"


@pytest.mark.parametrize(
    "step",
    [
        {"process_type": "missing", "method": "time", "columns": ["x"]},
        {"process_type": "window", "method": "mean", "columns": ["x"], "params": {"span": "5min"}},
    ],
)
def test_a_time_step_on_a_whole_number_order_column_is_refused_with_its_code(step):
    data = pd.DataFrame({"sample": [1, 2, 3, 4], "x": [1.0, None, 3.0, 4.0]})
    with pytest.raises(EngineError) as info:
        Condition([step], "sample").fit_transform(data)
    reason = info.value.params["reason"]
    assert reason["code"] == "step_order_column_not_datetime" and reason["params"] == {"column": "sample"}
