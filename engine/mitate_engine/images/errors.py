"""Every user-facing engine error of the images area goes through `image_error`, so codes can be rendered bilingual."""

from __future__ import annotations

from ..task import UserError

MESSAGES = {
    "zip_unreadable": "The file is not a readable ZIP archive.",
    "zip_too_many_entries": "The ZIP has {count} entries; at most {limit} are accepted.",
    "zip_too_large": "The ZIP unpacks to more than {limit_mb} MB; split it into smaller archives.",
    "zip_no_images": "The ZIP contains no readable images in class folders.",
    "zip_layout": "Put the images in one folder per class (OK/ and NG/ for OK/NG analysis), optionally under train/, validation/ and test/.",
    "analysis_classes": "An OK/NG dataset needs an OK folder (and optionally NG); found: {found}.",
    "classification_classes": "Image classification needs at least two class folders with images; found: {found}.",
    "empty_class": 'The class folder "{name}" has no readable images.',
    "no_ok_images": "There are no OK images to train on.",
    "need_both_classes": "{model} needs OK and NG images in the training split.",
    "too_few_images": "The training split has {count} images; at least {minimum} are needed.",
    "weights_missing": "The backbone weights could not be loaded from {path}: {reason}",
    "unknown_algorithm": "Unknown image algorithm: {algorithm}.",
    "model_unreadable": "The model file could not be read: {reason}",
    "no_input_images": "No readable images were given for prediction.",
}


class ImageError(UserError):
    def __init__(self, code: str, **params):
        self.code = code
        self.params = params
        super().__init__(MESSAGES[code].format(**params))


def image_error(code: str, **params) -> ImageError:
    return ImageError(code, **params)
