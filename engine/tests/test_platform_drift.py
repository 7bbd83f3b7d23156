"""Input drift of hosted models (platform/drift.py): PSI and the two-sample tests against scipy, the range and missing
shares, a shifted feature found and an unshifted one left alone, and the job on a Parquet file."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from mitate_engine.platform.drift import compare, numeric_edges, numeric_shares, psi_categorical, psi_numeric, score_drift
from mitate_engine.task import Context, get_task
from scipy import stats


def test_psi_is_the_symmetric_kl_divergence_of_the_binned_shares():
    rng = np.random.default_rng(1)
    ref, cur = rng.normal(size=5000), rng.normal(0.5, 1.2, size=800)
    edges = numeric_edges(ref)
    r, c = numeric_shares(ref, edges), numeric_shares(cur, edges)
    assert len(edges) == 9 and r == pytest.approx(np.full(10, 0.1), abs=1e-3)
    # PSI = KL(c || r) + KL(r || c) (no empty bin here, so the floor does not enter)
    assert psi_numeric(ref, cur) == pytest.approx(stats.entropy(c, r) + stats.entropy(r, c), rel=1e-12)
    assert psi_numeric(ref, rng.normal(size=5000)) < 0.02
    assert psi_numeric(ref, rng.normal(1.0, 1.0, size=5000)) > 0.2


def test_categorical_psi_and_chi_square_against_scipy():
    ref = pd.Series(list("aab" * 300 + "c" * 100))
    cur = pd.Series(list("abb" * 100 + "d" * 10))
    cats = ["a", "b", "c", "d"]
    r = ref.value_counts().reindex(cats, fill_value=0).to_numpy(float)
    c = cur.value_counts().reindex(cats, fill_value=0).to_numpy(float)
    rs, cs = np.maximum(r / r.sum(), 1e-4), np.maximum(c / c.sum(), 1e-4)
    assert psi_categorical(ref, cur) == pytest.approx(float(np.sum((cs - rs) * np.log(cs / rs))), rel=1e-12)
    [f] = compare(pd.DataFrame({"x": ref}), pd.DataFrame({"x": cur}), ["x"], {"x": "categorical"})
    expected = stats.chi2_contingency(np.vstack([r, c]))
    assert (
        f["test"] == "chi2"
        and f["statistic"] == pytest.approx(expected.statistic, rel=1e-5)
        and f["p_value"] == pytest.approx(expected.pvalue, rel=1e-5, abs=1e-12)
    )
    assert f["outside"] == pytest.approx(10 / 310, abs=1e-6)  # 'd' never seen in training


def test_numeric_figures_ks_range_and_missing():
    rng = np.random.default_rng(2)
    train = pd.DataFrame({"a": rng.uniform(0, 10, 2000), "b": rng.normal(50, 5, 2000)})
    a = rng.uniform(0, 10, 500)
    b = rng.normal(50, 5, 500) + 20  # shifted
    b[:50] = np.nan
    served = pd.DataFrame({"a": a, "b": b})
    fa, fb = compare(train, served, ["a", "b"], {"a": "numeric", "b": "numeric"})
    ks = stats.ks_2samp(train["a"], a)
    assert fa["test"] == "ks" and fa["statistic"] == pytest.approx(ks.statistic, abs=1e-6) and fa["p_value"] == pytest.approx(ks.pvalue, abs=1e-6)
    assert fa["psi"] < 0.1 and fa["p_value"] > 0.01 and fa["missing"] == 0
    assert fa["outside"] == pytest.approx(float(np.mean((a < train["a"].min()) | (a > train["a"].max()))), abs=1e-6) and fa["outside"] < 0.01
    assert fb["psi"] > 1 and fb["p_value"] < 1e-10
    assert fb["missing"] == pytest.approx(0.1)
    present = b[50:]
    assert fb["outside"] == pytest.approx(float(np.mean(present > train["b"].max())), abs=1e-6)
    # a feature the requests never sent is missing in every row
    [fc] = compare(train, served.drop(columns=["a"]), ["a"], {"a": "numeric"})
    assert fc["missing"] == 1 and fc["psi"] is None


def test_score_drift_of_image_models():
    rng = np.random.default_rng(3)
    ok = rng.normal(0.2, 0.05, 400)
    same = score_drift(rng.normal(0.2, 0.05, 300), ok)
    worse = score_drift(rng.normal(0.35, 0.05, 300), ok)
    assert same["psi"] < 0.1 and worse["psi"] > 0.2 and worse["p_value"] < 1e-6 and worse["outside"] > same["outside"]


def test_the_job_reads_the_training_parquet_and_the_samples(tmp_path):
    rng = np.random.default_rng(4)
    train = pd.DataFrame({"x": rng.normal(size=1000), "y": rng.normal(size=1000), "kind": rng.choice(["p", "q"], 1000)})
    train.to_parquet(tmp_path / "train.parquet")
    model = tmp_path / "model"
    model.mkdir()
    (model / "manifest.json").write_text(json.dumps({"features": ["x", "y", "kind"], "model_columns": {"x": "numeric", "y": "numeric", "kind": "categorical"}}))
    rows = [
        {"x": float(v), "y": float(w) + 3, "kind": k} for v, w, k in zip(rng.normal(size=300), rng.normal(size=300), rng.choice(["p", "q"], 300), strict=True)
    ]
    (tmp_path / "samples.json").write_text(json.dumps({"rows": rows}))
    events: list = []
    ctx = Context(lambda e: events.append(e), kind="platform_drift")
    out = get_task("platform_drift").run({"samples": str(tmp_path / "samples.json"), "model_dir": str(model), "parquet": str(tmp_path / "train.parquet")}, ctx)
    by = {f["feature"]: f for f in out["features"]}
    assert out["rows"] == 300 and not out["condition_applied"]
    assert by["y"]["psi"] > 1 and by["x"]["psi"] < 0.1 and by["kind"]["test"] == "chi2" and by["kind"]["psi"] < 0.1
