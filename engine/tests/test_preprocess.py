import json
import math

import numpy as np
import pandas as pd
import pytest
from mitate_engine.preprocessing import Condition, apply_condition, compute, parse, preview_step
from mitate_engine.task import Context, EngineError, UserError, get_task
from sklearn.preprocessing import MinMaxScaler, RobustScaler, StandardScaler


@pytest.fixture
def df():
    return pd.DataFrame(
        {
            "t": pd.date_range("2024-01-01", periods=8, freq="h"),
            "x": [1.0, 2.0, np.nan, 4.0, 5.0, 6.0, 100.0, 8.0],
            "y": [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0],
            "s": ["a", "b", "a", None, "a", "c", "b", "a"],
        }
    )


def run(df, steps, dt="t"):
    c = Condition(steps, dt)
    return c, c.fit_transform(df)


# ---- expression ---------------------------------------------------------------------------------


def test_expression_hand_values(df):
    out = compute("x * 2 + y ^ 2 / 4 - abs(-1)", df)
    assert out.iloc[0] == 1 * 2 + 4 / 4 - 1
    assert math.isnan(out.iloc[2])
    assert compute("-2 ^ 2", df).iloc[0] == -4  # power binds tighter than unary minus
    assert compute("2 ^ 3 ^ 2", df).iloc[0] == 512  # right-associative
    assert compute("[y] ÷ 2 × 3", df).iloc[1] == 6
    lag = compute("lag(y, 2)", df)
    assert lag.isna().sum() == 2 and lag.iloc[2] == 2.0
    assert compute("diff(y)", df).iloc[3] == 2.0
    np.testing.assert_allclose(compute("log(y) + sqrt(y) + exp(0)", df), np.log(df.y) + np.sqrt(df.y) + 1)


@pytest.mark.parametrize(
    "text,msg",
    [
        ("x +", "ends too early"),
        ("nope + 1", 'column "nope" does not exist'),
        ("y / (x - x)", "division by zero"),
        ("__import__(x)", "unknown function"),
        ("x; 1", "unexpected character"),
        ("s * 2", "not numeric"),
    ],
)
def test_expression_errors(df, text, msg):
    with pytest.raises(EngineError, match=msg):
        compute(text, df)


def test_parse_is_a_tree_not_eval():
    node = parse("[a b] + `c` * 2")
    assert type(node).__name__ == "Binary"


# ---- steps against pandas / scikit-learn ---------------------------------------------------------


def test_outliers_iqr_clip_and_remove(df):
    q1, q3 = df.x.quantile(0.25), df.x.quantile(0.75)
    hi = q3 + 1.5 * (q3 - q1)
    c, out = run(df, [{"process_type": "outliers", "method": "iqr", "columns": ["x"], "params": {"action": "clip"}}])
    assert out.x.iloc[6] == pytest.approx(hi)
    assert c.steps[0].fitted_["bounds"]["x"]["upper"] == pytest.approx(hi)
    _, out = run(df, [{"process_type": "outliers", "method": "iqr", "columns": ["x"], "params": {"action": "remove"}}])
    assert len(out) == 7 and 6 not in out.index


def test_outliers_zscore_matches_scipy(df):
    from scipy import stats

    d = df.dropna(subset=["x"])
    z = np.abs(stats.zscore(d.x))
    _, out = run(d, [{"process_type": "outliers", "method": "zscore", "columns": ["x"], "params": {"threshold": 2, "action": "set_missing"}}])
    assert list(out.x.isna()) == list(z > 2)


def test_hampel_replaces_spike_with_rolling_median():
    s = pd.DataFrame({"v": [1.0, 1.1, 0.9, 1.0, 50.0, 1.05, 0.95, 1.0, 1.02]})
    _, out = run(s, [{"process_type": "outliers", "method": "hampel", "columns": ["v"], "params": {"window": 5, "action": "clip"}}], None)
    assert out.v.iloc[4] == pytest.approx(s.v.rolling(5, center=True, min_periods=1).median().iloc[4])
    assert (out.v.drop(4) == s.v.drop(4)).all()


