"""Golden baselines: a trace written as canonical JSON, atomically (temp file + rename).

Used by `agentdiff compare --update-baseline` and by the pytest plugin's
`--agentdiff-update-baseline`; a failure mid-write leaves the old baseline untouched. The new
baseline keeps the old one's format family, so the next comparison still reads it: a JSON Lines
baseline (`.jsonl`, `.ndjson`) gets one JSON line, a gzip one (by magic bytes or `.gz`) stays
gzip. A symlinked baseline updates the file the link names; a read-only one is refused.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Sequence
from pathlib import Path

import orjson

from agentdiff.files import check_output_path, write_atomically
from agentdiff.loader import load_trace
from agentdiff.models.trace import AgentTrace
from agentdiff.reading import GZIP_MAGIC
from agentdiff.redact import Redactor

__all__ = ["TraceSource", "as_trace", "baseline_bytes", "canonical_json", "write_baseline"]

TraceSource = AgentTrace | str | Path
"""A trace, or the path of a trace file in any supported format."""

_JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")


def as_trace(source: TraceSource) -> AgentTrace:
    """`source` itself, or the trace loaded from that path."""
    return source if isinstance(source, AgentTrace) else load_trace(source)


def canonical_json(trace: AgentTrace, *, redact: bool = False) -> str:
    """The canonical AgentTrace JSON text (what `agentdiff convert` prints), redacted if asked."""
    data = trace.model_dump(mode="json")
    if redact:
        data = Redactor().value(data)
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


def _is_gzip(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(2) == GZIP_MAGIC
    except OSError:
        return path.suffix == ".gz"


def baseline_bytes(path: Path, trace: AgentTrace) -> bytes:
    """`trace` encoded in the format family of the baseline at `path` (see the module doc)."""
    if path.name.removesuffix(".gz").endswith(_JSON_LINES_SUFFIXES):
        data = orjson.dumps(trace.model_dump(mode="json")) + b"\n"
    else:
        data = canonical_json(trace).encode()
    return gzip.compress(data, mtime=0) if _is_gzip(path) else data


def write_baseline(path: Path, trace: AgentTrace, inputs: Sequence[Path] = ()) -> None:
    """Write `trace` over `path` (or the file it links to) atomically; creates missing folders.

    `inputs` are files the caller still reads (e.g. the candidate): never written over.
    """
    target = Path(os.path.realpath(path))
    check_output_path(target, inputs)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, baseline_bytes(target, trace))
