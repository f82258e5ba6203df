"""Which build of the engine a benchmark process imported (`make bench ENGINE=compiled|pure`)."""

from __future__ import annotations

from agentdiff.diff.build import engine_modules


def engine_build() -> str:
    """`compiled (mypyc: 14 of 18 engine modules)` or `pure Python`, for a report's header."""
    modules = engine_modules()
    compiled = sum(modules.values())
    if not compiled:
        return "pure Python"
    return f"compiled (mypyc: {compiled} of {len(modules)} engine modules)"
