"""Which build of the engine a benchmark process imported (`make bench ENGINE=compiled|pure`)."""

from __future__ import annotations

import importlib
import importlib.machinery
import pkgutil

import agentdiff.diff


def engine_build() -> str:
    """`compiled (mypyc: 13 of 17 engine modules)` or `pure Python`, for a report's header."""
    names = [info.name for info in pkgutil.iter_modules(agentdiff.diff.__path__)]
    compiled = sum(
        str(importlib.import_module(f"agentdiff.diff.{name}").__file__).endswith(
            tuple(importlib.machinery.EXTENSION_SUFFIXES)
        )
        for name in names
    )
    if not compiled:
        return "pure Python"
    return f"compiled (mypyc: {compiled} of {len(names)} engine modules)"
