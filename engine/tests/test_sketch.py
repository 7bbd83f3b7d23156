"""Exploration sketches written by the statistics job (issue 17): exact where they claim to be."""

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
from mitate_engine.task import Context, get_task


def run(frame, tmp_path, row_group_size=None):
    path = tmp_path / "data.parquet"
    frame.to_parquet(path, row_group_size=row_group_size)
    out = tmp_path / "statistics"
    sketch = tmp_path / "sketch"
    get_task("statistics").run({"parquet": str(path), "output_dir": str(out), "sketch_dir": str(sketch)}, Context(lambda e: None, out))
    return sketch, json.loads((sketch / "manifest.json").read_text())


def frame(n=5000, seed=3):
    rng = np.random.default_rng(seed)
    x = rng.normal(10, 3, n)
    y = 0.5 * x + rng.normal(0, 1, n)
    z = rng.integers(0, 7, n)  # many ties
    gap = rng.gamma(2, 2, n)
    gap[rng.choice(n, 50, replace=False)] = np.nan
    return pd.DataFrame({"x": x, "y": y, "z": z, "gap": gap, "s": rng.choice(["a", "b"], n)})


def test_sorted_and_values_files_are_the_data(tmp_path):
    df = frame()
    sketch, m = run(df, tmp_path)
    by = {c["name"]: c for c in m["columns"]}
    assert set(by) == {"x", "y", "z", "gap"}
    for name, c in by.items():
        values = np.fromfile(sketch / f"{c['file']}.values.f64", dtype="<f8")
        srt = np.fromfile(sketch / f"{c['file']}.sorted.f64", dtype="<f8")
        col = df[name].to_numpy(dtype=float)
        np.testing.assert_array_equal(values, col)
        np.testing.assert_array_equal(srt, np.sort(col[~np.isnan(col)]))
        assert c["count"] == int((~np.isnan(col)).sum())
    assert by["gap"]["complete"] is False and by["x"]["complete"] is True


def test_pearson_and_spearman_match_pandas_on_all_rows(tmp_path):
    df = frame()
    _, m = run(df, tmp_path)
    names = m["pearson"]["names"]
    assert names == ["x", "y", "z"]
    cov = np.array(m["pearson"]["cov"])
    d = np.sqrt(np.diag(cov))
    np.testing.assert_allclose(cov / np.outer(d, d), df[names].corr().to_numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.array(m["spearman"]["matrix"]), df[names].corr(method="spearman").to_numpy(), rtol=0, atol=1e-12)


def test_sample_is_whole_rows_without_repeats(tmp_path, monkeypatch):
    import mitate_engine.sketch as sk

    monkeypatch.setattr(sk, "SAMPLE_ROWS", 700)
    df = frame().reset_index(names="row")
    sketch, m = run(df, tmp_path, row_group_size=1000)
    sample = pq.read_table(sketch / "sample.parquet").to_pandas()
    assert m["sample_rows"] == len(sample) == 700
    assert sample["row"].is_unique and not sample["row"].is_monotonic_increasing  # random order
    pd.testing.assert_frame_equal(sample.reset_index(drop=True), df.set_index("row").loc[sample["row"]].reset_index())


def test_a_new_sketch_replaces_the_old_one(tmp_path):
    _, first = run(frame(seed=1), tmp_path)
    _, second = run(frame(seed=2), tmp_path)
    assert first["build_id"] != second["build_id"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("sketch")] == ["sketch"]


def test_columns_beyond_the_disk_budget_are_left_out(tmp_path, monkeypatch):
    import mitate_engine.sketch as sk

    monkeypatch.setattr(sk, "MAX_BYTES", 5000 * 16 * 2)
    _, m = run(frame(), tmp_path)
    assert [c["name"] for c in m["columns"]] == ["x", "y"]
    assert m["pearson"]["names"] == ["x", "y"]


def test_average_ranks_equal_pandas_with_ties():
    from mitate_engine.sketch import average_ranks

    rng = np.random.default_rng(5)
    for values in (rng.integers(0, 30, 20_000).astype(float), rng.normal(size=5_000), np.array([2.0]), np.array([1.0, 1.0, 1.0])):
        ranks = average_ranks(values, np.sort(values))
        np.testing.assert_array_equal(ranks, pd.Series(values).rank(method="average").to_numpy())


def test_sample_is_stratified_over_row_ranges_in_every_prefix(tmp_path, monkeypatch):
    import mitate_engine.sketch as sk

    monkeypatch.setattr(sk, "SAMPLE_ROWS", 600)
    monkeypatch.setattr(sk, "SAMPLE_STRATA", 20)
    df = frame(n=5000).reset_index(names="row")
    sketch, m = run(df, tmp_path, row_group_size=700)
    assert m["sample_rows"] == 600 and m["sample_strata"] == 20
    rows = pq.read_table(sketch / "sample.parquet", columns=["row"]).column(0).to_numpy()
    assert len(set(rows)) == 600
    for prefix in (20, 100, 300, 600):  # m rows of each of the 20 ranges of 250 rows
        counts = np.bincount(rows[:prefix] // 250, minlength=20)
        assert counts.tolist() == [prefix // 20] * 20


def test_stratified_rows_shares_and_chance():
    from mitate_engine.sketch import stratified_rows

    rng = np.random.default_rng(0)
    picked = stratified_rows(1003, 97, 10, rng)
    assert len(set(picked.tolist())) == 97 and picked.min() >= 0 and picked.max() < 1003
    bounds = (np.arange(11) * 1003) // 10
    shares = np.histogram(picked, bounds)[0]
    assert shares.sum() == 97 and shares.max() - shares.min() <= 1
    # Every row has about the same chance: over many draws, each tenth of the rows gets its tenth of the picks.
    hits = np.zeros(1003)
    for _ in range(400):
        hits[stratified_rows(1003, 97, 10, rng)] += 1
    assert abs(hits[:500].sum() / hits.sum() - 500 / 1003) < 0.01


def test_density_grids_count_the_cells_of_every_pair(tmp_path):
    df = frame()
    df.loc[7, "x"] = df["x"].max()  # a second row on the closed last edge
    sketch, m = run(df, tmp_path)
    g = m["grid"]
    assert g["bins"] == 100 and [c["name"] for c in g["columns"]] == ["x", "y", "z"]
    counts = np.fromfile(sketch / g["file"], dtype="<u4").reshape(-1, 100, 100)
    assert counts.shape[0] == 3  # (x, y), (x, z), (y, z)

    def cell(v, lo, hi):
        w = (hi - lo) / 100 if hi > lo else 1.0
        return np.minimum(np.floor((v - lo) / w), 99).astype(int)

    names = ["x", "y", "z"]
    k = 0
    for i in range(3):
        for j in range(i + 1, 3):
            a, b = df[names[i]].to_numpy(float), df[names[j]].to_numpy(float)
            assert g["columns"][i]["lo"] == a.min() and g["columns"][i]["hi"] == a.max()
            want = np.zeros((100, 100), dtype=np.int64)
            np.add.at(want, (cell(a, a.min(), a.max()), cell(b, b.min(), b.max())), 1)
            np.testing.assert_array_equal(counts[k], want)
            k += 1
