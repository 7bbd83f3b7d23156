"""Issue 16 benchmark: auto-tune trials per minute of one training job with 1 and 2 worker processes sharing the
study through Optuna's RDB storage on PostgreSQL (the `train` task on one process, `tune_helper` on the others).

argv: engine dir, PostgreSQL URL, n_trials, comma-separated worker counts. Prints one JSON line.
"""

import json
import multiprocessing as mp
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, sys.argv[1])
PG = sys.argv[2]
N_TRIALS = int(sys.argv[3])
WORKERS = [int(w) for w in sys.argv[4].split(",")]
DATA = Path(os.environ.get("MITATE_SHARED_DATA") or Path(sys.argv[1]).resolve().parents[1] / "shared" / "data") / "uci_concrete"


def spec_for(parquet: str, out: str, shared: dict) -> dict:
    import pandas as pd

    cols = list(pd.read_parquet(parquet).columns)
    return {
        "project_type": "regression",
        "parquet": parquet,
        "target": cols[-1],
        "features": cols[:-1],
        "cv_folds": 3,
        "auto_tune": True,
        "n_trials": N_TRIALS,
        "output_dir": out,
        "tune_shared": shared,
        "models": [{"key": "1_random_forest", "algorithm": "random_forest", "params": {"n_estimators": 60}}],
    }


def run(kind: str, spec: dict, q) -> None:
    from mitate_engine.task import Context, get_task

    t0 = time.monotonic()
    result = get_task(kind).run(spec, Context(lambda e: None, spec.get("output_dir")))
    q.put((kind, time.monotonic() - t0, result if kind == "tune_helper" else None))


def main() -> None:
    import optuna
    import pandas as pd
    import psycopg
    from mitate_engine.ml import shared_tune

    schema = f"bench_tune_{secrets.token_hex(4)}"
    conninfo = PG.replace("postgres://", "postgresql://", 1)
    base = PG.replace("postgres://", "postgresql+psycopg://", 1).replace("postgresql://", "postgresql+psycopg://", 1)
    url = f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}"
    with psycopg.connect(conninfo, autocommit=True) as c:
        c.execute(f"CREATE SCHEMA {schema}")
    out: dict = {"n_trials": N_TRIALS, "model": "random_forest (60 trees), 3-fold CV, uci_concrete", "runs": []}
    try:
        tmp = Path(tempfile.mkdtemp(prefix="mitate-tune-bench-"))
        csv = next(DATA.glob("*.csv"))
        pd.read_csv(csv).to_parquet(tmp / "d.parquet")
        ctx = mp.get_context("spawn")
        for workers in WORKERS:
            study = f"w{workers}-{secrets.token_hex(3)}"
            shared = {"storage": url, "study": study}
            spec = spec_for(str(tmp / "d.parquet"), str(tmp / study), shared)
            q = ctx.Queue()
            load_before = os.getloadavg()[0]
            t0 = time.monotonic()
            procs = [ctx.Process(target=run, args=("train", spec, q))]
            procs += [ctx.Process(target=run, args=("tune_helper", spec, q)) for _ in range(workers - 1)]
            for p in procs:
                p.start()
            for p in procs:
                p.join()
            wall = time.monotonic() - t0
            s = optuna.load_study(study_name=f"{study}:1_random_forest", storage=shared_tune.storage(url))
            trials = [t for t in s.trials if t.state != optuna.trial.TrialState.RUNNING]
            # the tuning phase: first trial start to last trial end (reading data and the final fit are not trials)
            starts = [t.datetime_start for t in trials if t.datetime_start]
            ends = [t.datetime_complete for t in trials if t.datetime_complete]
            tuning = (max(ends) - min(starts)).total_seconds()
            out["runs"].append(
                {
                    "workers": workers,
                    "trials": len(trials),
                    "by_helpers": sum(1 for t in trials if "worker" in t.user_attrs),
                    "tuning_seconds": round(tuning, 2),
                    "trials_per_minute": round(len(trials) / tuning * 60, 1),
                    "job_seconds": round(wall, 2),
                    "best_cv_r2": round(s.best_value, 4),
                    "load_1min_before": round(load_before, 2),
                    "load_1min_after": round(os.getloadavg()[0], 2),
                }
            )
    finally:
        shared_tune.storage.cache_clear()
        with psycopg.connect(conninfo, autocommit=True) as c:
            c.execute(f"DROP SCHEMA {schema} CASCADE")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
