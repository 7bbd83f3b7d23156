"""Input errors with a stable code, so the server can say them in the user's language."""

from __future__ import annotations

import json

from ..task import UserError


class StatsInputError(UserError):
    """str() is a JSON object {code, params, message}; the server localizes by code, else shows message."""

    def __init__(self, code: str, message: str, **params):
        self.code = code
        self.params = params
        self.message = message
        super().__init__(json.dumps({"code": code, "params": params, "message": message}, ensure_ascii=False, default=str))


def input_error(code: str, message: str, **params) -> StatsInputError:
    return StatsInputError(code, message, **params)
