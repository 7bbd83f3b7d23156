"""Writes catalogue.json (each pre-processing kind's methods, the parameters they read and require) for the server,
whose request schema (server/src/features/preprocessing/schemas.ts READS) a server test holds equal to it.

../.venv/bin/python -m mitate_engine.preprocessing.catalogue      # a test fails while the file is stale
"""

from __future__ import annotations

import json
from pathlib import Path

from .steps import catalogue

PATH = Path(__file__).with_name("catalogue.json")


def render() -> str:
    return json.dumps(catalogue(), indent=1) + "\n"


if __name__ == "__main__":
    PATH.write_text(render(), encoding="utf-8")
    print(f"wrote {PATH}")
