"""`RunRef`: where one run lives. Small and picklable: workers load the trace; traces never travel.

A run's `source` is a path relative to its run set's root (or absolute, or an fsspec URL such as
`s3://bucket/run.json`); `trace_id` picks one trace from a file that holds several. A `RunRef`
without a `trace_id` whose file holds several traces stands for all of them: the worker that
loads it yields one run per trace, named `<run_id>#<trace id>`.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path

from agentdiff.naming import TRACE_SUFFIXES, trace_stem

__all__ = ["TRACE_SUFFIXES", "RunRef", "is_trace_file", "is_url", "join_source", "strip_suffix"]


@dataclass(frozen=True, slots=True)
class RunRef:
    """One run of one scenario: where it is and how to read it."""

    scenario: str
    run_id: str
    source: str
    """Path relative to the run set's root (POSIX separators), absolute, or a URL."""
    adapter: str | None = None
    """Force this adapter; `None` detects the format."""
    trace_id: str | None = None
    """The trace to pick from a file holding several; `None`: every trace in the file."""
    size: int | None = None
    """The file's size in bytes when known (to size batches); never part of any report."""


def strip_suffix(name: str) -> str | None:
    """`name` without its trace-file ending, in any case (`R1.JSON.gz` → `R1`); else `None`."""
    return trace_stem(name)


def is_trace_file(name: str) -> bool:
    """True for visible files named like traces (`.json`, `.jsonl`, `.ndjson`, each `.gz`)."""
    return not name.startswith(".") and strip_suffix(name) is not None


def is_url(source: str) -> bool:
    """True for fsspec-style URLs (`s3://…`, `memory://…`); `file://` counts as a URL too."""
    head, sep, _ = source.partition("://")
    return bool(sep) and head.isidentifier()


def join_source(root: str, source: str) -> str:
    """The full location of `source` under `root` (a source that is absolute or a URL stays)."""
    if is_url(source) or source.startswith("/") or not root:
        return source
    if is_url(root):
        return posixpath.join(root, source)
    return str(Path(root) / source)
