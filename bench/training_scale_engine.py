"""Issue 34, 100 M rows: the engine's Train task (what the server's train job runs) on a dataset's Parquet file with the
training-scale bench's project (target signal, 7 inputs, defaults, one LightGBM), the process's resident memory sampled
every 200 ms and its peak (ru_maxrss). For when the product's own run does not fit the time there is: upload and ingest
through bench/training-scale.bench.mjs, then this on the data.parquet the product wrote.
Usage: MITATE_ML_THREADS=1 .venv/bin/python bench/training_scale_engine.py <data.parquet> <work dir>  (JSON last line)"""

import json
import os
import resource
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "engine"))
from mitate_engine.task import Context
from mitate_engine.tasks.train import Train

parquet, out = sys.argv[1], sys.argv[2]
samples, messages = [], []


def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024


stop = False


def sampler():
    while not stop:
        samples.append((time.monotonic(), rss(), os.getloadavg()[0]))
        time.sleep(0.2)


threading.Thread(target=sampler, daemon=True).start()


def emit(e):
    if e.get("type") == "progress" and (not messages or messages[-1][1] != e.get("message")):
        messages.append((round(time.monotonic() - t0, 1), e.get("message")))
        print(messages[-1], flush=True)


spec = {
    "project_type": "regression",
    "parquet": parquet,
    "target": "signal",
    "features": ["temperature", "pressure", "humidity", "counter", "vibration", "status", "line"],
    "models": [{"key": "1_lightgbm", "algorithm": "lightgbm", "params": {}}],
}
t0 = time.monotonic()
load0 = os.getloadavg()
ctx = Context(emit, out, lambda: False)
res = Train().run(spec, ctx)
seconds = time.monotonic() - t0
stop = True
rep = json.load(open(os.path.join(out, "1_lightgbm", "report.json")))
print(
    json.dumps(
        {
            "seconds": seconds,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "sampled_peak_mb": max(s[1] for s in samples),
            "load_at_start": load0,
            "load_at_end": os.getloadavg(),
            "load_1min_during": {"min": min(s[2] for s in samples), "max": max(s[2] for s in samples)},
            "train_rows": res["train_rows"],
            "test_rows": res["test_rows"],
            "metrics": rep["metrics"],
            "train_metrics": rep.get("train_metrics"),
            "profile": rep["profile"],
            "sampling": rep["sampling"],
            "cv": rep.get("cv"),
            "messages": messages[:40] + messages[-40:],
            "rss_timeline_mb": [(round(t - t0, 1), round(m)) for t, m, _ in samples[:: max(1, len(samples) // 120)]],
        }
    ),
    flush=True,
)
