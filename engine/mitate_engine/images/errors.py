"""Every user-facing engine error of the images area is an EngineError whose code is in the shared catalogue
(mitate_engine/messages.json, English and Japanese), so the server says it in the caller's language."""

from __future__ import annotations

from ..task import EngineError, messages

CODES = (
    "zip_unreadable",
    "zip_too_many_entries",
    "zip_too_large",
    "zip_no_images",
    "zip_layout",
    "analysis_classes",
    "classification_classes",
    "empty_class",
    "no_ok_images",
    "need_both_classes",
    "too_few_images",
    "weights_missing",
    "unknown_algorithm",
    "model_unreadable",
    "no_input_images",
    "image_unreadable",
)


class ImageError(EngineError):
    def __init__(self, code: str, **params):
        if code not in CODES or code not in messages():
            raise KeyError(f"image error code without a catalogue entry: {code}")
        super().__init__(code, **params)


def image_error(code: str, **params) -> ImageError:
    return ImageError(code, **params)
