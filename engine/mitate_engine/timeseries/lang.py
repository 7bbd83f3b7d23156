"""What the area says to a person (the job's log lines, its notes, the HTML report) in their language, from the
message catalogue (engine/mitate_engine/messages.json, en + ja) that the server and the web use too."""

from __future__ import annotations

from ..lang import LANGS, error_text, lang_of, say
from .detectors import CATALOGUE

__all__ = ["LANGS", "detector_name", "error_text", "lang_of", "param_labels", "say"]


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
