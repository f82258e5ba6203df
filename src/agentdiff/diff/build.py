"""Which build of the engine is running: the pure sources or modules compiled by mypyc.

The compiled wheel (`hatch_build.py`) ships C extensions beside the `.py` files of the engine's
hot modules, and Python imports an extension first; this says which modules it got.
"""

from __future__ import annotations

import importlib
import pkgutil
from importlib.machinery import EXTENSION_SUFFIXES

import agentdiff.diff

__all__ = ["engine_modules"]


def engine_modules() -> dict[str, bool]:
    """Each `agentdiff.diff` module's name → whether it was imported as a compiled extension."""
    suffixes = tuple(EXTENSION_SUFFIXES)
    return {
        info.name: str(importlib.import_module(f"agentdiff.diff.{info.name}").__file__).endswith(
            suffixes
        )
        for info in pkgutil.iter_modules(agentdiff.diff.__path__)
    }
