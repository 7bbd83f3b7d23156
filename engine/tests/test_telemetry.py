"""Issue 16: the engine's JSON log records and its job spans (child of the request's span through the payload)."""

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from mitate_engine import profiling, telemetry, worker
from mitate_engine.bull_worker import make_processor
from mitate_engine.logs import error_code

ENGINE = Path(__file__).resolve().parents[1]
PARENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_SPAN = "00f067aa0ba902b7"

pytest.importorskip("opentelemetry.sdk.trace", reason="engine/requirements.txt's OpenTelemetry packages")
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402


class Sink:
    """Stands in for the worker's stdout protocol."""

    def __init__(self):
        self.events = []

    def send(self, event):
        self.events.append(event)


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    telemetry.configure(telemetry.make_provider(exporter, ratio=0.0, batch=False))
    yield exporter
    telemetry.configure(None)


def records(text: str) -> list[dict]:
    out = []
    for line in text.splitlines():
        if line.startswith("{") and json.loads(line).get("logger") == "mitate_engine":
            out.append(json.loads(line))
    return out


def test_a_job_span_is_the_child_of_the_request_span(spans, capfd):
    message = {
        "id": "j1",
        "kind": "diagnostics",
        "spec": {"mode": "sleep", "seconds": 0.1},
        "request_id": "req-1",
        "attempt": 1,
        "trace": {"traceparent": f"00-{PARENT_TRACE}-{PARENT_SPAN}-01"},
    }
    worker.run_one(Sink(), message)
    (span,) = spans.get_finished_spans()
    assert span.name == "job diagnostics"
    assert format(span.context.trace_id, "032x") == PARENT_TRACE
    assert format(span.parent.span_id, "016x") == PARENT_SPAN
    assert span.attributes["mitate.request_id"] == "req-1" and span.attributes["mitate.job_id"] == "j1"
    # Its log records name the trace and the span, so a log line leads to the trace.
    done = [r for r in records(capfd.readouterr().err) if r["msg"] == "job succeeded"]
    assert done[0]["trace_id"] == PARENT_TRACE
    assert done[0]["span_id"] == format(span.context.span_id, "016x")


def test_a_sampled_out_request_and_a_root_at_ratio_0_record_nothing(spans):
    worker.run_one(Sink(), {"id": "j2", "kind": "diagnostics", "spec": {"mode": "fail"}, "trace": {"traceparent": f"00-{PARENT_TRACE}-{PARENT_SPAN}-00"}})
    worker.run_one(Sink(), {"id": "j3", "kind": "diagnostics", "spec": {"mode": "sleep", "seconds": 0.1}})
    assert spans.get_finished_spans() == ()


def test_a_failed_job_span_has_the_error_code(spans):
    worker.run_one(Sink(), {"id": "j4", "kind": "nonexistent_kind", "spec": {}, "trace": {"traceparent": f"00-{PARENT_TRACE}-{PARENT_SPAN}-01"}})
    (span,) = spans.get_finished_spans()
    assert span.status.status_code.name == "ERROR"
    assert span.attributes["mitate.error_code"] == span.status.description


def test_the_bull_worker_carries_the_trace_and_request_id(spans, capfd):
    class FakeJob:
        id = str(uuid.uuid4())
        attemptsStarted = 2
        data = {
            "kind": "diagnostics",
            "spec": {"mode": "sleep", "seconds": 0.1},
            "request_id": "req-b",
            "trace": {"traceparent": f"00-{PARENT_TRACE}-{PARENT_SPAN}-01"},
        }

        async def updateProgress(self, event):
            pass

    job = FakeJob()
    asyncio.run(make_processor("redis://127.0.0.1:1")(job, "token"))
    (span,) = spans.get_finished_spans()
    assert format(span.parent.span_id, "016x") == PARENT_SPAN
    assert span.attributes["mitate.attempt"] == 2
    done = [r for r in records(capfd.readouterr().err) if r.get("job_id") == job.id and r["msg"] == "job succeeded"]
    assert done and done[0]["request_id"] == "req-b" and done[0]["attempt"] == 2 and done[0]["worker"] == "bull"
    assert done[0]["trace_id"] == PARENT_TRACE and isinstance(done[0]["duration_ms"], int)


