"""Old module names that stored models still carry.

A time-series model is stored as a pickle (model.joblib), which names the modules of its classes. The engine's
time-series package was `mitate_engine.tsad` until it took its area's name, `mitate_engine.timeseries`; this finder
answers an import of an old name with the module under its present name (the same module object, so the classes are
the same), and models trained before the rename still predict and serve.
"""

import importlib
import importlib.abc
import importlib.machinery
import sys

RENAMED = {"mitate_engine.tsad": "mitate_engine.timeseries"}


def present_name(name: str) -> str | None:
    """The module's name today, or None when `name` is not under a renamed package."""
    for old, new in RENAMED.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old) :]
    return None


class OldNames(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name first (before the path finder could load the file again under that name)."""

    def find_spec(self, fullname, path=None, target=None):
        if present_name(fullname) is None:
            return None
        present = importlib.import_module(present_name(fullname))
        return importlib.machinery.ModuleSpec(fullname, self, is_package=hasattr(present, "__path__"))

    def create_module(self, spec):
        return importlib.import_module(present_name(spec.name))

    def exec_module(self, module):
        """Nothing to run: the module ran under its present name."""


def install() -> None:
    if not any(isinstance(f, OldNames) for f in sys.meta_path):
        sys.meta_path.insert(0, OldNames())
