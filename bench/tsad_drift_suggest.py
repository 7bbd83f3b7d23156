"""The suggestion of slowly drifting signals (engine timeseries/drift.py) on the shared SKAB and TEP files: per signal the
figures the rule decides on, the suggested signals and L. Writes bench/results/tsad_drift_suggest.json.

SKAB: each of the 6 files with the bench protocol's normal period (first 400 rows) and the wizard's default (the first
half of the rows). TEP: d00.csv (500 rows of normal operation, the Braatz training file) and the first 160 rows of
d00_te.csv (normal, before the faults' onset in the test files).
Usage: MITATE_SHARED_DATA=/work/shared/data .venv/bin/python bench/tsad_drift_suggest.py
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))
sys.path.insert(0, str(ROOT / "bench"))
import tsad_bench as B  # noqa: E402
from mitate_engine.timeseries import drift as R  # noqa: E402
from mitate_engine.timeseries.detectors import k_of_n  # noqa: E402
from mitate_engine.timeseries.mspc import PcaMspc  # noqa: E402

DATA = Path(os.environ.get("MITATE_SHARED_DATA") or ROOT.parent / "shared" / "data")
SKAB = ["valve1/0.csv", "valve1/1.csv", "valve2/0.csv", "other/9.csv", "other/13.csv", "anomaly-free/anomaly-free.csv"]
SLOW, FAST = ["Temperature", "Thermocouple"], ["Accelerometer1RMS", "Accelerometer2RMS", "Current", "Pressure", "Voltage", "Volume Flow RateRMS"]


def one(df: pd.DataFrame, cols: list[str]) -> dict:
    r = R.suggest_drift(df, cols)
    return {
        "rows": r["rows"],
        "suggested": r["drift_signals"],
        "suggested_rows_L": r["drift_rows"],
        "signals": {
            i["signal"]: {k: i[k] for k in ("move", "step_share", "crossings", "rows_per_sd", "short_sd", "window")}
            | {"decision": i["reason"]["code"].removeprefix("tsad_drift_reason_")}
            for i in r["signals"]
        },
    }


def skab() -> dict:
    out: dict = {}
    for f in SKAB:
        df = pd.read_csv(DATA / "skab_subset" / f, sep=";")
        cols = [c for c in df.columns if c not in ("datetime", "anomaly", "changepoint")]
        out[f] = {"first_400_rows": one(df.iloc[:400], cols), "first_half": one(df.iloc[: len(df) // 2], cols)}
    count = {period: {c: sum(c in out[f][period]["suggested"] for f in SKAB) for c in SLOW + FAST} for period in ("first_400_rows", "first_half")}
    return {"files": out, "files_suggesting_each_signal": count}


def c2_alarms(df: pd.DataFrame, slow: list[str], lag: int) -> np.ndarray:
    """The shipped SKAB candidate C2 (bench/tsad_skab_candidates.json: PCA-MSPC at 99.5 %, 10 of 20 rows, first 400
    rows train) with `slow` entering as x[t] - x[t-lag] and the other signals as value and trailing 5-row mean."""
    cols = []
    for c in SLOW + FAST:
        x = df[c].astype(float)
        cols += [(x - x.shift(lag)).fillna(0.0).to_numpy()] if c in slow else [x.to_numpy(), x.rolling(5, min_periods=1).mean().to_numpy()]
    X = np.column_stack(cols)
    m = PcaMspc(None, 0.9, 0.995).fit(X[:400])
    return np.nan_to_num(k_of_n(m.score(X), 10, 20), nan=0.0) > 1.0


def in_the_design_pipeline() -> dict:
    """Information only (the 5 files C2 was designed on): C2 as declared (Temperature and Thermocouple, L = 45) against
    C2 with each file's suggested signals and L from its first 400 rows, and with the declared signals at the suggested
    L; point-wise metrics on rows 400.. pooled over the files."""
    runs: dict[str, list] = {"declared_signals_L45": [], "suggested_signals_suggested_L": [], "declared_signals_suggested_L": []}
    per_file = {}
    for f in B.SKAB_FILES:
        df = pd.read_csv(DATA / "skab_subset" / f, sep=";")
        y = df["anomaly"].to_numpy()[400:] > 0
        sug = R.suggest_drift(df.iloc[:400], SLOW + FAST)
        L = sug["drift_rows"] or 45
        for key, slow, lag in (
            ("declared_signals_L45", SLOW, 45),
            ("suggested_signals_suggested_L", sug["drift_signals"], L),
            ("declared_signals_suggested_L", SLOW, L),
        ):
            runs[key].append(B.MET.pointwise(c2_alarms(df, slow, lag)[400:], y))
        per_file[f] = {"suggested": sug["drift_signals"], "L": sug["drift_rows"]} | {
            k: {m: round(v[-1][m], 3) for m in ("f1", "far", "mar")} for k, v in runs.items()
        }
    return {"pooled": {k: {m: round(x, 4) for m, x in B.pooled(v).items()} for k, v in runs.items()}, "per_file": per_file}


def tep() -> dict:
    d00 = pd.read_csv(DATA / "tep_braatz_subset" / "d00.csv")
    te = pd.read_csv(DATA / "tep_braatz_subset" / "d00_te.csv")
    cols = [c for c in d00.columns if c.startswith("XM")]
    return {"d00": one(d00, cols), "d00_te_first_160": one(te.iloc[:160], cols)}


if __name__ == "__main__":
    t0 = time.perf_counter()
    res = {
        "name": "tsad drift suggestion (engine timeseries/drift.py) on SKAB and TEP",
        "command": "MITATE_SHARED_DATA=/work/shared/data .venv/bin/python bench/tsad_drift_suggest.py",
        "rule": {
            "min_rows": R.MIN_ROWS,
            "min_move_sd": R.MIN_MOVE,
            "max_step_share": R.STEP_SHARE,
            "step_rows": R.STEP_ROWS,
            "max_crossings": R.MAX_CROSSINGS,
            "long_window": "max(5, rows // 10)",
            "L": "round(2 x rows_per_sd of the fastest drifting signal), 2 .. rows // 4",
        },
        "skab": skab(),
        "skab_c2_with_the_suggestion": in_the_design_pipeline(),
        "tep": tep(),
    }
    res["seconds"] = round(time.perf_counter() - t0, 2)
    res["load_average"] = open("/proc/loadavg").read().split()[:3]
    out = ROOT / "bench" / "results" / "tsad_drift_suggest.json"
    out.write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        json.dumps(
            {
                "skab": res["skab"]["files_suggesting_each_signal"],
                "c2": res["skab_c2_with_the_suggestion"],
                "tep": {k: (v["suggested"], v["suggested_rows_L"]) for k, v in res["tep"].items()},
                "seconds": res["seconds"],
            },
            indent=1,
        )
    )
