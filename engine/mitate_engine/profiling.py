"""Profiles of traced engine jobs (SPEC §9: profile sampling 1.0 — every sampled trace carries a profile).

A sampling profiler, not a tracing one: a daemon thread reads every other thread's stack (sys._current_frames) at a
fixed interval while the job's span is open, so it sees the task wherever it runs (the worker's own thread, the bull
worker's executor thread, numpy releasing the GIL shows as its Python caller) at a cost of a few stack walks per
interval. At the end the busiest functions — by their own samples and with what they call — become an event of the
job's span. MITATE_PROFILE_SAMPLE (0–1, default 1.0) is the share of traced jobs profiled.
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
from collections import Counter

DEFAULT_RATIO = 1.0
INTERVAL_S = 0.01
TOP = 20
IDLE_FILES = {"threading.py", "selectors.py", "queue.py", "thread.py", "base_events.py"}


def env_ratio(name: str, default: float, value: str | None = None) -> float:
    """A sampling ratio setting in [0, 1] (the environment's `name`, or `value`); anything else keeps `default`."""
    raw = os.environ.get(name) if value is None else value
    try:
        ratio = float(raw) if raw not in (None, "") else default
    except ValueError:
        return default
    return ratio if 0.0 <= ratio <= 1.0 else default


def profile_ratio(value: str | None = None) -> float:
    return env_ratio("MITATE_PROFILE_SAMPLE", DEFAULT_RATIO, value)


def _where(code) -> str:
    return f"{code.co_name} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"


class Sampler:
    """Counts, per function, the samples in which it was running (self) and on the stack (total)."""

    def __init__(self, interval: float = INTERVAL_S) -> None:
        self.interval = interval
        self.samples = 0
        self.own: Counter[str] = Counter()
        self.total: Counter[str] = Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mitate-profiler", daemon=True)
        self._started = 0.0

    def __enter__(self) -> Sampler:
        self._started = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        me = threading.get_ident()
        while not self._stop.wait(self.interval):
            for ident, frame in sys._current_frames().items():
                if ident == me:
                    continue
                # a thread parked in the standard library's waiting places (an event loop's select, a queue, a lock)
                # is idle, not work: count only stacks that are doing something
                if os.path.basename(frame.f_code.co_filename) in IDLE_FILES:
                    continue
                self.samples += 1
                self.own[_where(frame.f_code)] += 1
                seen = set()
                f = frame
                while f is not None:
                    w = _where(f.f_code)
                    if w not in seen:
                        seen.add(w)
                        self.total[w] += 1
                    f = f.f_back

    def summary(self) -> dict:
        """The span event's attributes: sample count and interval, the top functions by own and total samples."""
        return {
            "profile.samples": self.samples,
            "profile.interval_ms": round(self.interval * 1000, 3),
            "profile.seconds": round(time.monotonic() - self._started, 3),
            "profile.self": [f"{n} {w}" for w, n in self.own.most_common(TOP)],
            "profile.total": [f"{n} {w}" for w, n in self.total.most_common(TOP)],
        }


def wanted(span) -> bool:
    """Whether this job is profiled: its span records (the trace was sampled) and the profile ratio says so."""
    return span is not None and span.is_recording() and random.random() < profile_ratio()