@pytest.mark.parametrize("method,ref", [("standard", StandardScaler), ("minmax", MinMaxScaler), ("robust", RobustScaler)])
def test_scaling_matches_sklearn(method, ref):
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"a": rng.normal(5, 2, 200), "b": rng.gamma(2, 2, 200)})
    c, out = run(d, [{"process_type": "scaling", "method": method, "columns": ["a", "b"]}], None)
    np.testing.assert_allclose(out.values, ref().fit_transform(d.values), rtol=1e-10, atol=1e-12)
    # the fitted figures are applied unchanged to new data
    new = pd.DataFrame({"a": [0.0, 10.0], "b": [1.0, 2.0]})
    np.testing.assert_allclose(apply_condition(new, c.to_dict()).values, ref().fit(d.values).transform(new.values), rtol=1e-10)


def test_scaling_constant_column_names_step_and_column():
    d = pd.DataFrame({"k": [3.0] * 5})
    with pytest.raises(UserError, match=r'Step 1 \(Scaling, standard\): the column "k" is constant'):
        run(d, [{"process_type": "scaling", "method": "standard", "columns": ["k"]}], None)


@pytest.mark.parametrize("method", ["mean", "median", "ffill", "bfill", "linear"])
def test_missing_fill_matches_pandas(df, method):
    _, out = run(df, [{"process_type": "missing", "method": method, "columns": ["x"]}])
    ref = {
        "mean": df.x.fillna(df.x.mean()),
        "median": df.x.fillna(df.x.median()),
        "ffill": df.x.ffill(),
        "bfill": df.x.bfill(),
        "linear": df.x.interpolate(limit_direction="both"),
    }[method]
    pd.testing.assert_series_equal(out.x, ref, check_names=False)


def test_missing_time_mode_constant_drop(df):
    d = df.copy()
    d.loc[1, "t"] = d.t[0] + pd.Timedelta("10min")  # uneven spacing: time interpolation differs from linear
    d.loc[1, "x"] = np.nan
    d.loc[2, "x"] = np.nan
    _, out = run(d, [{"process_type": "missing", "method": "time", "columns": ["x"]}])
    ref = d.set_index("t").x.interpolate(method="time")
    np.testing.assert_allclose(out.x.values, ref.values)
    _, out = run(df, [{"process_type": "missing", "method": "mode", "columns": ["s"]}])
    assert out.s.iloc[3] == "a"
    _, out = run(df, [{"process_type": "missing", "method": "constant", "columns": ["x"], "params": {"value": "-1"}}])
    assert out.x.iloc[2] == -1
    _, out = run(df, [{"process_type": "missing", "method": "drop_rows", "columns": []}])
    assert list(out.index) == [0, 1, 4, 5, 6, 7]
    c, out = run(df, [{"process_type": "missing", "method": "drop_columns", "params": {"threshold": 0.1}}])
    assert list(out.columns) == ["t", "y"] and c.steps[0].fitted_ == {"drop": ["x", "s"]}


def test_windows_match_pandas(df):
    _, out = run(
        df,
        [
            {"process_type": "window", "method": "mean", "columns": ["y"], "params": {"window": 3}},
            {"process_type": "window", "method": "lag", "columns": ["y"], "params": {"lag": 2}},
            {"process_type": "window", "method": "max", "columns": ["y"], "params": {"span": "2h"}},
        ],
    )
    pd.testing.assert_series_equal(out.y_mean_3, df.y.rolling(3).mean(), check_names=False)
    pd.testing.assert_series_equal(out.y_lag2, df.y.shift(2), check_names=False)
    assert out.y_max_2h.tolist() == df.set_index("t").y.rolling("2h").max().tolist()
    with pytest.raises(UserError, match=r"Step 1 \(Moving window, mean\): the window \(20 rows\) is longer than the data \(8 rows\)"):
        run(df, [{"process_type": "window", "method": "mean", "columns": ["y"], "params": {"window": 20}}])


