"""Preprocessing errors carry catalogue codes (en + ja) so the server can say them in the user's language."""

import re
from pathlib import Path

import pandas as pd
import pytest
from mitate_engine.preprocessing import Condition, compute
from mitate_engine.preprocessing.expression import ExpressionError
from mitate_engine.task import EngineError, messages

ENGINE = Path(__file__).resolve().parents[1] / "mitate_engine"
SOURCES = ENGINE / "preprocessing"
#: every preprocessing module: the steps and expressions, the image operations and the jobs that run them
ALL_SOURCES = [*SOURCES.rglob("*.py"), ENGINE / "images" / "preprocess.py", *(ENGINE / "tasks").glob("*preprocess*.py")]
CODE = re.compile(r'(?:code=|EngineError\(|StepError\(|code = )"([a-z0-9_]+)"|"(step_param_[a-z_]+)"|SettingsError\(f?"[^"]*", "([a-z0-9_]+)"')


def used_codes() -> set[str]:
    codes: set[str] = set()
    for path in ALL_SOURCES:
        for m in CODE.finditer(path.read_text(encoding="utf-8")):
            codes.add(m.group(1) or m.group(2) or m.group(3))
    return codes


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_every_preprocessing_code_is_in_the_catalogue_in_both_languages():
    codes = used_codes()
    assert len(codes) >= 50, sorted(codes)  # the scan itself works
    assert {"expr_ends_early", "step_param_between", "image_crop_range", "image_factor_range", "image_unknown_mode"} <= codes
    cat = messages()
    for code in sorted(codes):
        assert code in cat, f"{code} is raised but not in messages.json"
        entry = cat[code]
        assert entry.get("en", "").strip() and entry.get("ja", "").strip(), code
        assert placeholders(entry["en"]) == placeholders(entry["ja"]), code


def test_no_uncoded_error_is_left_in_the_preprocessing_sources():
    for path in SOURCES.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"raise (StepError|ExpressionError)\(", text):
            call = text[m.end() : m.end() + 600]
            depth, end = 1, 0
            for i, ch in enumerate(call):
                depth += ch == "("
                depth -= ch == ")"
                if depth == 0:
                    end = i
                    break
            assert "code=" in call[:end], f"{path.name}: {text[m.start() : m.end() + end + 1]}"


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
    with pytest.raises(ExpressionError) as info:
        compute(text, df())
    exc = info.value
    assert exc.code == code
    assert params.items() <= exc.params.items()
    assert EngineError(exc.code, **exc.params).message == str(exc)  # catalogue English == today's text


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

    with pytest.raises(pp.SettingsError) as info:
        pp.settings({"brightness": 9})
    exc = info.value
    assert (exc.code, exc.params) == ("image_factor_range", {"name": "brightness"})
    assert EngineError(exc.code, **exc.params).message == str(exc) == "brightness must be in [0, 5]"
    assert "raise ValueError(" not in (ENGINE / "images" / "preprocess.py").read_text(encoding="utf-8")


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
