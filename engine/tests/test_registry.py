import pytest
from mitate_engine.runner import error_event, run_task
from mitate_engine.task import Cancelled, Context, EngineError, Task, get_task, task_kinds


def test_every_task_module_is_registered():
    assert {"statistics", "diagnostics"} <= set(task_kinds())
    assert get_task("statistics").kind == "statistics"


def test_unknown_kind_is_a_user_error():
    with pytest.raises(EngineError, match="unknown job kind: nope") as info:
        get_task("nope")
    assert (info.value.code, info.value.params) == ("unknown_job_kind", {"kind": "nope"})


def test_a_subclass_registers_itself_and_a_second_definition_is_refused():
    class Echo(Task):
        kind = "test-echo"

        def run(self, spec, ctx):
            return {"echo": spec}

    assert run_task("test-echo", {"a": 1}, Context(lambda e: None)) == {"echo": {"a": 1}}
    with pytest.raises(TypeError, match="defined twice"):
        type("Other", (Task,), {"kind": "test-echo", "__module__": "elsewhere"})


def test_progress_is_throttled_and_the_last_value_flushed():
    events = []
    ctx = Context(events.append, progress_interval=10)
    for i in range(1000):
        ctx.progress(i / 999)
    assert len(events) == 1
    ctx.flush()
    assert events[-1]["progress"] == 1.0 and len(events) == 2


def test_cancel_is_noticed_at_most_every_interval():
    calls = []
    ctx = Context(lambda e: None, cancel_requested=lambda: calls.append(1) or len(calls) >= 2, cancel_interval=0)
    ctx.check_cancelled()
    with pytest.raises(Cancelled):
        ctx.progress(0.5)
    with pytest.raises(Cancelled):  # stays cancelled without asking again
        ctx.check_cancelled()
    assert len(calls) == 2


def test_error_events_are_readable():
    coded = error_event(EngineError("diagnostic_unknown_mode", mode="x"))
    assert coded == {"type": "error", "error": '{"code": "diagnostic_unknown_mode", "params": {"mode": "x"}, "message": "unknown diagnostics mode: x"}'}
    assert error_event(Cancelled())["error"] == "cancelled"
    try:
        raise KeyError("x")
    except KeyError as exc:
        ev = error_event(exc)
    assert ev["error"] == "KeyError: 'x'" and "Traceback" in ev["traceback"]


def test_reserved_event_types_are_refused():
    with pytest.raises(ValueError):
        Context(lambda e: None).event("result", x=1)
