"""Golden baselines: the one code path that writes them, and when it may.

`save_baseline` is the only way AgentDiff writes a baseline: `agentdiff approve`,
`agentdiff compare --update-baseline` and the pytest plugin's `--agentdiff-update-baseline` all
call it. It refuses to replace a file that holds several traces (one would silently win), stamps
the trace with a `Provenance` record (who, when, commit, why, via what; the replaced baseline's
approval is kept under `previous`, or `{"unreadable": why}` when that file held no readable
trace), keeps the trace's `source_format` (the format its run was recorded in) and writes it with
`write_baseline`: atomically (a failure mid-write leaves the old baseline untouched), in the old
baseline's format family so the next comparison still reads it (a JSON Lines baseline,
`.jsonl`/`.ndjson`, gets one JSON line; a gzip one, by magic bytes or `.gz`, stays gzip); a
symlinked baseline updates the file the link names; a read-only one is refused.

`load_baseline` tells a file whose content is no trace (`UnreadableBaselineError`: what
`approve --force` replaces: invalid JSON or JSON Lines, a cut or corrupt gzip, a document no
adapter reads, a trace that fails validation) from one that is a trace or may be (never
replaced): a file past a limit (`LimitError`: input size, steps, nesting; raising the limit
reads it), one that cannot be read at all or is no regular file, one of several traces. A
baseline the forced adapter cannot read is read by detection too (a baseline AgentDiff wrote is
canonical JSON, whatever format the candidate is in); it is unreadable only when neither reads
it. `save_baseline` keeps the replaced file's approval by the same rule, with the same adapter
and limits.

`approval_blockers(report)` is the shared rule for approving from a comparison: the gate must
pass, and a new tool loop is never blessed silently, even when the gate allows loops (the
baseline would then hold the loop and later runs would only warn about it). `--force` overrides.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Sequence
from pathlib import Path

import orjson

from agentdiff.errors import (
    AgentDiffError,
    LimitError,
    MultipleTracesError,
    TraceFormatError,
    TraceLoadError,
    TraceValidationError,
    UnknownFormatError,
)
from agentdiff.files import check_output_path, write_atomically
from agentdiff.limits import Limits
from agentdiff.loader import load_trace
from agentdiff.models.report import DiffReport
from agentdiff.models.trace import AgentTrace
from agentdiff.provenance import PROVENANCE_KEY, Provenance, provenance_of
from agentdiff.reading import GZIP_MAGIC
from agentdiff.redact import DEFAULT_REDACTOR

__all__ = [
    "VIA_APPROVE",
    "VIA_COMPARE",
    "VIA_PYTEST",
    "TraceSource",
    "UnreadableBaselineError",
    "approval_blockers",
    "as_trace",
    "baseline_bytes",
    "canonical_json",
    "load_baseline",
    "replaced_provenance",
    "save_baseline",
    "write_baseline",
]

VIA_APPROVE = "agentdiff approve"
VIA_COMPARE = "agentdiff compare --update-baseline"
VIA_PYTEST = "pytest --agentdiff-update-baseline"

TraceSource = AgentTrace | str | Path
"""A trace, or the path of a trace file in any supported format."""

_JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")


class UnreadableBaselineError(TraceLoadError):
    """The baseline file is there, but its content is no trace AgentDiff reads.

    The message says why; `agentdiff approve --force` replaces the file. Never raised for a
    file past a limit, one that cannot be read, or one of several traces (see `load_baseline`).
    """


_CONTENT_ERRORS = (TraceFormatError, UnknownFormatError, TraceValidationError)
"""What a file whose content is no trace raises (a `LimitError` among them excepted)."""


def _no_trace(error: AgentDiffError) -> bool:
    """`error` says the content is no trace: not a limit crossed, not a file or adapter error."""
    return isinstance(error, _CONTENT_ERRORS) and not isinstance(error, LimitError)


def as_trace(source: TraceSource) -> AgentTrace:
    """`source` itself, or the trace loaded from that path."""
    return source if isinstance(source, AgentTrace) else load_trace(source)


def canonical_json(trace: AgentTrace, *, redact: bool = False) -> str:
    """The canonical AgentTrace JSON text (what `agentdiff convert` prints), redacted if asked."""
    return _dumped(trace, redact=redact, one_line=False).decode()


def _dumped(trace: AgentTrace, *, redact: bool, one_line: bool) -> bytes:
    data = trace.model_dump(mode="json")
    if redact:
        data = DEFAULT_REDACTOR.value(data)
    return orjson.dumps(data, option=0 if one_line else orjson.OPT_INDENT_2) + b"\n"


def trace_file_bytes(name: str, trace: AgentTrace, *, gzipped: bool, redact: bool = False) -> bytes:
    """`trace` as a file named `name` holds it, so the loader reads it back.

    A JSON Lines name (`.jsonl`/`.ndjson`, also before `.gz`) gets one JSON line, any other the
    indented JSON; `gzipped` compresses it.
    """
    lines = name.removesuffix(".gz").endswith(_JSON_LINES_SUFFIXES)
    data = _dumped(trace, redact=redact, one_line=lines)
    return gzip.compress(data, mtime=0) if gzipped else data


def _is_gzip(path: Path) -> bool:
    """`path` is a gzip file by its magic bytes, or by its `.gz` name (a broken one too)."""
    if path.suffix == ".gz":
        return True
    try:
        with path.open("rb") as file:
            return file.read(2) == GZIP_MAGIC
    except OSError:
        return False


def baseline_bytes(path: Path, trace: AgentTrace) -> bytes:
    """`trace` encoded in the format family of the baseline at `path` (see the module doc)."""
    return trace_file_bytes(path.name, trace, gzipped=_is_gzip(path))


def write_baseline(path: Path, trace: AgentTrace, inputs: Sequence[Path] = ()) -> None:
    """Write `trace` over `path` (or the file it links to) atomically; creates missing folders.

    `inputs` are files the caller still reads (e.g. the candidate): never written over.
    """
    target = Path(os.path.realpath(path))
    check_output_path(target, inputs)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, baseline_bytes(target, trace))


def replaced_provenance(
    path: Path, adapter_name: str | None = None, *, limits: Limits | None = None
) -> Provenance | None:
    """The approval of the baseline at `path`; refuses a file holding several traces.

    A missing or unreadable file has no approval (replacing it is what an update is for); a
    file past a limit, or that cannot be read at all, raises its error (see `load_baseline`).
    """
    previous = _replaced(path, adapter_name, limits)
    return previous if isinstance(previous, Provenance) else None


def _replaced(
    path: Path, adapter_name: str | None, limits: Limits | None
) -> Provenance | str | None:
    """The approval of the baseline at `path`, or why it holds no readable trace (the message).

    `None` for a missing file or one without an approval; a file of several traces is refused,
    and one past a limit or that cannot be read raises its error: never replaced.
    """
    if not path.exists():
        return None
    try:
        return provenance_of(load_baseline(path, adapter_name, limits=limits))
    except MultipleTracesError as exc:
        msg = f"refusing to overwrite: it holds several traces ({exc.message})"
        hint = "approve into a file of its own; a baseline is one trace"
        raise MultipleTracesError(msg, hint=hint, source=path) from None
    except UnreadableBaselineError as exc:
        return exc.message


def load_baseline(
    path: Path,
    adapter_name: str | None = None,
    *,
    trace_id: str | None = None,
    limits: Limits | None = None,
) -> AgentTrace:
    """The baseline trace at `path`; `UnreadableBaselineError` when its content is no trace.

    Only a content error (bad JSON or gzip, no adapter reads it, it fails validation) is
    `UnreadableBaselineError`. A file past a limit (`LimitError`), one that cannot be read at
    all (missing, not a regular file, no permission), one holding several traces, an unknown
    adapter raise their own errors: those files are never replaced. A forced `adapter_name`
    that cannot read the file is followed by detection (module doc); the error is then the
    forced adapter's. The other arguments are `load_trace`'s.
    """
    try:
        return load_trace(path, adapter_name, trace_id=trace_id, limits=limits)
    except AgentDiffError as exc:
        if not _no_trace(exc):
            raise
        error = exc
    if adapter_name not in (None, "auto"):
        try:
            return load_trace(path, None, trace_id=trace_id, limits=limits)
        except AgentDiffError as exc:
            if not _no_trace(exc):
                raise
    raise UnreadableBaselineError(error.message, hint=error.hint, source=path) from None


def approval_blockers(report: DiffReport) -> list[str]:
    """Why approving this comparison's candidate needs `--force` (empty: it does not)."""
    blockers = []
    if not report.passed:
        blockers.append("the gate failed: " + "; ".join(v.message for v in report.gate.violations))
    blockers += [
        f"new tool loop {' → '.join(loop.names)} ×{loop.repetitions}: approving would make it "
        "part of the baseline, and later runs would only warn about it"
        for loop in report.loops
        if loop.new
    ]
    return blockers


