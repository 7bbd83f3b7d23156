import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[1]
if str(ENGINE) not in sys.path:
    sys.path.insert(0, str(ENGINE))

import os  # noqa: E402

import pytest  # noqa: E402

# Every task run in these tests, through the worker or called directly, is held to the server's declaration of its
# kind (mitate_engine/job_kinds.json): its spec on entry and, strictly, its result.
os.environ.setdefault("MITATE_STRICT_RESULTS", "1")


@pytest.fixture(autouse=True, scope="session")
def _declared_job_shapes():
    from mitate_engine.job_kinds import check_result, check_spec
    from mitate_engine.task import _registry, load_tasks

    load_tasks()
    originals = {cls: cls.run for cls in _registry.values()}
    for kind, cls in _registry.items():

        def run(self, spec, ctx, _run=originals[cls], _kind=kind):
            check_spec(_kind, spec)
            result = _run(self, spec, ctx)
            if isinstance(result, dict):
                check_result(_kind, result)
            return result

        cls.run = run
    yield
    for cls, run in originals.items():
        cls.run = run
