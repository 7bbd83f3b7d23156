import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from mitate_engine.task import Context, UserError, get_task


def run(spec, tmp_path):
    events = []
    out = tmp_path / "out"
    result = get_task("statistics").run({"output_dir": str(out), **spec}, Context(events.append, out))
    return result, events


@pytest.fixture
def frame():
    rng = np.random.default_rng(7)
    n = 500
    x = rng.gamma(2.0, 3.0, n)
    x[rng.choice(n, 40, replace=False)] = np.nan
    i = pd.array(rng.integers(-5, 50, n), dtype="Int64")
    i[rng.choice(n, 10, replace=False)] = pd.NA
    s = pd.Series(rng.choice(["alpha", "beta", "gamma", "delta"], n, p=[0.5, 0.25, 0.15, 0.1]), dtype=object)
    s[rng.choice(n, 25, replace=False)] = None
    b = pd.Series(rng.random(n) < 0.3, dtype="boolean")
    b[:5] = pd.NA
    t = pd.Series(pd.date_range("2024-01-01", periods=n, freq="h"))
    t[[3, 9]] = pd.NaT
    return pd.DataFrame({"x": x, "i": i, "s": s, "b": b, "t": t, "z": np.zeros(n), "c": pd.Categorical(s)})


def test_figures_match_pandas(frame, tmp_path):
    path = tmp_path / "data.parquet"
    frame.to_parquet(path)
    result, events = run({"parquet": str(path), "datetime_column": "t", "bins": 10, "max_categories": 3}, tmp_path)
    cols = {c["name"]: c for c in result["columns"]}
    assert result["row_count"] == len(frame) and result["column_count"] == frame.shape[1]

    for name in ("x", "i"):
        s = frame[name].astype("float64")
        c = cols[name]
        d = s.describe()
        assert c["kind"] == "numeric"
        assert c["count"] == d["count"] and c["missing"] == s.isna().sum()
        assert c["unique"] == s.nunique()
        for key, ref in [("mean", "mean"), ("std", "std"), ("min", "min"), ("q1", "25%"), ("median", "50%"), ("q3", "75%"), ("max", "max")]:
            assert c[key] == pytest.approx(d[ref], rel=1e-12), key
        assert c["skewness"] == pytest.approx(s.skew(), rel=1e-9)
        assert c["kurtosis"] == pytest.approx(s.kurt(), rel=1e-9)
        counts, edges = np.histogram(s.dropna(), bins=10)
        assert c["histogram"]["counts"] == counts.tolist()
        assert c["histogram"]["edges"] == pytest.approx(edges.tolist())
        assert c["zeros"] == int((s == 0).sum())
    assert cols["i"]["dtype"] == "int64" and isinstance(cols["i"]["min"], int)

    z = cols["z"]  # constant: pandas gives NaN skew and kurtosis, we give null
    assert z["std"] == 0 and z["skewness"] is None and z["kurtosis"] is None and z["zeros"] == len(frame)

    for name in ("s", "c"):
        c = cols[name]
        vc = frame["s"].value_counts()
        assert c["kind"] == "categorical"
        assert c["missing"] == frame["s"].isna().sum() and c["unique"] == frame["s"].nunique()
        assert [t["value"] for t in c["top"]] == vc.index[:3].tolist()
        assert [t["count"] for t in c["top"]] == vc.values[:3].tolist()
        assert c["other"] == vc.values[3:].sum()

    b = cols["b"]
    assert b["kind"] == "boolean" and b["missing"] == 5 and b["unique"] == 2
    assert {t["value"]: t["count"] for t in b["top"]} == frame["b"].value_counts().to_dict()

    t = cols["t"]
    assert t["kind"] == "datetime" and t["missing"] == 2 and t["count"] == len(frame) - 2
    assert t["min"] == frame["t"].min().isoformat() and t["max"] == frame["t"].max().isoformat()
    assert sum(t["histogram"]["counts"]) == t["count"] and len(t["histogram"]["edges"]) == 11

    written = json.loads((tmp_path / "out" / "statistics.json").read_text())
    assert written == result
    assert events and events[0]["type"] == "progress"


def test_non_finite_values_become_null_and_json_stays_valid(tmp_path):
    path = tmp_path / "d.parquet"
    pd.DataFrame({"v": [1.0, np.inf, 2.0, None], "one": [1.0, None, None, None]}).to_parquet(path)
    result, _ = run({"parquet": str(path)}, tmp_path)
    v, one = result["columns"]
    assert v["max"] is None and v["mean"] is None and v["infinite"] == 1 and v["count"] == 3
    assert v["histogram"]["counts"] and sum(v["histogram"]["counts"]) == 2
    assert one["std"] is None and one["skewness"] is None and one["mean"] == 1.0
    json.dumps(result, allow_nan=False)


def test_datetime_column_stored_as_text_is_parsed(tmp_path):
    path = tmp_path / "d.parquet"
    pd.DataFrame({"when": ["2024-01-01 00:00:00", "2024-01-02 00:00:00", None, "nonsense"]}).to_parquet(path)
    result, _ = run({"parquet": str(path), "datetime_column": "when"}, tmp_path)
    (when,) = result["columns"]
    assert when["kind"] == "datetime" and when["count"] == 2 and when["missing"] == 2
    assert when["min"].startswith("2024-01-01") and when["max"].startswith("2024-01-02")


def test_empty_file_and_all_null_columns(tmp_path):
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"a": pa.array([], pa.float64()), "s": pa.array([], pa.string())}), path)
    result, _ = run({"parquet": str(path)}, tmp_path)
    assert result["row_count"] == 0
    assert result["columns"][0]["mean"] is None and result["columns"][1]["top"] == []


def test_unreadable_inputs_are_user_errors(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        run({"parquet": str(tmp_path / "missing.parquet")}, tmp_path)
    bad = tmp_path / "bad.parquet"
    bad.write_text("this is not parquet")
    with pytest.raises(UserError, match="could not be read as Parquet"):
        run({"parquet": str(bad)}, tmp_path)
    good = tmp_path / "g.parquet"
    pd.DataFrame({"a": [1]}).to_parquet(good)
    with pytest.raises(UserError, match='datetime column "when"'):
        run({"parquet": str(good), "datetime_column": "when"}, tmp_path)
