"""Job worker for the scale-out mode: the same tasks, fed by a BullMQ queue on Redis (official `bullmq` package).

    python -m mitate_engine.bull_worker --redis redis://host:6379 --queue mitate-jobs --concurrency 1

Job data is {"kind", "spec"} and the job id is Mitate's job id. Events travel as job progress objects; the
result is the job's return value; a failure is the job's failed reason. A cancel is a Redis key the server
sets (mitate:cancel:<job id>), which the task notices at its next progress report.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import redis as redis_sync
from bullmq import Worker
from bullmq.custom_errors import UnrecoverableError
from redis.backoff import NoBackoff
from redis.retry import Retry

from .encoding import dumps, to_jsonable
from .lifeline import exit_with_parent
from .logs import JobLog, error_code
from .logs import log as jlog
from .objectstore import JobFiles, ObjectStore, settings_from_env
from .runner import error_event, release_memory, run_task
from .task import Cancelled, Context, task_kinds
from .telemetry import job_span, mark_failed, span_fields
from .telemetry import shutdown as shutdown_tracing
from .telemetry import tracer as start_tracing

CANCEL_PREFIX = "mitate:cancel:"


def log(message: str, error: bool = False, **fields) -> None:
    """A structured record on stderr (logs.py); stdout carries only the ready line."""
    jlog("error" if error else "info", message, **{"worker": "bull", **fields})


def make_processor(redis_url: str, data_dir: str | None = None):
    s3 = settings_from_env()
    store = ObjectStore(s3) if s3 else None
    local_root = data_dir or os.environ.get("MITATE_DATA_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "data")

    # Cancel checks run in the task's thread, so they use their own synchronous client.
    local = threading.local()

    def cancel_requested_for(job_id: str):
        key = CANCEL_PREFIX + job_id

        def check() -> bool:
            if time.monotonic() < getattr(local, "quiet_until", 0.0):
                return False
            client = getattr(local, "client", None)
            if client is None:
                client = local.client = redis_sync.Redis.from_url(redis_url, socket_connect_timeout=2, socket_timeout=2, retry=Retry(NoBackoff(), 0))
            try:
                return bool(client.exists(key))
            except redis_sync.RedisError as exc:  # a blip must not fail the job, nor slow it down
                log(f"cancel check failed: {exc}", error=True)
                local.quiet_until = time.monotonic() + 5
                return False

        return check

    async def process(job, token):
        data = job.data or {}
        kind = str(data.get("kind"))
        # attemptsStarted counts this run too (a stalled job taken again by another worker is its 2nd attempt).
        attempt = int(getattr(job, "attemptsStarted", 0) or 0) or int(getattr(job, "attemptsMade", 0) or 0) + int(getattr(job, "stalledCounter", 0) or 0) + 1
        jl = JobLog(str(job.id), kind, request_id=data.get("request_id"), attempt=attempt, worker="bull")
        with job_span(kind, job.id, data.get("trace"), data.get("request_id"), attempt) as span:
            jl.fields.update(span_fields(span))
            try:
                return await run_job(job, data, kind, jl)
            except UnrecoverableError as exc:
                mark_failed(span, error_code(getattr(exc, "failure", {"error": str(exc)})))
                raise

    async def run_job(job, data: dict, kind: str, jl: JobLog):
        spec = data.get("spec") or {}
        # Object storage: the server's paths become this host's cache, inputs downloaded, outputs uploaded after.
        files = JobFiles(store, str(data["data_dir"]), local_root) if store and isinstance(spec, dict) and data.get("data_dir") else None
        server_spec = spec
        loop = asyncio.get_running_loop()
        events: asyncio.Queue = asyncio.Queue()

        def emit(event: dict) -> None:  # called from the task thread
            loop.call_soon_threadsafe(events.put_nowait, to_jsonable(event))

        async def forward() -> None:  # one at a time, so events keep their order
            while (event := await events.get()) is not None:
                try:
                    await job.updateProgress(event)
                except Exception as exc:  # noqa: BLE001 - progress is best effort
                    log(f"progress update failed for job {job.id}: {exc}", error=True, **jl.fields)

        forwarder = asyncio.create_task(forward())
        cancel_requested = cancel_requested_for(str(job.id))
        ctx = Context(emit, work_dir=spec.get("output_dir") if isinstance(spec, dict) else None, cancel_requested=cancel_requested, kind=str(kind))
        emit({"type": "started", "pid": os.getpid()})
        jl.started()
        failure: dict | None = None
        result = None
        try:
            if await asyncio.to_thread(cancel_requested):  # cancelled before a worker picked it up
                raise Cancelled("cancelled")
            if files:
                spec = await asyncio.to_thread(files.localize, server_spec)
                ctx._work_dir = Path(spec["output_dir"]) if spec.get("output_dir") else None
            # A thread keeps the event loop free, so the job lock is renewed while the task computes.
            result = await asyncio.to_thread(run_task, kind, spec, ctx)
            dumps(result)  # fail here, readably, if the result cannot be JSON
            if files:
                uploaded = await asyncio.to_thread(files.publish, server_spec)
                log(f"job {job.id}: {uploaded} output file(s) uploaded", **jl.fields)
                result = files.result_back(result)
        except Exception as exc:  # noqa: BLE001 - becomes the job's failed reason
            ctx.flush()
            failure = error_event(exc)
        if failure and failure.get("traceback"):
            emit({"type": "log", "line": failure["traceback"]})
        await asyncio.to_thread(release_memory)
        loop.call_soon_threadsafe(events.put_nowait, None)  # behind every event still in flight
        await forwarder
        if failure:
            jl.failed(failure)
            err = UnrecoverableError(failure["error"])
            err.failure = failure
            raise err
        jl.succeeded()
        return to_jsonable(result)

    return process


async def serve(redis_url: str, queue: str, concurrency: int, prefix: str, data_dir: str | None = None, lock_ms: int = 30000) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    worker = Worker(
        queue,
        make_processor(redis_url, data_dir),
        {
            "connection": redis_url,
            "concurrency": concurrency,
            "prefix": prefix,
            "name": f"mitate-{socket.gethostname()}-{os.getpid()}",
            # A worker that dies loses its lock after lock_ms; the next stalled-job check hands its job to another
            # worker once (maxStalledCount 1), and a second death fails it.
            "lockDuration": lock_ms,
            "stalledInterval": lock_ms,
            "maxStalledCount": 1,
        },
    )
    worker.on("error", lambda err, *a: log(f"worker error: {err}", error=True))
    print(dumps({"type": "ready", "pid": os.getpid(), "queue": queue, "kinds": task_kinds()}), flush=True)
    await stop.wait()
    log("stopping")
    try:
        await asyncio.wait_for(worker.close(), timeout=5)
    except (TimeoutError, Exception) as exc:  # noqa: BLE001
        log(f"close did not finish cleanly: {exc!r}", error=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mitate_engine.bull_worker")
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379"))
    parser.add_argument("--queue", default=os.environ.get("MITATE_QUEUE_NAME", "mitate-jobs"))
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--prefix", default="bull")
    parser.add_argument("--data-dir", default=None, help="this host's cache of the data folder (object storage; default MITATE_DATA_DIR)")
    parser.add_argument(
        "--lock-ms",
        type=int,
        default=int(os.environ.get("MITATE_WORKER_LOCK_MS", "30000")),
        help="job lock; a dead worker's job is retried after about twice this",
    )
    parser.add_argument(
        "--exit-with-parent", action="store_true", help="end when the process that started this worker ends (a Mitate server starting its own workers)"
    )
    args = parser.parse_args(argv)
    if args.exit_with_parent:
        exit_with_parent()
    start_tracing()  # the SDK loads now (when configured), not inside the first job
    asyncio.run(serve(args.redis, args.queue, max(1, args.concurrency), args.prefix, args.data_dir, max(1000, args.lock_ms)))
    shutdown_tracing()  # os._exit below skips atexit, where the SDK would send its last spans
    sys.stdout.flush()
    sys.stderr.flush()
    # A task thread still computing would keep the interpreter alive; its job is recovered as stalled.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