def test_error_codes():
    assert error_code({"error": json.dumps({"code": "column_missing", "params": {}, "message": "x"})}) == "column_missing"
    assert error_code({"error": "cancelled", "cancelled": True}) == "cancelled"
    assert error_code({"error": "ValueError: bad", "traceback": "..."}) == "ValueError"
    assert error_code({"error": "an uncoded text"}) == "user_error"


def test_the_sample_ratio_setting():
    assert telemetry.sample_ratio("") == 0.25  # SPEC §9
    assert telemetry.sample_ratio("1") == 1.0
    assert telemetry.sample_ratio("0") == 0.0
    assert telemetry.sample_ratio("2") == 0.25 and telemetry.sample_ratio("x") == 0.25


def test_a_worker_process_logs_json_and_exports_over_otlp_http():
    """The real worker, started as the server starts it, with an OTLP/HTTP collector stand-in."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    received: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            received.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in [str(ENGINE), os.environ.get("PYTHONPATH")] if p),
        "PYTHONUNBUFFERED": "1",
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{server.server_port}",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "mitate_engine.worker"], cwd=ENGINE, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert json.loads(proc.stdout.readline())["type"] == "ready"
        job = {"id": "w1", "kind": "diagnostics", "spec": {"mode": "fail"}, "request_id": "req-w", "attempt": 1}
        proc.stdin.write(json.dumps({**job, "trace": {"traceparent": f"00-{PARENT_TRACE}-{PARENT_SPAN}-01"}}) + "\n")
        proc.stdin.flush()
        while json.loads(proc.stdout.readline())["type"] not in ("result", "error"):
            pass
        proc.stdin.close()  # end of input: the worker ends and its batched spans are sent on the way out
        assert proc.wait(60) == 0
        logged = records(proc.stderr.read())
    finally:
        if proc.poll() is None:
            proc.kill()
        server.shutdown()
    failed = next(r for r in logged if r["msg"] == "job failed")
    assert failed["job_id"] == "w1" and failed["request_id"] == "req-w" and failed["kind"] == "diagnostics" and failed["attempt"] == 1
    assert failed["error_code"] == "diagnostic_failure" and failed["level"] == "warning" and failed["duration_ms"] >= 0
    assert failed["trace_id"] == PARENT_TRACE
    spans = [s for body in received for rs in ExportTraceServiceRequest.FromString(body).resource_spans for ss in rs.scope_spans for s in ss.spans]
    (span,) = spans
    assert span.trace_id.hex() == PARENT_TRACE and span.parent_span_id.hex() == PARENT_SPAN and span.name == "job diagnostics"


def _busy(seconds: float) -> int:
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += sum(i * i for i in range(200))
    return n


def test_a_traced_job_carries_a_profile_that_names_where_the_time_went(spans, monkeypatch):
    """SPEC §9 profile sampling 1.0: the sampled job's span has a profile event; work done in another thread counts."""
    monkeypatch.delenv("MITATE_PROFILE_SAMPLE", raising=False)
    carrier = {"traceparent": f"00-{PARENT_TRACE}-{PARENT_SPAN}-01"}
    with telemetry.job_span("diagnostics", "j-prof", carrier):
        t = threading.Thread(target=_busy, args=(0.4,))
        t.start()
        t.join()
    (span,) = spans.get_finished_spans()
    (event,) = [e for e in span.events if e.name == "profile"]
    assert event.attributes["profile.samples"] >= 5
    assert any("_busy (test_telemetry.py" in line for line in event.attributes["profile.total"])
    assert event.attributes["profile.self"], "the functions that were running"
    # the waiting main thread (join) is idle, not work
    assert not any(" join (threading.py" in line for line in event.attributes["profile.total"])


def test_the_profile_ratio_setting_and_no_profile_without_a_trace(spans, monkeypatch):
    assert profiling.profile_ratio("0.5") == 0.5
    assert profiling.profile_ratio("2") == profiling.DEFAULT_RATIO == 1.0
    assert profiling.profile_ratio("x") == 1.0
    monkeypatch.setenv("MITATE_PROFILE_SAMPLE", "0")
    with telemetry.job_span("diagnostics", "j-noprof", {"traceparent": f"00-{PARENT_TRACE}-{PARENT_SPAN}-01"}):
        _busy(0.05)
    (span,) = spans.get_finished_spans()
    assert [e.name for e in span.events] == []
    assert profiling.wanted(None) is False
