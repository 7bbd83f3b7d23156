"""Two workers that create Optuna's RDB tables at the same moment: the loser retries rather than failing its job."""

import optuna
import pytest
import sqlalchemy.exc
from mitate_engine.ml import shared_tune


class _Orig(Exception):
    pass


def _flaky(errors: list[Exception]):
    calls = []

    def make(url, **options):
        calls.append((url, options))
        if errors:
            raise errors.pop(0)
        return ("storage", url)

    return make, calls


def _fresh(monkeypatch, make):
    monkeypatch.setattr(shared_tune.time, "sleep", lambda s: None)
    monkeypatch.setattr(optuna.storages, "RDBStorage", make)
    shared_tune.storage.cache_clear()


def test_a_type_or_table_made_by_another_worker_is_retried(monkeypatch):
    dup_type = sqlalchemy.exc.ProgrammingError("CREATE TYPE studydirection", {}, _Orig('type "studydirection" already exists'))
    dup_row = sqlalchemy.exc.IntegrityError("INSERT INTO version_info", {}, _Orig("duplicate key value"))
    make, calls = _flaky([dup_type, dup_row])
    _fresh(monkeypatch, make)
    assert shared_tune.storage("postgresql+psycopg://x/db") == ("storage", "postgresql+psycopg://x/db")
    assert len(calls) == 3
    shared_tune.storage.cache_clear()


def test_another_programming_error_is_a_fault(monkeypatch):
    make, calls = _flaky([sqlalchemy.exc.ProgrammingError("SELECT", {}, _Orig('permission denied for schema "s"'))])
    _fresh(monkeypatch, make)
    with pytest.raises(sqlalchemy.exc.ProgrammingError):
        shared_tune.storage("postgresql+psycopg://x/db")
    assert len(calls) == 1
    shared_tune.storage.cache_clear()