def test_columns_filter_sort(df):
    c, out = run(
        df,
        [
            {"process_type": "columns", "method": "rename", "params": {"mapping": {"t": "time", "y": "why"}}},
            {"process_type": "sort", "method": "datetime", "params": {"ascending": False}},
            {"process_type": "filter", "method": "keep", "params": {"column": "why", "op": "between", "value": 4, "value2": 12}},
            {"process_type": "columns", "method": "retype", "columns": ["why"], "params": {"dtype": "integer"}},
            {"process_type": "columns", "method": "drop", "columns": ["s"]},
            {"process_type": "computed", "method": "expression", "params": {"name": "z", "expression": "why * 10"}},
        ],
    )
    assert c.output_datetime_column_ == "time"
    assert list(out.why) == [12, 10, 8, 6, 4] and str(out.why.dtype) == "Int64"
    assert list(out.columns) == ["time", "x", "why", "z"] and out.z.iloc[0] == 120


def test_bad_method_and_missing_column_are_named(df):
    with pytest.raises(UserError, match=r'Step 1 \(Scaling, zz\): unknown method "zz"'):
        Condition([{"process_type": "scaling", "method": "zz"}])
    with pytest.raises(UserError, match=r'Step 2 \(Computed column, expression\): column "w": the column "q" does not exist'):
        run(
            df,
            [
                {"process_type": "sort", "method": "datetime"},
                {"process_type": "computed", "method": "expression", "params": {"name": "w", "expression": "q + 1"}},
            ],
        )


def test_apply_condition_reuses_fitted_and_refuses_unfitted(df):
    c, out = run(
        df,
        [
            {"process_type": "missing", "method": "mean", "columns": ["x"]},
            {"process_type": "outliers", "method": "iqr", "columns": ["x"], "params": {"action": "clip"}},
            {"process_type": "scaling", "method": "minmax", "columns": ["y"]},
        ],
    )
    stored = json.loads(json.dumps(c.to_dict()))
    again = apply_condition(df, stored)
    pd.testing.assert_frame_equal(again, out.reset_index(drop=True))
    new = pd.DataFrame({"t": pd.date_range("2025-01-01", periods=2, freq="h"), "x": [np.nan, 1e6], "y": [2.0, 30.0], "s": ["a", "b"]})
    res = apply_condition(new, stored)
    assert res.x.iloc[0] == pytest.approx(df.x.mean())  # the training mean, not the new data's
    assert res.x.iloc[1] == pytest.approx(stored["steps"][1]["fitted"]["bounds"]["x"]["upper"])
    assert res.y.tolist() == pytest.approx([0.0, 2.0])
    stored["steps"][2]["fitted"] = None
    with pytest.raises(UserError, match="no fitted parameters"):
        apply_condition(new, stored)


def test_preview_counts_and_chart(df):
    steps = [
        {"process_type": "missing", "method": "linear", "columns": ["x"]},
        {"process_type": "outliers", "method": "iqr", "columns": ["x"], "params": {"action": "remove"}},
    ]
    p = preview_step(df, steps, 1, "t")
    assert p["rows_before"] == 8 and p["rows_after"] == 7 and p["rows_removed"] == 1
    assert p["affected_rows"][0]["status"] == "removed" and p["affected_rows"][0]["before"]["x"] == 100.0
    assert p["chart"]["column"] == "x" and sum(p["chart"]["histogram"]["before"]) == 8 and sum(p["chart"]["histogram"]["after"]) == 7
    p0 = preview_step(df, steps, 0, "t")
    assert p0["rows_changed"] == 1 and p0["cells_changed"] == {"x": 1} and p0["affected_rows"][0]["after"]["x"] == 3.0


