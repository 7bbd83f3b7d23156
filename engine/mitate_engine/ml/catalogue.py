"""Writes catalogue.json (algorithms, hyper-parameters, defaults, search ranges) for the server and the web app.

../.venv/bin/python -m mitate_engine.ml.catalogue      # a test fails while the file is stale
"""

from __future__ import annotations

import json
from pathlib import Path

from .algorithms import catalogue

PATH = Path(__file__).with_name("catalogue.json")


def render() -> str:
    return json.dumps(catalogue(), indent=1, sort_keys=False) + "\n"


if __name__ == "__main__":
    PATH.write_text(render(), encoding="utf-8")
    print(f"wrote {PATH}")
