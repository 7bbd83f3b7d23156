"""Issue 33: a job's progress is said in the language of the person who started it (the spec's `lang`, English when
absent), from messages.json; every code a module says is in the catalogue in both languages."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pandas as pd
from mitate_engine.task import Context
from mitate_engine.tasks.train import Train

ENGINE = Path(__file__).resolve().parents[1] / "mitate_engine"


def _train(tmp_path, **kw) -> list[str]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    pd.DataFrame({"x": x, "z": rng.uniform(size=200), "y": 3 * x + rng.normal(scale=0.1, size=200)}).to_parquet(tmp_path / "t.parquet")
    events: list[dict] = []
    ctx = Context(events.append, tmp_path / "out", lambda: False, progress_interval=0.0, cancel_interval=0.0)
    spec = {
        "project_type": "regression",
        "parquet": str(tmp_path / "t.parquet"),
        "target": "y",
        "features": ["x", "z"],
        "split_ratio": 0.8,
        "cv_folds": 2,
        "models": [{"key": "m1", "algorithm": "lightgbm", "label": "LightGBM", "params": {"n_estimators": 20}}],
        **kw,
    }
    result = Train().run(spec, ctx)
    assert result["models"][0]["state"] == "done"
    return [e["message"] for e in events if e.get("type") == "progress"]


def test_train_progress_is_said_in_japanese_when_the_spec_says_ja(tmp_path):
    said = _train(tmp_path, lang="ja")
    assert said[0] == "データを読み込んでいます"
    assert "200 行を読み込みました: 学習用 160 行、テスト用 40 行" in said
    assert "LightGBM: 最終学習: ブースティング 20 回中 20 回目" in said
    assert "LightGBM: 評価中" in said and said[-1] == "完了"
    assert not [m for m in said if any(w in m for w in ("Reading", "boosting", "fold", "evaluating", "Done"))]


def test_train_progress_stays_english_without_a_language(tmp_path):
    said = _train(tmp_path)
    assert said[0] == "Reading the data" and said[-1] == "Done"
    assert "Read 200 rows: 160 to train, 40 to test" in said
    assert "LightGBM: final fit: boosting round 20 of 20" in said


def _said_codes() -> set[str]:
    """Every literal code passed to say(...) in the engine's modules that take `say` from a lang module (other
    modules have a `say` of their own, e.g. an image report's table of words)."""
    codes = set()
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if not any(isinstance(n, ast.ImportFrom) and (n.module or "").endswith("lang") and any(a.name == "say" for a in n.names) for n in ast.walk(tree)):
            continue
        for n in ast.walk(tree):
            f = n.func if isinstance(n, ast.Call) else None
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name == "say" and n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
                codes.add(n.args[0].value)
    return codes


def test_every_said_code_is_in_the_catalogue_in_english_and_japanese():
    codes = _said_codes()
    assert {"job_reading_data", "job_boosting_round", "job_step", "job_predicting_rows", "job_done"} <= codes  # the scan sees the tasks
    catalogue = json.loads((ENGINE / "messages.json").read_text(encoding="utf-8"))
    missing = sorted(c for c in codes if not (catalogue.get(c) or {}).get("en") or not (catalogue.get(c) or {}).get("ja"))
    assert not missing, "said but not in messages.json in both languages: " + ", ".join(missing)
