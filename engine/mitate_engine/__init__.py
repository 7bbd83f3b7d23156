"""Mitate engine: numeric and ML compute. No HTTP, no users, no database; jobs arrive as JSON specs."""

from .legacy_modules import install as _install_legacy_modules

_install_legacy_modules()
