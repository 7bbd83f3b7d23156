"""What the area says to a person (the job's log lines, its notes, the HTML report) in their language, from the
message catalogue (engine/mitate_engine/messages.json, en + ja) that the server and the web use too."""

from __future__ import annotations

from typing import Any

from ..task import EngineError, fill, messages
from .detectors import CATALOGUE

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


def _entry(algorithm: str) -> dict | None:
    return next((a for mode in CATALOGUE.values() for a in mode if a["key"] == algorithm), None)


def detector_name(algorithm: str, lang: str) -> str:
    """The detector's name in `lang` (the catalogue's name key); the algorithm key if the catalogue lacks it."""
    a = _entry(algorithm)
    return say(a["name_key"], lang) if a else algorithm


def param_labels(algorithm: str, lang: str) -> dict[str, str]:
    """{parameter name: its label in `lang`} for the detector's catalogue parameters."""
    a = _entry(algorithm)
    return {p["name"]: say(p["label_key"], lang) for p in (a["params"] if a else [])}
