"""Optimisation input errors: one function, a stable code and parameters, so the server can say them in en/ja."""

from __future__ import annotations

from ..stats.errors import StatsInputError


def opt_error(code: str, message: str, **params) -> StatsInputError:
    return StatsInputError(f"optimization.{code}", message, **params)