def save_baseline(
    path: Path,
    trace: AgentTrace,
    *,
    via: str,
    reason: str | None = None,
    candidate: str | Path | None = None,
    inputs: Sequence[Path] = (),
    adapter_name: str | None = None,
    limits: Limits | None = None,
) -> Provenance:
    """Write `trace` as the baseline at `path`, stamped with who/when/commit/why; the record.

    The canonical JSON keeps the trace's `source_format`, so the baseline still says which
    format its run was recorded in (`openai_agents`, ...) when it is read back.

    `inputs` are files the caller still reads (the candidate): never written over. The file
    replaced is read with `adapter_name` and `limits` for its approval (`load_baseline`): one
    past a limit, or that cannot be read, is refused with its error.
    """
    check_output_path(Path(os.path.realpath(path)), inputs)  # before reading what it replaces
    record = Provenance.now(
        path,
        via=via,
        reason=reason,
        candidate=str(candidate) if candidate is not None else None,
        previous=_replaced(path, adapter_name, limits),
    )
    metadata = dict(trace.metadata or {})  # its `source_format` names the format it was recorded in
    metadata[PROVENANCE_KEY] = record.model_dump(mode="json", exclude_none=True)
    write_baseline(path, trace.model_copy(update={"metadata": metadata}), inputs)
    return record
