"""Kind `statistical_analysis`: figures against SciPy / statsmodels (1e-9) and the published sleep-data example."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from mitate_engine.task import Context, EngineError, encoded, get_task
from scipy import stats

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
SLEEP = SHARED / "ttest_student_sleep"
TOL = dict(rel=1e-9, abs=1e-12)


def run(spec, tmp_path):
    out = tmp_path / "out"
    events = []
    base = {"significance_level": 0.05, "alternative": "two-sided", "hypothetical_mean": 0, "equal_variance": "auto"}
    result = get_task("statistical_analysis").run({"output_dir": str(out), **base, **spec}, Context(events.append, out))
    assert json.loads((out / "result.json").read_text()) == json.loads(json.dumps(result))
    return result


@pytest.fixture(scope="module")
def sleep_df():
    return pd.read_csv(SLEEP / "sleep.csv")


@pytest.fixture
def sleep(tmp_path, sleep_df):
    p = tmp_path / "sleep.parquet"
    sleep_df.to_parquet(p, index=False)
    return str(p)


@pytest.fixture(scope="module")
def expected():
    return json.loads((SLEEP / "expected_results.json").read_text())


def test_paired_t_on_student_sleep_data_matches_r_and_scipy(sleep, sleep_df, expected, tmp_path):
    # Rows in a different order; the ID column pairs them.
    shuffled = tmp_path / "shuffled.parquet"
    sleep_df.sample(frac=1, random_state=3).to_parquet(shuffled, index=False)
    e = expected["paired_t_test"]
    g1 = sleep_df[sleep_df.group == 1].sort_values("ID").extra.to_numpy()
    g2 = sleep_df[sleep_df.group == 2].sort_values("ID").extra.to_numpy()
    ref = stats.ttest_rel(g1, g2)
    for path, key in ((sleep, None), (str(shuffled), "ID")):
        r = run({"parquet": path, "test_type": "paired_t", "variable1": "extra", "variable2": key, "category": "group", "group1": "1", "group2": "2"}, tmp_path)
        assert round(r["statistic"]["value"], 4) == e["t"] and r["df"] == e["df"] and round(r["p_value"], 6) == e["p_value"]
        assert r["statistic"]["value"] == pytest.approx(e["full_precision"]["t"], rel=1e-9)
        assert r["p_value"] == pytest.approx(e["full_precision"]["p_value"], rel=1e-9)
        assert [r["ci"]["low"], r["ci"]["high"]] == pytest.approx(e["full_precision"]["conf_int_95"], rel=1e-9)
        assert r["estimate"]["value"] == pytest.approx(e["mean_difference"], rel=1e-12)
        assert r["statistic"]["value"] == pytest.approx(ref.statistic, **TOL) and r["p_value"] == pytest.approx(ref.pvalue, **TOL)
        assert r["reject"] is True and r["pairs"] == 10
        assert r["effect_size"]["value"] == pytest.approx((g1 - g2).mean() / (g1 - g2).std(ddof=1), **TOL)


@pytest.mark.parametrize("mode,key", [("welch", "welch_two_sample_t_test"), ("student", "student_pooled_two_sample_t_test")])
def test_two_sample_t_matches_r(sleep, sleep_df, expected, tmp_path, mode, key):
    e = expected[key]["full_precision"]
    r = run(
        {"parquet": sleep, "test_type": "two_sample_t", "variable1": "extra", "category": "group", "group1": "1", "group2": "2", "equal_variance": mode},
        tmp_path,
    )
    a, b = sleep_df.extra[sleep_df.group == 1], sleep_df.extra[sleep_df.group == 2]
    ref = stats.ttest_ind(a, b, equal_var=mode == "student")
    assert r["method"] == mode
    assert r["statistic"]["value"] == pytest.approx(e["t"], rel=1e-9) and r["p_value"] == pytest.approx(e["p_value"], rel=1e-9)
    assert r["statistic"]["value"] == pytest.approx(ref.statistic, **TOL) and r["p_value"] == pytest.approx(ref.pvalue, **TOL)
    assert r["df"] == pytest.approx(ref.df, **TOL)
    ci = ref.confidence_interval(0.95)
    assert [r["ci"]["low"], r["ci"]["high"]] == pytest.approx([ci.low, ci.high], **TOL)
    assert [r["ci"]["low"], r["ci"]["high"]] == pytest.approx(e["conf_int_95"], rel=1e-8)
    assert [g["mean"] for g in r["groups"]] == pytest.approx([0.75, 2.33], rel=1e-12)
    assert r["reject"] is False
    lev = stats.levene(a, b)
    assert r["equal_variance"]["levene_p"] == pytest.approx(lev.pvalue, **TOL)
    assert r["equal_variance"]["levene_statistic"] == pytest.approx(lev.statistic, **TOL)


def test_one_sample_t_and_one_sided_alternatives(sleep, sleep_df, expected, tmp_path):
    e = expected["one_sample_t_test_all_20_values_mu0"]
    r = run({"parquet": sleep, "test_type": "one_sample_t", "variable1": "extra"}, tmp_path)
    assert round(r["statistic"]["value"], 3) == e["t"] and r["df"] == 19 and round(r["p_value"], 6) == e["p_value"]
    assert [r["ci"]["low"], r["ci"]["high"]] == pytest.approx(e["conf_int_95"], rel=1e-6)
    x = sleep_df.extra.to_numpy()
    for alt in ("less", "greater"):
        r = run(
            {"parquet": sleep, "test_type": "one_sample_t", "variable1": "extra", "hypothetical_mean": 1.2, "alternative": alt, "significance_level": 0.1},
            tmp_path,
        )
        ref = stats.ttest_1samp(x, 1.2, alternative=alt)
        ci = ref.confidence_interval(0.9)
        assert r["p_value"] == pytest.approx(ref.pvalue, **TOL)
        assert (r["ci"]["low"], r["ci"]["high"]) == (
            pytest.approx(ci.low, **TOL) if np.isfinite(ci.low) else None,
            pytest.approx(ci.high, **TOL) if np.isfinite(ci.high) else None,
        )
        ref_curve = r["charts"]["reference"]
        assert (ref_curve["critical_low"] is None) == (alt == "greater")


@pytest.fixture
def mixed(tmp_path):
    rng = np.random.default_rng(11)
    n = 300
    df = pd.DataFrame(
        {
            "a": rng.normal(10, 2, n),
            "b": rng.normal(10.6, 3, n),
            "y": rng.gamma(2, 2, n),
            "line": rng.choice(["L1", "L2", "L3", "L4"], n),
            "shift": rng.choice(["day", "night"], n, p=[0.6, 0.4]),
        }
    )
    df.loc[rng.choice(n, 15, replace=False), "a"] = np.nan
    df["y"] = df["y"] + df["line"].map({"L1": 0, "L2": 0.5, "L3": 1.0, "L4": 0.2})
    p = tmp_path / "mixed.parquet"
    df.to_parquet(p, index=False)
    return str(p), df


def test_two_columns_and_rank_tests_match_scipy(mixed, tmp_path):
    path, df = mixed
    a, b = df.a.dropna().to_numpy(), df.b.to_numpy()
    r = run({"parquet": path, "test_type": "two_sample_t", "variable1": "a", "variable2": "b", "equal_variance": "auto"}, tmp_path)
    assert r["n_missing"] == 15 and r["groups"][0]["missing"] == 15 and {"code": "missing_dropped", "params": {"count": 15}} in r["warnings"]
    assert r["method"] == ("welch" if stats.levene(a, b).pvalue < 0.05 else "student")
    assert r["p_value"] == pytest.approx(stats.ttest_ind(a, b, equal_var=r["method"] == "student").pvalue, **TOL)

    r = run(
        {"parquet": path, "test_type": "mann_whitney", "variable1": "y", "category": "shift", "group1": "day", "group2": "night", "alternative": "greater"},
        tmp_path,
    )
    y1, y2 = df.y[df["shift"] == "day"], df.y[df["shift"] == "night"]
    ref = stats.mannwhitneyu(y1, y2, alternative="greater")
    assert r["statistic"]["value"] == pytest.approx(ref.statistic, **TOL) and r["p_value"] == pytest.approx(ref.pvalue, **TOL)

    r = run({"parquet": path, "test_type": "wilcoxon", "variable1": "a", "variable2": "b"}, tmp_path)
    ok = df.a.notna()
    ref = stats.wilcoxon(df.a[ok] - df.b[ok])
    assert r["statistic"]["value"] == pytest.approx(ref.statistic, **TOL) and r["p_value"] == pytest.approx(ref.pvalue, **TOL)
    assert r["n_missing"] == 15

    r = run({"parquet": path, "test_type": "wilcoxon", "variable1": "y", "hypothetical_mean": 4}, tmp_path)
    ref = stats.wilcoxon(df.y - 4)
    assert r["p_value"] == pytest.approx(ref.pvalue, **TOL)

    r = run({"parquet": path, "test_type": "f_test", "variable1": "y", "category": "shift", "group1": "day", "group2": "night"}, tmp_path)
    f = y1.var(ddof=1) / y2.var(ddof=1)
    d1, d2 = len(y1) - 1, len(y2) - 1
    assert r["statistic"]["value"] == pytest.approx(f, **TOL)
    assert r["p_value"] == pytest.approx(2 * min(stats.f.cdf(f, d1, d2), stats.f.sf(f, d1, d2)), **TOL)
    assert r["ci"]["low"] == pytest.approx(f / stats.f.ppf(0.975, d1, d2), **TOL)


def test_anova_tukey_match_scipy_and_statsmodels(mixed, tmp_path):
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    path, df = mixed
    r = run({"parquet": path, "test_type": "anova", "variable1": "y", "category": "line"}, tmp_path)
    labels = [g["label"] for g in r["groups"]]
    assert sorted(labels) == ["L1", "L2", "L3", "L4"]
    ref = stats.f_oneway(*[df.y[df.line == g] for g in labels])
    assert r["statistic"]["value"] == pytest.approx(ref.statistic, **TOL) and r["p_value"] == pytest.approx(ref.pvalue, **TOL)
    assert (r["df"], r["df2"]) == (3, 296)
    tk = stats.tukey_hsd(*[df.y[df.line == g] for g in labels])
    ci = tk.confidence_interval(0.95)
    sm = pairwise_tukeyhsd(df.y, df.line, alpha=0.05)
    sm_pairs = {
        (str(a), str(b)): (md, p)
        for (a, b), md, p in zip([(sm.groupsunique[i], sm.groupsunique[j]) for i, j in zip(*sm._multicomp.pairindices)], sm.meandiffs, sm.pvalues)
    }
    for pair in r["post_hoc"]["pairs"]:
        i, j = labels.index(pair["a"]), labels.index(pair["b"])
        assert pair["difference"] == pytest.approx(tk.statistic[i, j], **TOL)
        assert pair["p_value"] == pytest.approx(tk.pvalue[i, j], **TOL)
        assert [pair["low"], pair["high"]] == pytest.approx([ci.low[i, j], ci.high[i, j]], **TOL)
        # statsmodels reports mean(b) - mean(a) for its sorted pair (a, b)
        if (pair["a"], pair["b"]) in sm_pairs:
            md, p = sm_pairs[(pair["a"], pair["b"])]
            assert -pair["difference"] == pytest.approx(md, rel=1e-9)
        else:
            md, p = sm_pairs[(pair["b"], pair["a"])]
            assert pair["difference"] == pytest.approx(md, rel=1e-9)
        assert pair["p_value"] == pytest.approx(p, abs=5e-3)  # statsmodels interpolates a studentized-range table
    r2 = run({"parquet": path, "test_type": "anova", "variable1": "y", "category": "line", "groups": ["L1", "L3"]}, tmp_path)
    assert r2["p_value"] == pytest.approx(stats.f_oneway(df.y[df.line == "L1"], df.y[df.line == "L3"]).pvalue, **TOL)


def test_chi_square_correlation_and_shapiro(mixed, tmp_path):
    path, df = mixed
    r = run({"parquet": path, "test_type": "chi_square", "variable1": "line", "variable2": "shift"}, tmp_path)
    tab = pd.crosstab(df.line, df["shift"])
    ref = stats.chi2_contingency(tab)
    assert r["statistic"]["value"] == pytest.approx(ref.statistic, **TOL) and r["p_value"] == pytest.approx(ref.pvalue, **TOL) and r["df"] == ref.dof
    assert r["table"]["observed"] == tab.to_numpy().tolist()
    for m, fn in (("pearson", stats.pearsonr), ("spearman", stats.spearmanr)):
        r = run({"parquet": path, "test_type": m, "variable1": "a", "variable2": "y"}, tmp_path)
        ok = df.a.notna()
        ref = fn(df.a[ok], df.y[ok])
        assert r["statistic"]["value"] == pytest.approx(ref.statistic, **TOL) and r["p_value"] == pytest.approx(ref.pvalue, **TOL)
        assert r["n_missing"] == 15 and r["pairs"] == 285
    ci = stats.pearsonr(df.a[df.a.notna()], df.y[df.a.notna()]).confidence_interval(0.95)
    r = run({"parquet": path, "test_type": "pearson", "variable1": "a", "variable2": "y"}, tmp_path)
    assert [r["ci"]["low"], r["ci"]["high"]] == pytest.approx([ci.low, ci.high], **TOL)
    r = run({"parquet": path, "test_type": "shapiro", "variable1": "y"}, tmp_path)
    ref = stats.shapiro(df.y)
    assert r["statistic"]["value"] == pytest.approx(ref.statistic, **TOL) and r["p_value"] == pytest.approx(ref.pvalue, **TOL)
    assert r["reject"] is True and len(r["charts"]["qq"]["sample"]) == 300


def test_chi_square_2x2_uses_yates_like_r(tmp_path):
    # R: chisq.test(matrix(c(12, 5, 7, 9), 2)) -> X-squared = 1.6, df = 1 (Yates) ; scipy agrees
    df = pd.DataFrame({"x": ["a"] * 12 + ["b"] * 5 + ["a"] * 7 + ["b"] * 9, "y": ["u"] * 17 + ["v"] * 16})
    p = tmp_path / "t.parquet"
    df.to_parquet(p, index=False)
    r = run({"parquet": str(p), "test_type": "chi_square", "variable1": "x", "variable2": "y"}, tmp_path)
    ref = stats.chi2_contingency([[12, 7], [5, 9]], correction=True)
    assert r["method"] == "chi_square_yates" and r["statistic"]["value"] == pytest.approx(ref.statistic, **TOL)


def test_large_split_reads_dictionary_category(tmp_path):
    rng = np.random.default_rng(5)
    n = 400_000
    grp = pa.array(np.where(rng.random(n) < 0.5, "A", "B")).dictionary_encode()
    val = rng.normal(0, 1, n) + (np.asarray(grp.indices) == 1) * 0.01
    p = tmp_path / "big.parquet"
    pq.write_table(pa.table({"v": val, "g": grp.cast(pa.string())}), p, row_group_size=50_000)
    r = run(
        {"parquet": str(p), "test_type": "two_sample_t", "variable1": "v", "category": "g", "group1": "A", "group2": "B", "equal_variance": "welch"}, tmp_path
    )
    g = np.asarray(grp.cast(pa.string()))
    ref = stats.ttest_ind(val[g == "A"], val[g == "B"], equal_var=False)
    assert r["p_value"] == pytest.approx(ref.pvalue, **TOL) and r["statistic"]["value"] == pytest.approx(ref.statistic, **TOL)
    assert len(r["charts"]["box"][0]["points"]) == 300
    assert r["assumptions"][0]["subsampled"] is True


@pytest.mark.parametrize(
    "spec,code",
    [
        ({"test_type": "two_sample_t", "variable1": "extra", "category": "group", "group1": "1", "group2": "7"}, "group_missing"),
        ({"test_type": "one_sample_t", "variable1": "nope"}, "column_missing"),
        ({"test_type": "one_sample_t", "variable1": "txt"}, "not_numeric"),
        ({"test_type": "one_sample_t", "variable1": "const"}, "zero_variance"),
        ({"test_type": "one_sample_t", "variable1": "one"}, "too_few_values"),
        ({"test_type": "two_sample_t", "variable1": "extra", "category": "group", "group1": "1", "group2": "1"}, "groups_same"),
        ({"test_type": "paired_t", "variable1": "extra", "category": "group", "group1": "1", "group2": "3"}, "pair_count_mismatch"),
        ({"test_type": "one_sample_t", "variable1": "extra", "significance_level": 1.0}, "alpha_range"),
    ],
)
def test_bad_input_has_a_code(tmp_path, sleep_df, spec, code):
    df = sleep_df.assign(txt="x", const=1.0, one=[1.0] + [None] * 19)
    df.loc[0, "group"] = 3
    p = tmp_path / "bad.parquet"
    df.to_parquet(p, index=False)
    with pytest.raises(EngineError) as e:
        run({"parquet": str(p), **spec}, tmp_path)
    assert e.value.code == code
    assert json.loads(encoded(e.value))["code"] == code  # as the job failure carries it


def _parquet(tmp_path, name, frame):
    p = tmp_path / f"{name}.parquet"
    frame.to_parquet(p, index=False)
    return str(p)


def test_textbook_examples_from_r_documentation(tmp_path):
    # ?chisq.test (Agresti 2007): gender x party -> X-squared = 30.07, df = 2, p-value = 2.954e-07
    counts = {
        ("F", "Democrat"): 762,
        ("F", "Independent"): 327,
        ("F", "Republican"): 468,
        ("M", "Democrat"): 484,
        ("M", "Independent"): 239,
        ("M", "Republican"): 477,
    }
    rows = [(g, p) for (g, p), n in counts.items() for _ in range(n)]
    path = _parquet(tmp_path, "party", pd.DataFrame(rows, columns=["gender", "party"]))
    r = run({"parquet": path, "test_type": "chi_square", "variable1": "gender", "variable2": "party"}, tmp_path)
    assert round(r["statistic"]["value"], 2) == 30.07 and r["df"] == 2 and float(f"{r['p_value']:.4g}") == 2.954e-07
    assert r["table"]["columns"] == ["Democrat", "Independent", "Republican"] and r["table"]["observed"][0] == [762, 327, 468]

    # ?wilcox.test (Hollander & Wolfe): paired, alternative = "greater" -> V = 40, p-value = 0.01953
    x = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
    y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
    path = _parquet(tmp_path, "depression", pd.DataFrame({"x": x, "y": y}))
    r = run({"parquet": path, "test_type": "wilcoxon", "variable1": "x", "variable2": "y", "alternative": "greater"}, tmp_path)
    assert r["statistic"]["value"] == 40 and round(r["p_value"], 5) == 0.01953

    # PlantGrowth: summary(aov(weight ~ group)) -> F = 4.846, p = 0.01591; TukeyHSD trt2-trt1 0.865, p adj 0.0120064
    plant = {
        "ctrl": [4.17, 5.58, 5.18, 6.11, 4.50, 4.61, 5.17, 4.53, 5.33, 5.14],
        "trt1": [4.81, 4.17, 4.41, 3.59, 5.87, 3.83, 6.03, 4.89, 4.32, 4.69],
        "trt2": [6.31, 5.12, 5.54, 5.50, 5.37, 5.29, 4.92, 6.15, 5.80, 5.26],
    }
    frame = pd.DataFrame([(g, w) for g, ws in plant.items() for w in ws], columns=["group", "weight"])
    path = _parquet(tmp_path, "plant", frame)
    r = run({"parquet": path, "test_type": "anova", "variable1": "weight", "category": "group"}, tmp_path)
    assert round(r["statistic"]["value"], 3) == 4.846 and (r["df"], r["df2"]) == (2, 27) and round(r["p_value"], 5) == 0.01591
    pair = next(p for p in r["post_hoc"]["pairs"] if {p["a"], p["b"]} == {"trt1", "trt2"})
    assert abs(pair["difference"]) == pytest.approx(0.865, abs=1e-9) and round(pair["p_value"], 7) == 0.0120064
