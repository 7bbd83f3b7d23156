"""Kind `diagnostics`: deliberate behaviours (sleep, fail, crash, print) that prove the job machinery. What it says to a
person (progress, log lines) is in the spec's `lang`, like every task; the printed noise is not said, it is noise."""

from __future__ import annotations

import os
import time

from ..lang import lang_of, say
from ..task import Context, EngineError, Task


class Diagnostics(Task):
    kind = "diagnostics"

    def run(self, spec: dict, ctx: Context) -> dict:
        mode = spec.get("mode", "sleep")
        lang = lang_of(spec)
        if mode == "sleep":
            seconds = float(spec.get("seconds", 1.0))
            start = time.monotonic()
            steps = max(1, int(round(seconds / 0.1)))
            for i in range(steps):
                time.sleep(0.1)
                ctx.progress((i + 1) / steps, say("job_step", lang, i=i + 1, n=steps))
                ctx.check_cancelled()
            return {"slept": round(time.monotonic() - start, 3)}
        if mode == "block":
            # One long call that reports nothing, as a native fit does: only a signal ends it early.
            time.sleep(float(spec.get("seconds", 1.0)))
            return {"blocked": True}
        if mode == "fail":
            raise EngineError("diagnostic_failure")
        if mode == "crash":
            ctx.log(say("job_diagnostic_crashing", lang))
            os._exit(3)
        if mode == "print":
            # Libraries that print must not corrupt the protocol on stdout.
            print("noise on stdout from a task")
            os.write(1, b"raw noise on file descriptor 1\n")
            ctx.log(say("job_diagnostic_after_noise", lang))
            ctx.event("metrics", values={"loss": 0.5, "nan": float("nan")})
            return {"printed": True, "nan": float("nan"), "inf": float("inf")}
        if mode == "raise":
            raise ValueError("a programming error")
        raise EngineError("diagnostic_unknown_mode", mode=mode)
