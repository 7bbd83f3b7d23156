"""Issue 30, time series: the HTML report says a figure that cannot be computed is not available (in the reader's
language), the normal period can be every row labelled normal (not contiguous, time order kept)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from mitate_engine.task import messages
from mitate_engine.timeseries import report_html


def _report(pointwise: dict | None, event: dict | None) -> dict:
    metrics = {
        "threshold": 1.0,
        "evaluated_part": "validation",
        "evaluated_rows": 120,
        "alarms": 1,
        "alarms_per_day": None,
        "alarms_per_1000_rows": 8.3,
        "train_alarm_rate": 0.01,
        "heldout_far": None,
    }
    if pointwise is not None:
        metrics["pointwise"] = pointwise
        metrics["event"] = event
    return {
        "algorithm": "pca_mspc",
        "label": "PCA",
        "threshold": 1.0,
        "detector": {"components": 2, "far_cross_checked": None},
        "hyperparameters": {},
        "metrics": metrics,
        "notes": [],
        "time_column": "t",
        "label_column": "y" if pointwise is not None else None,
        "rows": 400,
        "parts": {"warmup": 0, "train": 280, "validation": 120, "test": 0},
        "alarms": [],
        "overview": {"score": [[0, 0.5, 0.5], [1, 0.7, 0.7]]},
    }


def _cell(doc: str, label: str) -> str:
    m = re.search(r"<tr><th>" + re.escape(label) + r"</th><td>(.*?)</td></tr>", doc)
    assert m, label
    return m.group(1)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_html_report_says_a_null_figure_is_not_available_and_why(lang):
    say = lambda code: messages()[code][lang]  # noqa: E731
    # labelled, but no anomalous row in the evaluated part: recall, F1, event F1 cannot be computed
    pw = {"tp": 0, "fp": 1, "fn": 0, "tn": 119, "precision": 0.0, "recall": None, "f1": None, "far": 1 / 120, "mar": None}
    ev = {"events": 0, "events_detected": 0, "f1": None}
    doc = report_html.render(_report(pw, ev), "p", lang)
    why = say("tsad_report_no_anomalies")
    for label in ("tsad_report_f1", "tsad_report_recall", "tsad_report_mar", "tsad_report_event_f1"):
        assert _cell(doc, say(label)) == why
    # a figure that is there is shown as a number; one that is missing for another reason says only "not available"
    assert _cell(doc, say("tsad_report_far")) == f"{1 / 120:.4g}"
    assert _cell(doc, say("tsad_report_heldout_far")) == say("tsad_report_not_available")
    assert "–</td>" not in doc
    # without a label column there is nothing to say about anomalies: "not available", no reason about labels
    doc = report_html.render(_report(None, None), "p", lang)
    assert _cell(doc, say("tsad_report_f1")) == say("tsad_report_not_available")
    assert why not in doc
    if lang == "ja":
        assert say("tsad_report_not_available") == "算出できません"


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_html_report_at_a_saved_threshold_says_both_and_keeps_the_coded_notes(tmp_path, lang):
    """Issue 33: the server asks the engine for the report again at a threshold saved after training
    (python -m mitate_engine.timeseries.report_html, JSON on stdin); the notes written at training are said in `lang`."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    report = {**_report(None, None), "notes": ["(said in the job's language)"], "threshold": 0.6}
    report_html.write(tmp_path, {**report, "threshold": 0.544}, "p", "en", [("tsad_report_not_available", {})])
    assert json.loads((tmp_path / "notes.json").read_text()) == [["tsad_report_not_available", {}]]
    engine = Path(report_html.__file__).resolve().parents[2]
    req = {"report": report, "project_name": "Valve", "lang": lang, "mdir": str(tmp_path), "trained_threshold": 0.544}
    doc = subprocess.run(
        [sys.executable, "-m", "mitate_engine.timeseries.report_html"], input=json.dumps(req), capture_output=True, text=True, cwd=engine, check=True
    ).stdout
    say = lambda code, **p: report_html.say(code, lang, **p)  # noqa: E731
    assert f"<p>{say('tsad_report_saved_threshold', threshold='0.6', trained='0.544')}</p>" in doc.replace("&#x27;", "'")
    assert _cell(doc, say("tsad_report_threshold")) == "0.6"
    assert f">{say('tsad_report_threshold_line', value='0.6')}</text>" in doc
    assert f"<p>{say('tsad_report_not_available')}</p>" in doc and "(said in the job" not in doc
    # at training's own threshold nothing is said about another one
    assert say("tsad_report_saved_threshold", threshold="0.6", trained="0.544")[:20] not in report_html.render(report, "p", lang, None, 0.6)


def _prepare(tmp_path, df: pd.DataFrame, **extra):
    from mitate_engine.timeseries.trainer import UNSUPERVISED, prepare

    df.to_parquet(tmp_path / "s.parquet", index=False)
    spec = {
        "project_type": UNSUPERVISED,
        "parquet": str(tmp_path / "s.parquet"),
        "time_column": "t",
        "features": [c for c in df.columns if c != "t"],
        "normal": {"mode": "rows", "rows": 400},
        **extra,
    }
    return prepare(spec)


def _series(drifting: bool) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 600
    out = {"t": np.arange(n), "flow": rng.normal(size=n), "pressure": rng.normal(size=n)}
    # a temperature that keeps warming (0.02 per row against a noise of 0.05), or one that stays put
    out["temperature"] = (0.02 * np.arange(n) if drifting else 0.0) + rng.normal(scale=0.05, size=n)
    return pd.DataFrame(out)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_signal_drifting_within_the_normal_period_and_left_as_a_level_is_noted(tmp_path, lang):
    prep = _prepare(tmp_path, _series(True), lang=lang)
    codes = [c for c, _ in prep.note_codes]
    assert codes == ["tsad_note_drifting_levels"]
    params = prep.note_codes[0][1]
    assert params["signals"] == "temperature" and params["rows"] >= 2
    assert "temperature" in prep.notes[0] and str(params["rows"]) in prep.notes[0]
    assert prep.notes[0].startswith("temperature") and (("ドリフト" in prep.notes[0]) == (lang == "ja"))
    # nothing is changed by the note: the level is still a feature
    assert "temperature" in prep.feature_columns


def test_no_drift_note_for_steady_signals_or_when_the_drifting_ones_enter_as_their_change(tmp_path):
    assert _prepare(tmp_path, _series(False)).note_codes == []
    prep = _prepare(tmp_path, _series(True), drift_signals=["temperature"], drift_rows=10)
    assert prep.note_codes == [] and "temperature__change10" in prep.feature_columns


def _rig(n: int = 1000, drifting: bool = True) -> pd.DataFrame:
    """Flow and pressure moving together, a temperature warming all along (or steady), and an upset at rows 700-759
    where pressure leaves flow: every other row after the normal period (the first 400) is normal."""
    rng = np.random.default_rng(7)
    flow = np.convolve(rng.normal(size=n + 9), np.ones(10) / 10, mode="valid")
    pressure = 0.8 * flow + rng.normal(scale=0.05, size=n)
    pressure[700:760] += 0.6
    temperature = (0.02 * np.arange(n) if drifting else 0.0) + rng.normal(scale=0.05, size=n)
    return pd.DataFrame({"t": np.arange(n), "flow": flow, "pressure": pressure, "temperature": temperature})


def test_the_default_for_drifting_signals_is_their_change_windows_and_an_alarm_rule_and_only_then(tmp_path):
    from mitate_engine.timeseries.drift import DEFAULTS, default_options, suggest_drift

    signals = ["flow", "pressure", "temperature"]
    s = suggest_drift(_rig()[signals].iloc[:400], signals)
    assert s["drift_signals"] == ["temperature"] and s["defaults"] == {"windows": [5], "alarm_k": 3, "alarm_n": 5} == DEFAULTS
    opts, params = default_options(s)
    assert opts == {"drift_signals": ["temperature"], "drift_rows": s["drift_rows"], "windows": [5]}
    assert params == {"alarm_k": 3, "alarm_n": 5}
    # nothing drifts: nothing added (TEP's normal run keeps the plain default); the supervised training part: not measured
    steady = suggest_drift(_rig(drifting=False)[signals].iloc[:400], signals)
    assert steady["defaults"] is None and default_options(steady) == ({}, {})
    assert suggest_drift(_rig()[signals].iloc[:400], signals, period="train")["defaults"] is None


def test_the_default_for_drifting_signals_keeps_normal_rows_quiet_after_the_period_and_still_finds_the_upset(tmp_path):
    from mitate_engine.timeseries.drift import default_options, suggest_drift
    from mitate_engine.timeseries.trainer import fit_model

    df = _rig()
    signals = ["flow", "pressure", "temperature"]
    upset = (np.arange(len(df)) >= 700) & (np.arange(len(df)) < 760)
    after = np.arange(len(df)) >= 400

    def alarms(opts: dict, params: dict) -> np.ndarray:
        prep = _prepare(tmp_path, df, **opts)
        spec = {"project_type": "time_series_anomaly_detection_unsupervised", "time_column": "t", "features": signals, **opts}
        model, score, _ = fit_model(prep, spec, "pca_mspc", params)
        return np.nan_to_num(score, nan=-np.inf) > model.threshold

    levels = alarms({}, {})
    opts, params = default_options(suggest_drift(df[signals].iloc[:400], signals))
    default = alarms(opts, params)
    # by its level the warming temperature is out of the period's range on nearly every later row
    assert levels[after & ~upset].mean() > 0.9
    assert default[after & ~upset].mean() < 0.1
    assert default[upset].mean() > 0.8
