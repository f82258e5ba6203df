"""Golden baselines: a trace written as canonical JSON, atomically (temp file + rename).

Used by `agentdiff compare --update-baseline` and by the pytest plugin's
`--agentdiff-update-baseline`; a failure mid-write leaves the old baseline untouched.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from agentdiff.files import write_atomically
from agentdiff.loader import load_trace
from agentdiff.models.trace import AgentTrace

__all__ = ["TraceSource", "as_trace", "canonical_json", "write_baseline"]

TraceSource = AgentTrace | str | Path
"""A trace, or the path of a trace file in any supported format."""


def as_trace(source: TraceSource) -> AgentTrace:
    """`source` itself, or the trace loaded from that path."""
    return source if isinstance(source, AgentTrace) else load_trace(source)


def canonical_json(trace: AgentTrace) -> str:
    """The canonical AgentTrace JSON text (what `agentdiff convert` prints)."""
    return orjson.dumps(trace.model_dump(mode="json"), option=orjson.OPT_INDENT_2).decode() + "\n"


def write_baseline(path: Path, trace: AgentTrace) -> None:
    """Write `trace` over `path` atomically; creates the parent folder when missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, canonical_json(trace))