def assembled(res: dict) -> pd.DataFrame:
    """The new dataset as registered."""
    return pd.read_parquet(res["parquet"])


def test_column_subset_path_equals_the_whole_table(tmp_path):
    """Issue 20: a condition that keeps every row reads and writes only its columns; the result is exactly the
    whole-table result (values and column order), and a row-removing condition still takes the whole table."""
    rng = np.random.default_rng(7)
    n = 5000
    x = rng.normal(50, 10, n)
    x[rng.random(n) < 0.05] = np.nan
    frame = pd.DataFrame(
        {
            "id": np.arange(n),
            "temperature": x,
            "pressure": rng.random(n) * 50,
            "humidity": rng.random(n) * 100,
            "status": np.array(["OK", "NG", "HOLD"])[np.arange(n) % 3],
            "signal": np.sin(np.arange(n) / 50) + rng.random(n),
        }
    )
    src = tmp_path / "in.parquet"
    frame.to_parquet(src, index=False)
    steps = [
        {"process_type": "missing", "method": "mean", "columns": ["temperature"]},
        {"process_type": "outliers", "method": "iqr", "columns": ["pressure"], "params": {"action": "clip", "k": 1.5}},
        {"process_type": "scaling", "method": "standard", "columns": ["humidity"]},
        {"process_type": "computed", "method": "expression", "params": {"name": "load", "expression": "temperature * pressure / 100"}},
        {"process_type": "window", "method": "mean", "columns": ["load"], "params": {"window": 10}},
    ]
    res = get_task("preprocess").run(
        {"parquet": str(src), "name": "prepared", "steps": steps, "output_dir": str(tmp_path / "a")}, Context(lambda e: None, tmp_path / "a")
    )
    assert res["timings"]["columns_read"] < frame.shape[1]
    assert res["changed_columns"] == ["temperature", "pressure", "humidity", "load", "load_mean_10"]
    expected = Condition(steps).fit_transform(pd.read_parquet(src)).reset_index(drop=True)
    pd.testing.assert_frame_equal(assembled(res), expected, check_exact=True)
    assert list(pd.DataFrame(res["head"]).columns) == list(expected.columns)
    removing = [{"process_type": "outliers", "method": "iqr", "columns": ["pressure"], "params": {"action": "remove"}}]
    res = get_task("preprocess").run(
        {"parquet": str(src), "name": "prepared", "steps": removing, "output_dir": str(tmp_path / "b")}, Context(lambda e: None, tmp_path / "b")
    )
    assert res["parquet"] and res["changed_columns"] is None


def test_tasks_write_dataset_and_condition(df, tmp_path):
    src = tmp_path / "in.parquet"
    df.to_parquet(src, index=False)
    steps = [{"process_type": "missing", "method": "median", "columns": ["x"]}, {"process_type": "scaling", "method": "standard", "columns": ["y"]}]
    out = tmp_path / "out"
    events = []
    res = get_task("preprocess").run(
        {"parquet": str(src), "name": "prepared", "steps": steps, "datetime_column": "t", "output_dir": str(out)}, Context(events.append, out)
    )
    written = assembled(res)
    assert res["row_count"] == 8 and written.x.isna().sum() == 0 and written.y.mean() == pytest.approx(0)
    cond = json.loads((out / "condition.json").read_text())
    assert cond["steps"][0]["fitted"]["values"]["x"] == df.x.median()
    assert [h["process_type"] for h in res["history"]] == ["missing", "scaling"] and res["history"][0]["action_name"] == "median"
    assert res["history"][0]["changes"] == {"rows_before": 8, "rows_after": 8, "columns": ["x"], "fitted": {"values": {"x": df.x.median()}}}
    prev = get_task("preprocess_preview").run(
        {"parquet": str(src), "steps": steps, "index": 0, "sample_rows": 4, "datetime_column": "t"}, Context(events.append, out)
    )
    assert prev["sample"] is True and prev["rows_before"] == 4


