"""Kind `optimal_design`: one round of an optimal design project (SPEC §3), or the evaluation of a user's design.

Spec: output_dir, mode ('design' | 'evaluate'), variables [{name, type: continuous|discrete|categorical|mixture,
low, high, levels}], constraints [{type: sum|linear, coefficients {name: a} or variables [...], op '='|'<='|'>=',
total}], mixture_total, model {kind, terms}, algorithm, n_runs, seed, starts, parameters {resolution, center,
degree, levels}, existing (rows of runs already done, with responses), responses [names], exclude {rows,
tolerance}, bo {response, direction, model_path, condition_path}; evaluate: user_design, our_design (rows).
Writes result.json and, for a design, design.csv (the new runs).
"""

from __future__ import annotations

import csv
import json
import os
import time

from ..encoding import to_jsonable
from ..lang import lang_of, say
from ..optimal_design.design import compare, make_design
from ..task import Context, Task


def _write_json(path, data) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, allow_nan=False), encoding="utf-8")
    os.replace(tmp, path)


class OptimalDesign(Task):
    kind = "optimal_design"

    def run(self, spec: dict, ctx: Context) -> dict:
        started = time.perf_counter()
        if spec.get("mode") == "evaluate":
            ctx.progress(0.1, say("job_scoring_designs", lang_of(spec)))
            result = compare(spec)
            name = "evaluation.json"
        else:
            result = make_design(spec, lambda f, m: ctx.progress(f, m))
            name = "result.json"
            with open(ctx.work_dir / "design.csv", "w", newline="", encoding="utf-8") as f:
                names = [v["name"] for v in result["variables"]]
                w = csv.writer(f)
                w.writerow(["run", *names])
                for i, row in enumerate(result["runs"], start=1):
                    w.writerow([i, *[row[n] for n in names]])
        result["seconds"] = time.perf_counter() - started
        result = to_jsonable(result)
        _write_json(ctx.work_dir / name, result)
        return result
