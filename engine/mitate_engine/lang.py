"""The job's language and its messages: what a task says to a person (progress, log lines, notes) in the language of
the person who started the job (`lang` in the spec, en | ja), from the message catalogue (messages.json, en + ja) that
the server and the web use too. One implementation for every task."""

from __future__ import annotations

from typing import Any

from .task import EngineError, fill, messages

LANGS = ("en", "ja")


def lang_of(spec: dict) -> str:
    """The job's language as the server queued it (the language of the person who started it); English if none."""
    v = str(spec.get("lang") or "en")
    return v if v in LANGS else "en"


def say(code: str, lang: str, **params: Any) -> str:
    """The message `code` in `lang` with its {placeholders} filled; a parameter that is itself a coded message
    (an EngineError or its {code, params} form) is said in the same language."""
    entry = messages().get(code) or {}
    template = entry.get(lang) or entry.get("en") or code
    return fill(template, {k: _param(v, lang) for k, v in params.items()})


def _param(v: Any, lang: str) -> Any:
    if isinstance(v, EngineError):
        return say(v.code, lang, **v.params)
    if isinstance(v, dict) and isinstance(v.get("code"), str):
        return say(v["code"], lang, **(v.get("params") or {}))
    return v


def error_text(exc: BaseException, lang: str) -> str:
    """A user error in `lang` (an EngineError from its code; any other error as its own text)."""
    return say(exc.code, lang, **exc.params) if isinstance(exc, EngineError) else str(exc)
