"""One function makes every user-facing error of this area: an EngineError with a code of the catalogue
(engine/mitate_engine/messages.json, en + ja), so the server says it in the caller's language."""

from __future__ import annotations

from ..task import EngineError


def fail(code: str, **params: object) -> EngineError:
    """EngineError(code, **params); the code must be in the catalogue (a test checks every call)."""
    return EngineError(code, **params)
