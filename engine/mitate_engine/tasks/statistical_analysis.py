"""Kind `statistical_analysis`: one statistical test on a dataset's Parquet file (SPEC §3 'Statistical project').

Spec: parquet, output_dir, test_type, variable1, variable2, category, group1, group2 (labels as shown to the
user), groups (ANOVA: labels, or empty for all), hypothetical_mean, significance_level, alternative,
equal_variance ('auto' | 'student' | 'welch'). Two groups come from two columns (variable1, variable2) or from
variable1 split by the category column (group1, group2). For a paired split, variable2 is an optional key
column that pairs the rows; without it the rows pair in their order within each group (as R does).
"""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..encoding import to_jsonable
from ..lang import lang_of, say
from ..statistical_analysis import methods
from ..statistical_analysis.data import Sample, category_labels, group_mask, read_table, sample, to_float
from ..task import Context, EngineError, Task

TEST_TYPES = (
    "one_sample_t",
    "two_sample_t",
    "paired_t",
    "mann_whitney",
    "wilcoxon",
    "anova",
    "chi_square",
    "pearson",
    "spearman",
    "shapiro",
    "f_test",
)
TWO_GROUPS = ("two_sample_t", "mann_whitney", "f_test")
MAX_GROUPS = 50


class StatisticalAnalysis(Task):
    kind = "statistical_analysis"

    def run(self, spec: dict, ctx: Context) -> dict:
        started = time.perf_counter()
        test = spec.get("test_type")
        if test not in TEST_TYPES:
            raise EngineError("unknown_test_type", test=test)
        alpha = float(spec.get("significance_level", 0.05))
        if not 0 < alpha < 1:
            raise EngineError("alpha_range")
        alternative = spec.get("alternative") or "two-sided"
        if alternative not in methods.ALTERNATIVES:
            raise EngineError("unknown_alternative", alternative=alternative)
        mu = float(spec.get("hypothetical_mean") or 0.0)
        v1, v2, cat = spec.get("variable1"), spec.get("variable2") or None, spec.get("category") or None
        if not v1:
            raise EngineError("variable_required")
        lang = lang_of(spec)  # what the person who started the job reads
        ctx.progress(0.05, say("job_reading_data", lang))
        result = self.dispatch(spec, ctx, test, v1, v2, cat, alpha, alternative, mu)
        ctx.progress(0.95, say("job_writing_result", lang))
        result["variables"] = {
            "variable1": v1,
            "variable2": v2,
            "category": cat,
            "group1": spec.get("group1"),
            "group2": spec.get("group2"),
        }
        result["seconds"] = time.perf_counter() - started
        result = to_jsonable(result)
        out = ctx.work_dir / "result.json"
        tmp = out.with_name("result.json.tmp")
        tmp.write_text(json.dumps(result, ensure_ascii=False, allow_nan=False), encoding="utf-8")
        os.replace(tmp, out)
        return result

    def dispatch(self, spec, ctx, test, v1, v2, cat, alpha, alternative, mu) -> dict:
        path = spec.get("parquet")
        if test == "chi_square":
            return self.chi_square(path, v1, v2 or cat, alpha)
        if test in ("pearson", "spearman"):
            if not v2:
                raise EngineError("variable2_required")
            t = read_table(path, [v1, v2])
            x, y = to_float(t.columns[v1]), to_float(t.columns[v2])
            ok = ~(np.isnan(x) | np.isnan(y))
            missing = int(x.size - np.count_nonzero(ok))
            ctx.progress(0.4, say("job_testing", lang_of(spec)))
            return methods.correlation(Sample(v1, x[ok], missing), Sample(v2, y[ok], 0), test, alternative, alpha)
        if test in ("one_sample_t", "shapiro") or (test == "wilcoxon" and not v2 and not cat):
            t = read_table(path, [v1])
            s = sample(to_float(t.columns[v1]), v1)
            ctx.progress(0.4, say("job_testing", lang_of(spec)))
            if test == "one_sample_t":
                return methods.one_sample_t(s, mu, alternative, alpha)
            if test == "shapiro":
                return methods.shapiro(s, alpha)
            return methods.wilcoxon(s, mu, alternative, alpha)
        if test == "anova":
            if not cat:
                raise EngineError("category_required")
            t = read_table(path, [v1], [cat])
            values = to_float(t.columns[v1])
            labels = [str(g) for g in (spec.get("groups") or [])] or category_labels(t.columns[cat], MAX_GROUPS)
            samples = []
            for g in labels:
                ctx.check_cancelled()
                m = group_mask(t.columns[cat], g)
                if not m.any():
                    raise EngineError("group_missing", column=cat, group=g)
                samples.append(sample(values, g, m))
            ctx.progress(0.4, say("job_testing", lang_of(spec)))
            return methods.anova(samples, alpha)
        if test in TWO_GROUPS:
            a, b = self.two_groups(path, v1, v2, cat, spec)
            ctx.progress(0.4, say("job_testing", lang_of(spec)))
            if test == "two_sample_t":
                return methods.two_sample_t(a, b, spec.get("equal_variance") or "auto", alternative, alpha)
            if test == "mann_whitney":
                return methods.mann_whitney(a, b, alternative, alpha)
            return methods.f_test(a, b, alternative, alpha)
        # paired_t, or wilcoxon on pairs
        a, b, d = self.pairs(path, v1, v2, cat, spec)
        ctx.progress(0.4, say("job_testing", lang_of(spec)))
        if test == "paired_t":
            return methods.paired_t(a, b, d, mu, alternative, alpha)
        return methods.wilcoxon(d, mu, alternative, alpha, groups=[a, b])

    @staticmethod
    def _groups(spec, cat) -> tuple[str, str]:
        g1, g2 = spec.get("group1"), spec.get("group2")
        if g1 is None or g2 is None or str(g1) == "" or str(g2) == "":
            raise EngineError("groups_required")
        if str(g1) == str(g2):
            raise EngineError("groups_same")
        return str(g1), str(g2)

    def two_groups(self, path, v1, v2, cat, spec) -> tuple[Sample, Sample]:
        if cat:
            g1, g2 = self._groups(spec, cat)
            t = read_table(path, [v1], [cat])
            values = to_float(t.columns[v1])
            out = []
            for g in (g1, g2):
                m = group_mask(t.columns[cat], g)
                if not m.any():
                    raise EngineError("group_missing", column=cat, group=g)
                out.append(sample(values, g, m))
            return out[0], out[1]
        if not v2:
            raise EngineError("variable2_required")
        t = read_table(path, [v1, v2])
        return sample(to_float(t.columns[v1]), v1), sample(to_float(t.columns[v2]), v2)

    def pairs(self, path, v1, v2, cat, spec) -> tuple[Sample, Sample, Sample]:
        """The two members of each pair with missing pairs dropped, and the differences a - b."""
        if cat:
            g1, g2 = self._groups(spec, cat)
            key = v2
            t = read_table(path, [v1], [cat] + ([key] if key else []))
            values = to_float(t.columns[v1])
            m1, m2 = group_mask(t.columns[cat], g1), group_mask(t.columns[cat], g2)
            for g, m in ((g1, m1), (g2, m2)):
                if not m.any():
                    raise EngineError("group_missing", column=cat, group=g)
            if key:
                import pandas as pd

                k = t.columns[key]
                if pa.types.is_dictionary(k.type):
                    k = k.cast(k.type.value_type)
                keys = np.asarray(k.to_pandas(), dtype=object)
                left = pd.DataFrame({"k": keys[m1], "a": values[m1]}).dropna(subset=["k"])
                right = pd.DataFrame({"k": keys[m2], "b": values[m2]}).dropna(subset=["k"])
                for side, name in ((left, g1), (right, g2)):
                    if side["k"].duplicated().any():
                        raise EngineError("pair_key_duplicate", column=key, group=name)
                merged = left.merge(right, on="k", how="outer")
                a_raw, b_raw = merged["a"].to_numpy(dtype=float), merged["b"].to_numpy(dtype=float)
            else:
                a_raw, b_raw = values[m1], values[m2]
                if a_raw.size != b_raw.size:
                    raise EngineError("pair_count_mismatch", group1=g1, group2=g2, n1=int(a_raw.size), n2=int(b_raw.size))
            la, lb = g1, g2
        else:
            if not v2:
                raise EngineError("variable2_required")
            t = read_table(path, [v1, v2])
            a_raw, b_raw = to_float(t.columns[v1]), to_float(t.columns[v2])
            la, lb = v1, v2
        ok = ~(np.isnan(a_raw) | np.isnan(b_raw))
        missing = int(a_raw.size - np.count_nonzero(ok))
        a, b = a_raw[ok], b_raw[ok]
        diff_label = f"{la} − {lb}"
        return Sample(la, a, missing), Sample(lb, b, 0), Sample(diff_label, a - b, 0)

    def chi_square(self, path, v1, v2, alpha) -> dict:
        if not v2:
            raise EngineError("variable2_required")
        if v1 == v2:
            raise EngineError("same_variable")
        t = read_table(path, [], [v1, v2])
        cols = []
        for n in (v1, v2):
            c = t.columns[n]
            if pa.types.is_dictionary(c.type):
                c = c.cast(c.type.value_type)
            cols.append(c)
        valid = pc.and_(pc.is_valid(cols[0]), pc.is_valid(cols[1]))
        if pa.types.is_floating(cols[0].type):
            valid = pc.and_(valid, pc.invert(pc.is_nan(cols[0])))
        if pa.types.is_floating(cols[1].type):
            valid = pc.and_(valid, pc.invert(pc.is_nan(cols[1])))
        keep = pc.fill_null(valid, False)
        kept = pc.sum(keep).as_py() or 0
        missing = int(len(cols[0]) - kept)
        # Codes of each column's distinct values, then one bincount: no Python objects per row.
        codes, labels = [], []
        for c in cols:
            enc = pc.filter(c, keep).combine_chunks().dictionary_encode()
            codes.append(enc.indices.to_numpy(zero_copy_only=False).astype(np.int64))
            labels.append([_label(v) for v in enc.dictionary.to_pylist()])
        return methods.chi_square_codes(codes[0], codes[1], labels[0], labels[1], v1, v2, missing, alpha, MAX_GROUPS)


def _label(v) -> str:
    from ..statistical_analysis.data import label_of

    return label_of(v)
