"""Two workers that create Optuna's RDB tables at the same moment: the loser retries rather than failing its job."""

import optuna
import pytest
import sqlalchemy.exc
from mitate_engine.ml import shared_tune


class _Orig(Exception):
    pass


def _flaky(errors: list[Exception]):
    calls = []

    def make(url, engine_kwargs=None):
        calls.append(url)
        if errors:
            raise errors.pop(0)
        return ("storage", url)

    return make, calls


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch):
    monkeypatch.setattr(shared_tune.time, "sleep", lambda s: None)
    shared_tune.storage.cache_clear()
    yield
    shared_tune.storage.cache_clear()


def test_a_type_or_table_made_by_another_worker_is_retried(monkeypatch):
    dup_type = sqlalchemy.exc.ProgrammingError("CREATE TYPE studydirection", {}, _Orig('type "studydirection" already exists'))
    dup_row = sqlalchemy.exc.IntegrityError("INSERT INTO version_info", {}, _Orig("duplicate key value"))
    make, calls = _flaky([dup_type, dup_row])
    monkeypatch.setattr(optuna.storages, "RDBStorage", make)
    assert shared_tune.storage("postgresql+psycopg://x/db") == ("storage", "postgresql+psycopg://x/db")
    assert len(calls) == 3


def test_another_programming_error_is_a_fault(monkeypatch):
    make, calls = _flaky([sqlalchemy.exc.ProgrammingError("SELECT", {}, _Orig('permission denied for schema "s"'))])
    monkeypatch.setattr(optuna.storages, "RDBStorage", make)
    with pytest.raises(sqlalchemy.exc.ProgrammingError):
        shared_tune.storage("postgresql+psycopg://x/db")
    assert len(calls) == 1
