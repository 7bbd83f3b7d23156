"""Auto-tune trials of one training job shared with a helper worker through Optuna's RDB storage on PostgreSQL.

Runs when TEST_DATABASE_URL (postgres://...) is set, in a schema of its own that it drops afterwards."""

import json
import os
import secrets
import threading

import pytest
from mitate_engine.ml import shared_tune
from mitate_engine.task import Context, get_task
from sklearn import datasets

PG = os.environ.get("TEST_DATABASE_URL", "")
pytestmark = pytest.mark.skipif(not PG.startswith("postgres"), reason="needs TEST_DATABASE_URL (PostgreSQL)")


def sqlalchemy_url(url: str, schema: str) -> str:
    base = url.replace("postgres://", "postgresql+psycopg://", 1).replace("postgresql://", "postgresql+psycopg://", 1)
    return f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}"


@pytest.fixture()
def schema():
    import psycopg

    name = f"t_tune_{secrets.token_hex(4)}"
    conninfo = PG.replace("postgres://", "postgresql://", 1)
    with psycopg.connect(conninfo, autocommit=True) as c:
        c.execute(f"CREATE SCHEMA {name}")
    yield name
    shared_tune.storage.cache_clear()
    with psycopg.connect(conninfo, autocommit=True) as c:
        c.execute(f"DROP SCHEMA {name} CASCADE")


def test_two_workers_share_one_study_and_n_trials_in_all(tmp_path, schema):
    frame = datasets.load_diabetes(as_frame=True).frame
    frame.to_parquet(tmp_path / "d.parquet")
    shared = {"storage": sqlalchemy_url(PG, schema), "study": "job-1"}
    spec = {
        "project_type": "regression",
        "parquet": str(tmp_path / "d.parquet"),
        "target": "target",
        "features": [c for c in frame.columns if c != "target"],
        "cv_folds": 2,
        "auto_tune": True,
        "n_trials": 10,
        "output_dir": str(tmp_path / "out"),
        "tune_shared": shared,
        # nothing to tune for linear: its study is closed at once and the helper moves on to the forest
        "models": [{"key": "1_linear", "algorithm": "linear"}, {"key": "2_random_forest", "algorithm": "random_forest", "params": {"n_estimators": 20}}],
    }
    helper_result: dict = {}
    # the helper starts first, as a worker that took its job before the main one: it waits for the studies
    helper = threading.Thread(target=lambda: helper_result.update(get_task("tune_helper").run(dict(spec), Context(lambda e: None))))
    helper.start()
    events = []
    result = get_task("train").run(spec, Context(events.append, tmp_path / "out"))
    helper.join(timeout=600)
    assert not helper.is_alive()
    assert [m["state"] for m in result["models"]] == ["done", "done"], [(m.get("error"), str(m.get("log", ""))[-1500:]) for m in result["models"]]

    import optuna

    study = optuna.load_study(study_name="job-1:2_random_forest", storage=shared_tune.storage(shared["storage"]))
    finished = [t for t in study.trials if t.state != optuna.trial.TrialState.RUNNING]
    # n in all (a trial each worker had already started when the count was reached may come on top)
    assert 10 <= len(finished) <= 11
    by_helper = [t for t in finished if "worker" in t.user_attrs]
    assert helper_result["trials"]["2_random_forest"] == len(by_helper) >= 1
    assert len(finished) - len(by_helper) >= 1
    assert study.user_attrs[shared_tune.STATE] == "closed"
    # the report lists every worker's trials and the chosen parameters are the study's best
    report = json.loads((tmp_path / "out" / "2_random_forest" / "report.json").read_text(encoding="utf-8"))
    tuned = report["auto_tune"]
    assert len(tuned["trials"]) == len(finished)
    assert {t.get("worker", "main") != "main" for t in tuned["trials"]} == {True, False}
    best = study.best_trial
    for k, v in best.params.items():
        assert report["hyperparameters"][k] == (pytest.approx(v) if isinstance(v, float) else v)
    # the best trial's fold scores travelled with it, whichever worker ran it
    assert report["cv"]["mean"] == pytest.approx(best.user_attrs["folds"][1], abs=1e-9)
    assert optuna.load_study(study_name="job-1:1_linear", storage=shared_tune.storage(shared["storage"])).user_attrs[shared_tune.STATE] == "closed"
