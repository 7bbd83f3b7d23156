"""Input errors with a stable code, so the server can say them in the user's language."""

from __future__ import annotations

from ..task import EngineError


class StatsInputError(EngineError):
    """str() is a JSON object {code, params, message}; the server localizes by code (its statistical-analysis
    catalogue), else shows message."""

    def __init__(self, code: str, message: str, **params):
        super().__init__(code, message, **params)


def input_error(code: str, message: str, **params) -> StatsInputError:
    return StatsInputError(code, message, **params)
