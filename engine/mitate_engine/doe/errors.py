"""The one way the design engine reports a mistake the user can fix: a stable code, parameters and English text.

The server says it in the reader's language by the code (the same JSON shape as the statistics engine's errors).
"""

from __future__ import annotations

from ..stats.errors import StatsInputError, input_error

DesignInputError = StatsInputError


def design_error(code: str, message: str, **params) -> StatsInputError:
    return input_error(code, message, **params)
