"""Issue 33: the diagnostics task and a hosted API's drift check say their progress and log lines in the spec's
`lang` (English when absent), from messages.json."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from mitate_engine.task import Context
from mitate_engine.tasks.diagnostics import Diagnostics
from mitate_engine.tasks.platform_drift import PlatformDrift


def _context(tmp_path) -> tuple[Context, list[dict]]:
    events: list[dict] = []
    return Context(events.append, tmp_path / "out", lambda: False, progress_interval=0.0, cancel_interval=0.0), events


def _said(events: list[dict]) -> list[str]:
    return [e["message"] for e in events if e.get("type") == "progress"]


def _logged(events: list[dict]) -> list[str]:
    return [e["line"] for e in events if e.get("type") == "log"]


@pytest.mark.parametrize(("lang", "first", "last"), [("ja", "ステップ 3 件中 1 件目", "ステップ 3 件中 3 件目"), (None, "Step 1 of 3", "Step 3 of 3")])
def test_diagnostics_steps_are_said_in_the_spec_language(tmp_path, lang, first, last):
    ctx, events = _context(tmp_path)
    spec = {"mode": "sleep", "seconds": 0.3, **({"lang": lang} if lang else {})}
    Diagnostics().run(spec, ctx)
    said = _said(events)
    assert said[0] == first and said[-1] == last


def test_diagnostics_log_lines_are_said_in_japanese(tmp_path, capfd):
    ctx, events = _context(tmp_path)
    Diagnostics().run({"mode": "print", "lang": "ja"}, ctx)
    assert _logged(events) == ["ノイズの出力の後"]
    capfd.readouterr()  # the printed noise is the point of this mode, not a said line


def _hosted(tmp_path, *, bad_condition: bool) -> dict:
    rng = np.random.default_rng(1)
    pd.DataFrame({"x": rng.normal(size=300), "c": rng.choice(["a", "b"], size=300)}).to_parquet(tmp_path / "train.parquet")
    model = tmp_path / "model"
    model.mkdir()
    (model / "manifest.json").write_text(json.dumps({"features": ["x", "c"], "model_columns": {"x": "numeric", "c": "categorical"}}), encoding="utf-8")
    if bad_condition:
        (model / "condition.json").write_text("not a condition", encoding="utf-8")
    rows = [{"x": float(v), "c": "a"} for v in rng.normal(loc=0.5, size=80)]
    (tmp_path / "samples.json").write_text(json.dumps({"rows": rows}), encoding="utf-8")
    return {"samples": str(tmp_path / "samples.json"), "model_dir": str(model), "parquet": str(tmp_path / "train.parquet")}


def test_drift_check_is_said_in_japanese_log_line_included(tmp_path):
    ctx, events = _context(tmp_path)
    result = PlatformDrift().run({**_hosted(tmp_path, bad_condition=True), "lang": "ja"}, ctx)
    assert result["rows"] == 80 and not result["condition_applied"]
    assert _said(events) == ["学習データを読み込んでいます", "受け付けた入力を学習データと比較しています"]
    [line] = _logged(events)
    assert line.startswith("受け付けた行に前処理条件を適用できませんでした（受け付けたままの値で比較します）: ")


def test_drift_check_stays_english_without_a_language(tmp_path):
    ctx, events = _context(tmp_path)
    PlatformDrift().run(_hosted(tmp_path, bad_condition=True), ctx)
    assert _said(events) == ["Reading the training data", "Comparing the served inputs with the training data"]
    assert _logged(events)[0].startswith("The preprocessing condition was not applied to the served rows")


def test_image_drift_check_is_said_in_japanese(tmp_path):
    ctx, events = _context(tmp_path)
    (tmp_path / "samples.json").write_text(json.dumps({"scores": [0.1, 0.2, 0.3, 0.9]}), encoding="utf-8")
    result = PlatformDrift().run(
        {"samples": str(tmp_path / "samples.json"), "model_dir": str(tmp_path), "ok_scores": [0.1, 0.15, 0.2, 0.25], "lang": "ja"}, ctx
    )
    assert result["rows"] == 4
    assert _said(events) == ["受け付けたスコアを検証用良品画像のスコアと比較しています"]
