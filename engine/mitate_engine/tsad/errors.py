"""One function makes every user-facing error of this area, so messages can later become codes in one place."""

from __future__ import annotations

from ..task import UserError


def fail(message: str, **params: object) -> UserError:
    """A UserError whose text is `message` with {name} placeholders filled."""
    return UserError(message.format(**params) if params else message)
