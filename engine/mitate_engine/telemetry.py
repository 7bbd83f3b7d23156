"""OpenTelemetry traces of engine jobs: one CONSUMER span per job run, the child of the span of the request that
created the job (W3C trace context carried in the job payload as {"traceparent", "tracestate"}).

Off unless OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set: then spans go over OTLP/HTTP and a job
whose request was not sampled records nothing (parent-based). A job without a parent (started by the server
itself) is sampled at MITATE_TRACE_SAMPLE, SPEC §9's 0.25 by default. The SDK is imported only when on. A traced
job also carries a profile (profiling.py; SPEC §9's profile sampling 1.0, MITATE_PROFILE_SAMPLE).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from . import profiling
from .logs import log

DEFAULT_SAMPLE = 0.25
_tracer: Any = None
_provider: Any = None
_configured = False


def sample_ratio(value: str | None = None) -> float:
    """MITATE_TRACE_SAMPLE as a ratio in [0, 1]; anything else keeps 0.25."""
    return profiling.env_ratio("MITATE_TRACE_SAMPLE", DEFAULT_SAMPLE, value)


def configure(provider: Any | None) -> None:
    """Uses this TracerProvider (tests: one with an in-memory exporter); None turns tracing off."""
    global _tracer, _provider, _configured
    _provider = provider
    _tracer = provider.get_tracer("mitate_engine") if provider is not None else None
    _configured = True


def shutdown() -> None:
    """Sends the spans still batched; for exits that skip atexit (os._exit)."""
    if _provider is not None:
        try:
            _provider.shutdown()
        except Exception as exc:  # noqa: BLE001 - a collector that is down must not block the exit
            log("warning", f"traces could not be sent at exit: {exc}")


def make_provider(exporter: Any, ratio: float | None = None, batch: bool = True) -> Any:
    """A TracerProvider with Mitate's sampling (parent-based, the ratio for roots) and this exporter."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
    from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

    provider = TracerProvider(
        sampler=ParentBased(TraceIdRatioBased(sample_ratio() if ratio is None else ratio)),
        resource=Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME") or "mitate-engine"}),
    )
    provider.add_span_processor(BatchSpanProcessor(exporter) if batch else SimpleSpanProcessor(exporter))
    return provider


def tracer() -> Any:
    """The engine's tracer, or None while tracing is off (no exporter configured)."""
    global _configured
    if _configured:
        return _tracer
    _configured = True
    if not (os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")):
        return None
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError as exc:  # an installation without engine/requirements.txt's OpenTelemetry packages
        log("warning", f"tracing is configured but OpenTelemetry is not installed: {exc}")
        return None
    configure(make_provider(OTLPSpanExporter()))
    return _tracer


@contextmanager
def job_span(kind: str, job_id: Any, carrier: Any, request_id: Any = None, attempt: Any = None) -> Iterator[Any]:
    """The span of one job run (None while tracing is off); the payload's trace context is its parent."""
    t = tracer()
    if t is None:
        yield None
        return
    from opentelemetry.trace import SpanKind
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    parent = TraceContextTextMapPropagator().extract({str(k): str(v) for k, v in carrier.items()} if isinstance(carrier, dict) else {})
    attributes = {"mitate.job_id": str(job_id), "mitate.job_kind": kind}
    if request_id:
        attributes["mitate.request_id"] = str(request_id)
    if attempt is not None:
        attributes["mitate.attempt"] = int(attempt)
    with t.start_as_current_span(
        f"job {kind}", context=parent, kind=SpanKind.CONSUMER, attributes=attributes, record_exception=False, set_status_on_exception=False
    ) as span:
        if not profiling.wanted(span):
            yield span
            return
        sampler = profiling.Sampler()
        try:
            with sampler:
                yield span
        finally:
            span.add_event("profile", sampler.summary())


def span_fields(span: Any) -> dict[str, str]:
    """trace_id and span_id of a recording span, for log records (so a log line leads to its trace)."""
    if span is None or not span.is_recording():
        return {}
    ctx = span.get_span_context()
    return {"trace_id": format(ctx.trace_id, "032x"), "span_id": format(ctx.span_id, "016x")}


def mark_failed(span: Any, code: str) -> None:
    if span is None or not span.is_recording():
        return
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("mitate.error_code", code)
    if code != "cancelled":
        span.set_status(Status(StatusCode.ERROR, code))
