"""The stdio protocol end to end, through a real worker process."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

ENGINE = Path(__file__).resolve().parents[1]


class Worker:
    def __init__(self):
        env = {**os.environ, "PYTHONPATH": str(ENGINE), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mitate_engine.worker"],
            cwd=ENGINE,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def send(self, job_id, kind, spec):
        self.proc.stdin.write(json.dumps({"id": job_id, "kind": kind, "spec": spec}) + "\n")
        self.proc.stdin.flush()

    def read(self):
        line = self.proc.stdout.readline()
        assert line, f"worker closed stdout; stderr: {self.proc.stderr.read()}"
        return json.loads(line)  # every line must be strict JSON

    def until_terminal(self):
        events = []
        while True:
            ev = self.read()
            events.append(ev)
            if ev["type"] in ("result", "error"):
                return events

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            f.close()


@pytest.fixture
def worker():
    w = Worker()
    yield w
    w.close()


def test_ready_started_progress_result(worker, tmp_path):
    t0 = time.monotonic()
    assert worker.read()["type"] == "ready"
    assert time.monotonic() - t0 < 20
    path = tmp_path / "d.parquet"
    pd.DataFrame({"a": [1.0, 2.0, 3.0], "s": ["x", "y", "x"]}).to_parquet(path)
    worker.send("j1", "statistics", {"parquet": str(path), "output_dir": str(tmp_path / "out")})
    events = worker.until_terminal()
    assert all(e["id"] == "j1" for e in events)
    types = [e["type"] for e in events]
    assert types[0] == "started" and "progress" in types and types[-1] == "result"
    assert events[-1]["result"]["row_count"] == 3
    assert events[-1]["result"]["columns"][0]["mean"] == 2.0
    assert (tmp_path / "out" / "statistics.json").exists()

    worker.send("j2", "diagnostics", {"mode": "sleep", "seconds": 0.5})
    events = worker.until_terminal()
    progress = [e for e in events if e["type"] == "progress"]
    assert 1 <= len(progress) <= 7 and progress[-1]["progress"] == 1.0  # throttled, last value kept
    assert events[-1]["result"]["slept"] >= 0.5


def test_failures_are_readable_and_the_worker_lives_on(worker):
    assert worker.read()["type"] == "ready"
    worker.send("f1", "diagnostics", {"mode": "fail"})
    ev = worker.until_terminal()[-1]
    assert ev == {"id": "f1", "type": "error", "error": '{"code": "diagnostic_failure", "params": {}, "message": "diagnostic failure"}'}
    worker.send("f2", "diagnostics", {"mode": "raise"})
    ev = worker.until_terminal()[-1]
    assert ev["error"] == "ValueError: a programming error" and "Traceback" in ev["traceback"]
    worker.send("f3", "no-such-kind", {})
    assert json.loads(worker.until_terminal()[-1]["error"])["message"] == "unknown job kind: no-such-kind"
    worker.proc.stdin.write("not json\n")
    worker.proc.stdin.flush()
    assert worker.read()["error"].startswith("bad job line")
    worker.send("f4", "diagnostics", {"mode": "sleep", "seconds": 0.1})
    assert worker.until_terminal()[-1]["type"] == "result"


def test_prints_in_a_task_do_not_corrupt_the_protocol(worker):
    assert worker.read()["type"] == "ready"
    worker.send("p1", "diagnostics", {"mode": "print"})
    events = worker.until_terminal()
    assert [e["type"] for e in events] == ["started", "log", "metrics", "result"]
    assert events[2]["values"] == {"loss": 0.5, "nan": None}
    assert events[-1]["result"] == {"printed": True, "nan": None, "inf": None}
    worker.proc.stdin.close()
    assert worker.proc.wait(10) == 0  # end of input ends the worker
    err = worker.proc.stderr.read()
    assert "noise on stdout from a task" in err and "raw noise on file descriptor 1" in err


def test_a_crash_ends_the_process(worker):
    assert worker.read()["type"] == "ready"
    worker.send("c1", "diagnostics", {"mode": "crash"})
    assert worker.read()["type"] == "started"
    assert worker.read()["type"] == "log"
    assert worker.proc.stdout.readline() == ""
    assert worker.proc.wait(10) == 3