def test_apply_condition_can_skip_absent_columns(df):
    c, _ = run(
        df,
        [
            {"process_type": "scaling", "method": "standard", "columns": ["x", "y"]},
            {"process_type": "computed", "method": "expression", "params": {"name": "z", "expression": "y * 2"}},
            {"process_type": "filter", "method": "keep", "params": {"column": "y", "op": ">", "value": 0}},
            {"process_type": "missing", "method": "mean", "columns": ["x"]},
        ],
    )
    stored = c.to_dict()
    new = pd.DataFrame({"t": pd.date_range("2025-01-01", periods=2, freq="h"), "x": [np.nan, 5.0]})  # no "y" (the target)
    with pytest.raises(UserError, match='Step 1 \\(Scaling, standard\\): the column "y" does not exist'):
        apply_condition(new, stored)
    out = apply_condition(new, stored, skip_missing_columns=True)
    sc = stored["steps"][0]["fitted"]["columns"]["x"]
    assert list(out.columns) == ["t", "x"]
    assert out.x.iloc[1] == pytest.approx((5.0 - sc["center"]) / sc["scale"])
    assert out.x.iloc[0] == pytest.approx(stored["steps"][3]["fitted"]["values"]["x"])


# ---- the catalogue of what each method reads (the server refuses any other parameter) ---------------------------

# A valid value for every parameter some method reads, and the columns each kind works on in the `df` fixture.
VALUES = {
    "action": "clip",
    "k": 1.5,
    "threshold": 0.9,
    "window": 3,
    "value": 1,
    "value2": 5,
    "name": "z",
    "expression": "x + y",
    "lag": 1,
    "span": "",
    "min_periods": 1,
    "mapping": {"x": "x2"},
    "dtype": "float",
    "column": "y",
    "op": "between",
    "ascending": True,
}
COLUMNS = {"outliers": ["y"], "missing": ["x"], "scaling": ["y"], "window": ["y"], "columns": ["x"], "sort": ["y"]}


class Reads(dict):
    """Parameters that record which keys the step looks up."""

    def __init__(self, *a):
        super().__init__(*a)
        self.seen: set[str] = set()

    def get(self, k, *d):
        self.seen.add(k)
        return super().get(k, *d)

    def __getitem__(self, k):
        self.seen.add(k)
        return super().__getitem__(k)

    def __contains__(self, k):
        self.seen.add(k)
        return super().__contains__(k)


def test_catalogue_json_is_current():
    from mitate_engine.preprocessing import catalogue as cat

    assert cat.PATH.read_text(encoding="utf-8") == cat.render(), "run: python -m mitate_engine.preprocessing.catalogue"


@pytest.mark.parametrize(
    "kind,method", [(k, m) for k, cls in __import__("mitate_engine.preprocessing.steps", fromlist=["STEP_TYPES"]).STEP_TYPES.items() for m in cls.methods]
)
def test_each_method_reads_only_what_the_catalogue_says(df, kind, method):
    from mitate_engine.preprocessing.steps import STEP_TYPES, State, make_step

    cls = STEP_TYPES[kind]
    declared = set(cls.reads[method])
    spec = {"process_type": kind, "method": method, "columns": COLUMNS.get(kind, []), "params": {p: VALUES[p] for p in declared}}
    step = make_step(spec)
    step.params = Reads(step.params)  # what check_params normalised, now watched through check, fit and transform
    step.check_params()
    step.fit(df.copy(), State("t"))
    step.transform(df.copy(), State("t"))
    step.target_columns(df)
    assert step.params.seen <= declared, f"{kind}/{method} reads {sorted(step.params.seen - declared)} beyond the catalogue"
    for p in cls.required.get(method, ()):  # a required parameter left out is refused before any data is read
        with pytest.raises(EngineError):
            make_step({**spec, "params": {q: v for q, v in spec["params"].items() if q != p}})
