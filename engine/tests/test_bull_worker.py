"""The BullMQ front end's processor, with a stand-in job (no queue needed); the cancel flag needs Redis."""

import asyncio
import os
import re
import uuid

import pytest
from bullmq.custom_errors import UnrecoverableError
from mitate_engine.bull_worker import CANCEL_PREFIX, make_processor

REDIS = os.environ.get("TEST_REDIS_URL")


class FakeJob:
    def __init__(self, data):
        self.id = str(uuid.uuid4())
        self.data = data
        self.progress = []

    async def updateProgress(self, event):
        await asyncio.sleep(0)  # yield, as a Redis round trip would
        self.progress.append(event)


def run(job, url="redis://127.0.0.1:1"):  # an unreachable Redis: cancel checks fail soft
    return asyncio.run(make_processor(url)(job, "token"))


def test_result_and_events_in_order():
    job = FakeJob({"kind": "diagnostics", "spec": {"mode": "sleep", "seconds": 0.3}})
    assert run(job)["slept"] >= 0.3
    types = [e["type"] for e in job.progress]
    assert types[0] == "started" and types.count("progress") >= 2
    fractions = [e["progress"] for e in job.progress if e["type"] == "progress"]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0


def test_failures_raise_the_readable_reason():
    with pytest.raises(UnrecoverableError, match=re.escape('{"code": "diagnostic_failure", "params": {}, "message": "diagnostic failure"}')):
        run(FakeJob({"kind": "diagnostics", "spec": {"mode": "fail"}}))
    job = FakeJob({"kind": "diagnostics", "spec": {"mode": "raise"}})
    with pytest.raises(UnrecoverableError, match="^ValueError: a programming error$"):
        run(job)
    assert "Traceback" in job.progress[-1]["line"]  # the traceback reaches the job log


@pytest.mark.skipif(not REDIS, reason="TEST_REDIS_URL not set")
def test_the_cancel_flag_stops_a_running_task():
    import redis

    client = redis.Redis.from_url(REDIS)
    job = FakeJob({"kind": "diagnostics", "spec": {"mode": "sleep", "seconds": 20}})
    client.set(CANCEL_PREFIX + job.id, "1", ex=60)
    try:
        with pytest.raises(UnrecoverableError, match="^cancelled$"):
            run(job, REDIS)
    finally:
        client.delete(CANCEL_PREFIX + job.id)
