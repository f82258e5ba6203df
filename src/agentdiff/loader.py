"""Read trace files and hand the parsed document to the right adapter.

`load_trace(path)` reads `.json`, JSON Lines (`.jsonl`/`.ndjson`: one document per line, the
OTel file-exporter format) and gzip (by its magic bytes, whatever the name), UTF-8 with or without
a BOM. `parse_trace_data(data)` does the rest for data already in memory: pick the adapter
(`adapter_name`, or detection: built-ins in `registry.BUILTIN_ADAPTERS` order, then plugins),
pick the trace when the document holds several, build and validate the `AgentTrace`, and record
`metadata["source_format"]`.

OTLP JSON Lines (the OTel file exporter's format) are decoded as they are read, each line
dropped once its spans are decoded (`_stream_spans`), so a million-span file is never held as
parsed JSON; anything that stream cannot settle on its own goes the whole-document way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from agentdiff.adapters.base import BaseAdapter
from agentdiff.adapters.generic import GenericAdapter
from agentdiff.adapters.otel.lines import NotStreamable, SpanLines
from agentdiff.adapters.registry import (
    detect_adapter,
    detection_order,
    get_adapter,
    multi_file_adapters,
)
from agentdiff.canonical import decode_canonical
from agentdiff.errors import (
    AgentDiffError,
    InputLimitError,
    MultipleTracesError,
    NotARunError,
    TraceFormatError,
    TraceLimitError,
    TraceValidationError,
    UnknownFormatError,
)
from agentdiff.gcpause import no_gc_pauses
from agentdiff.limits import (
    DEPTH_HINT,
    ENVELOPE_DEPTH,
    MAX_DEPTH,
    Limits,
    deepest_path,
    exceeds_depth,
    nesting_error,
    short_path,
    too_deep,
)
from agentdiff.models.compact import compact_trace
from agentdiff.models.trace import AgentTrace, with_source_format
from agentdiff.reading import (
    content_lines,
    iter_lines,
    open_trace_file,
    read_ahead,
    read_file,
    read_head,
)
from agentdiff.report_kinds import report_kind

if TYPE_CHECKING:
    from agentdiff.adapters.openinference import OpenInferenceAdapter

__all__ = [
    "input_files",
    "is_json_lines",
    "load_trace",
    "load_traces",
    "no_runs_among",
    "own_report",
    "parse_trace_data",
    "part_of",
    "read_document",
    "reading_ahead",
    "runs_only",
    "without_reports",
]

_BOM = b"\xef\xbb\xbf"
STEPS_HINT = "raise the limit with --max-steps N or AGENTDIFF_MAX_STEPS"
_JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")
_CANONICAL_NAMES = (None, "auto", GenericAdapter.name, *GenericAdapter.aliases)
"""`--adapter` values that let a canonical JSON file take the fast path."""
_OTLP_LINE = re.compile(rb'(?:\xef\xbb\xbf)?\s*\{\s*"resourceSpans"\s*:')
"""How an OTLP export request (one line of the file exporter) starts: worth streaming."""
_REPORT_START = re.compile(rb'(?:\xef\xbb\xbf)?\s*\{\s*"report_version"\s*:')
"""How every JSON report AgentDiff writes starts (`report_version` first): worth a full look."""
_REPORT_HEAD = 64
"""Bytes of a file searched for runs read to see whether it starts as a report does."""
_VERSION_SHOWN = 12
"""A report's `report_version` is named in its error when at most this long (one or two digits
today)."""
_HEAD_LINES = 8
_HEAD_SPANS = 32
"""Detection sniffs no more lines and spans than these (`is_otlp`, `sample_attribute_keys`)."""
_DOCUMENT_DEPTH = MAX_DEPTH + ENVELOPE_DEPTH
_OTLP_WRAPPING = re.compile(r"\.(?:kvlistValue|arrayValue)\b")
"""In a JSON path: inside an OTLP attribute value, where each level of the value is wrapped."""


def load_trace(
    path: str | Path,
    adapter_name: str | None = None,
    *,
    trace_id: str | None = None,
    limits: Limits | None = None,
) -> AgentTrace:
    """Load one trace from a file; `adapter_name=None` or `"auto"` detects the format.

    `limits` bounds the bytes read, the steps and the nesting (default: `Limits.resolve()`,
    which reads `AGENTDIFF_MAX_INPUT_SIZE` and `AGENTDIFF_MAX_STEPS`).
    """
    limits = limits or Limits.resolve()
    source = path if isinstance(path, Path) else Path(path)
    try:
        with no_gc_pauses():
            loaded = _load(source, adapter_name, trace_id, limits)
            if isinstance(loaded, AgentTrace):
                return loaded
            return parse_trace_data(
                loaded, adapter_name, trace_id=trace_id, limits=limits, source=source
            )
    except AgentDiffError as exc:
        raise exc.with_source(path) from exc.__cause__


def load_traces(
    path: Path,
    adapter_name: str | None = None,
    *,
    trace_id: str | None = None,
    limits: Limits | None = None,
) -> list[tuple[str | None, AgentTrace]]:
    """Every run in a file as `(trace id, trace)`: how `compare-runs`, `routes` and `suite` read.

    Each trace is read as `load_trace` reads it (a Claude Code session with its sub-agent
    transcripts). One trace comes with `trace_id` (`None` when none was picked); a file holding
    several, none picked, yields each with its id. Errors name the file.
    """
    limits = limits or Limits.resolve()
    if trace_id is not None:
        return [(trace_id, load_trace(path, adapter_name, trace_id=trace_id, limits=limits))]
    try:
        with no_gc_pauses():
            return _traces_in(Path(path), adapter_name, limits)
    except AgentDiffError as exc:
        raise exc.with_source(path) from exc.__cause__


def _traces_in(
    path: Path, adapter_name: str | None, limits: Limits
) -> list[tuple[str | None, AgentTrace]]:
    """`load_traces` without a trace picked: the document is read once, and split once."""
    try:
        loaded = _load(path, adapter_name, None, limits)
    except MultipleTracesError:  # JSON Lines streamed: the whole document, to split it
        loaded = read_document(path, limits)
    if isinstance(loaded, AgentTrace):
        return [(None, loaded)]
    adapter = _choose_adapter(loaded, adapter_name)
    document = _with_companions(adapter, loaded, path, limits)  # as `parse_trace_data` reads
    if len(adapter.trace_ids(document)) <= 1:  # one trace: the document whole
        return [(None, _finished(_built(document, adapter), adapter, limits))]
    # each part is that trace, built as it is: not searched for ids again, since a part can
    # miss what its ids are read from (a LangSmith run's ancestors in another trace)
    return [
        (tid, _finished(_built(part, adapter), adapter, limits))
        for tid, part in adapter.split_traces(document)
    ]


def _load(
    source: Path, adapter_name: str | None, trace_id: str | None, limits: Limits
) -> AgentTrace | Any:
    """The trace when it is canonical JSON or OTLP JSON Lines, else the parsed document."""
    if is_json_lines(source):
        fast = adapter_name in _CANONICAL_NAMES
        try:
            loaded = _read_lines(source, limits, fast=fast, spans=(adapter_name, trace_id))
            return loaded if loaded is not None else _read_lines(source, limits)
        except TraceFormatError:
            report = own_report(source, limits) if adapter_name is None else None
            if report is not None:  # a report written under a JSON Lines name: say so
                raise report from None
            raise
    raw = read_file(source, limits)
    trace = _canonical(_without_bom(raw), adapter_name, limits, trace_id)
    return trace if trace is not None else _parse_checked(raw, source, limits)


def read_document(path: str | Path, limits: Limits | None = None) -> Any:
    """The parsed JSON document in `path` (a list of documents for JSON Lines)."""
    path = Path(path)
    limits = limits or Limits.resolve()
    if is_json_lines(path):
        return _read_lines(path, limits)
    return _parse_checked(read_file(path, limits), path, limits)


def reading_ahead(paths: Sequence[Path], limits: Limits) -> read_ahead:
    """`reading.read_ahead` of the `paths` `load_trace` reads whole (JSON Lines are streamed).

    `load_trace(path, limits=limits)` within the block takes what was read ahead.
    """
    return read_ahead([path for path in paths if not is_json_lines(path)], limits)


def is_json_lines(path: Path) -> bool:
    """A file named as JSON Lines (`.jsonl`, `.ndjson`, gzipped or not): read line by line."""
    return path.name.removesuffix(".gz").endswith(_JSON_LINES_SUFFIXES)


def _read_lines(
    path: Path,
    limits: Limits,
    *,
    fast: bool = False,
    spans: tuple[str | None, str | None] | None = None,
) -> AgentTrace | list[Any] | None:
    """The parsed lines; with `fast`, a file of one canonical trace line is decoded directly.

    With `spans` (the adapter name and trace id asked for), OTLP lines are decoded as a stream
    into the trace; `None` when that stream gave up (read the file again, whole).
    """
    with open_trace_file(path, limits) as stream:
        lines = iter_lines(stream, path, limits)
        head = list(islice(lines, 2))
        if fast and len(head) == 1:
            number, line = head[0]
            line = line.removeprefix(_BOM) if number == 1 else line
            trace = _canonical(line, None, limits, spans[1] if spans else None)
            if trace is not None:
                return trace
        if spans is not None and head and _OTLP_LINE.match(head[0][1]):
            return _stream_spans(chain(head, lines), path, limits, *spans)
        document = _parse_lines(chain(head, lines), path, limits)
    _check_document_depth(document, path)
    return document


def _records(path: Path, limits: Limits) -> list[Any]:
    """The records of a companion JSON Lines file (none when it is empty), within `limits`."""
    with open_trace_file(path, limits) as stream:
        records = list(_parsed_lines(iter_lines(stream, path, limits), path, limits))
    _check_document_depth(records, path)
    return records


def _parse_checked(raw: bytes, path: Path, limits: Limits) -> Any:
    document = _parse_whole(raw, path, limits)
    _check_document_depth(document, path)
    return document


def _canonical(
    raw: bytes | memoryview, adapter_name: str | None, limits: Limits, trace_id: str | None
) -> AgentTrace | None:
    """The trace when `raw` is plain canonical JSON (the fast path; see `agentdiff.canonical`).

    A `trace_id` asked for must be its id (a document of one trace is never silently another).
    """
    if adapter_name not in _CANONICAL_NAMES:
        return None
    trace = decode_canonical(raw, GenericAdapter.name)
    if trace is not None:
        _check_step_count(trace, limits)
        if trace_id is not None:
            _check_picked(trace, trace_id)
    return trace


def _without_bom(raw: bytes) -> bytes | memoryview:
    return memoryview(raw)[len(_BOM) :] if raw.startswith(_BOM) else raw


def _parse_whole(raw: bytes, path: Path, limits: Limits) -> Any:
    body = _without_bom(raw)
    if _blank(body):
        raise TraceFormatError("file is empty; expected a JSON trace document", source=path)
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        _raise_if_not_utf8(body, path)
        if _looks_like_json_lines(body):
            return _parse_lines(content_lines([bytes(body)]), path, limits)
        msg = f"invalid JSON: {exc}"
        raise TraceFormatError(
            msg, hint="is the file complete? check where it was cut", source=path
        ) from None


def _blank(body: bytes | memoryview) -> bool:
    """True for an empty or all-whitespace body (only copies it when it starts blank)."""
    return not bytes(body[:4096]).strip() and not bytes(body).strip()


def _raise_if_not_utf8(raw: bytes | memoryview, path: Path, line: int | None = None) -> None:
    try:
        str(raw, "utf-8")
    except UnicodeDecodeError as exc:
        where = f"line {line}, " if line is not None else ""
        msg = (
            f"not UTF-8 text (bad byte at {where}offset {exc.start}); "
            "trace files must be UTF-8 JSON"
        )
        raise TraceFormatError(msg, source=path) from None


def _looks_like_json_lines(raw: bytes | memoryview) -> bool:
    """More than one line with content, each starting an object or array (blank lines skipped)."""
    count = 0
    for _, line in content_lines([bytes(raw)]):
        if line.lstrip()[:1] not in (b"{", b"["):
            return False
        count += 1
    return count > 1


def _parse_lines(lines: Iterable[tuple[int, bytes]], path: Path, limits: Limits) -> list[Any]:
    documents = list(_parsed_lines(lines, path, limits))
    if not documents:
        raise TraceFormatError("file is empty; expected a JSON trace document", source=path)
    return documents


def _parsed_lines(lines: Iterable[tuple[int, bytes]], path: Path, limits: Limits) -> Iterator[Any]:
    """The document of each line (`content_lines`: none blank), in order, within the step limit."""
    for count, (number, line) in enumerate(lines):
        if count >= limits.max_steps:
            msg = f"has more than {limits.max_steps:,} JSON lines, past the step limit"
            raise InputLimitError(msg, hint=STEPS_HINT, source=path)
        yield _parse_line(number, line, path)


def _parse_line(number: int, line: bytes, path: Path) -> Any:
    try:
        return orjson.loads(line.removeprefix(_BOM) if number == 1 else line)
    except orjson.JSONDecodeError as exc:
        _raise_if_not_utf8(line, path, number)
        msg = f"invalid JSON on line {number}: {exc}"
        raise TraceFormatError(msg, source=path) from None


def _check_document_depth(document: Any, path: Path) -> None:
    if exceeds_depth([document], _DOCUMENT_DEPTH):
        deepest = deepest_path(document, _DOCUMENT_DEPTH, "$") or "$"
        msg = f"nests deeper than {_DOCUMENT_DEPTH} levels at {short_path(deepest)}"
        raise InputLimitError(msg, hint=_depth_hint(deepest), source=path)


def _depth_hint(deepest: str) -> str:
    """What may nest how deep, for the value at the `deepest` path.

    An OTLP attribute value is wrapped at each level (`arrayValue.values[i]`: 3 levels of JSON,
    `kvlistValue.values[i].value`: 4), so the room left under the document's limit is told in
    its own levels.
    """
    wrapped = _OTLP_WRAPPING.search(deepest)
    if wrapped is None:
        return DEPTH_HINT
    envelope = deepest[: wrapped.start()]
    start = envelope.count(".") + envelope.count("[") + 1
    room = _DOCUMENT_DEPTH - start
    return (
        f"the document may nest {_DOCUMENT_DEPTH} levels; this OTLP attribute value starts at "
        f"level {start} and each of its levels takes 3 more (arrayValue) or 4 (kvlistValue), "
        f"so it may nest {room // 3} lists or {room // 4} maps; flatten or trim the deep value"
    )


def _stream_spans(
    lines: Iterable[tuple[int, bytes]],
    path: Path,
    limits: Limits,
    adapter_name: str | None,
    trace_id: str | None,
) -> AgentTrace | None:
    """OTLP JSON Lines decoded line by line into the trace; `None` to take the whole route.

    The whole route runs instead (and names the problem with its JSON path, or builds the
    trace) when a line is no OTLP object or nests too deep, when the builder refuses the spans,
    when another adapter claims the file, and for a span the decoder refuses in a file where a
    trace is picked (the path it names is then in the picked document). Errors of the lines
    themselves (syntax, encoding, size, count), several traces without `trace_id`, and otherwise
    a span the decoder refuses are raised here, as that route raises them: after a bad span the
    rest is only skimmed for what that route checks first, so a huge file with one bad span is
    never read whole.
    """
    decoded = _decoded_lines(
        _parsed_lines(lines, path, limits), adapter_name, settle=trace_id is None
    )
    if decoded is None:
        return None
    chosen = _chosen_trace(decoded.trace_ids(), trace_id)
    if chosen is not None:
        decoded.select(chosen)
    spans, decoded.spans = decoded.spans, []
    adapter = _spans_adapter_class()
    try:
        trace = adapter.from_spans(spans)
    except (AgentDiffError, ValidationError):
        return None
    del spans  # the spans go before the trace is compacted
    return _finished(trace, adapter, limits)


def _spans_adapter_class() -> type[OpenInferenceAdapter]:
    from agentdiff.adapters.openinference import OpenInferenceAdapter  # noqa: PLC0415 - span files only

    return OpenInferenceAdapter


def _decoded_lines(
    documents: Iterator[Any], adapter_name: str | None, *, settle: bool
) -> SpanLines | None:
    """Every line's spans, or `None` when the stream cannot settle the file on its own.

    With `settle`, a span the decoder refuses is raised as the whole route would raise it.
    """
    decoded = SpanLines()
    head = _Head(adapter_name)
    for doc in documents:
        if exceeds_depth([[doc]], _DOCUMENT_DEPTH):
            return None
        before = len(decoded.spans)
        try:
            decoded.add(doc)
        except NotStreamable:
            return None
        except TraceFormatError as exc:
            if settle:
                _raise_as_whole_route(exc, chain([doc], documents), decoded, head)
            return None
        if not head.see(doc, len(decoded.spans) - before):
            return None
    return decoded if head.finish() else None


def _raise_as_whole_route(
    error: TraceFormatError, documents: Iterable[Any], decoded: SpanLines, head: _Head
) -> None:
    """Raise what the whole route raises for a file with this bad span; return if only it can tell.

    The rest is skimmed, not decoded, for what that route checks before decoding: errors of the
    lines, their nesting, the adapter, several traces. Then the first bad span is `error`.
    """
    for doc in documents:
        if exceeds_depth([[doc]], _DOCUMENT_DEPTH):
            return
        try:
            spans = decoded.skim(doc)
        except (NotStreamable, TraceFormatError):
            return
        if not head.see(doc, spans):
            return
    if head.finish():
        _chosen_trace(decoded.trace_ids(), None)  # several traces: that error comes first
        raise error


class _Head:
    """The first lines, kept until detection has seen as many lines and spans as it sniffs."""

    def __init__(self, adapter_name: str | None) -> None:
        self.adapter_name = adapter_name
        self.docs: list[Any] = []
        self.spans = 0
        self.done = False
        self.claimed = False

    def see(self, doc: Any, spans: int) -> bool:
        """False once the lines seen go to another adapter than `openinference`."""
        if self.done:
            return True
        self.docs.append(doc)
        self.spans += spans
        return len(self.docs) < _HEAD_LINES or self.spans < _HEAD_SPANS or self.finish()

    def finish(self) -> bool:
        """Whether the lines seen (the whole file, if short) go to `openinference`."""
        if not self.done:
            self.done = True
            docs, self.docs = self.docs, []
            try:
                self.claimed = _choose_adapter(docs, self.adapter_name) is _spans_adapter_class()
            except AgentDiffError:
                self.claimed = False
        return self.claimed


def input_files(paths: Sequence[Path]) -> list[Path]:
    """`paths` and the files an adapter reads beside them (`companion_files`).

    What `-o` must never write over: a Claude Code session's sub-agent transcripts are read with
    it (`<session>/subagents/agent-*.jsonl`).
    """
    return [*paths, *companion_files(paths)]


def runs_only(paths: Sequence[Path]) -> list[Path]:
    """`paths` less those read as part of another file's run, in order: what every search keeps.

    A file read with another of `paths` (`companion_files`), or with a file on disk whether it
    is searched or not (`part_of`): a Claude Code sub-agent transcript
    (`<s>/subagents/agent-*.jsonl`, beside its session `<s>.jsonl`) is part of that session's
    run, never a run (or a scenario) of its own, even in a search started inside `<s>`.
    """
    parts = {_real(path) for path in companion_files(paths)}
    return [path for path in paths if _real(path) not in parts and part_of(path) is None]


def _real(path: Path) -> Path:
    """`path` resolved; as it is when it cannot be (a symlink loop: loading it names it)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def without_reports(paths: Sequence[Path], skipped: list[NotARunError] | None = None) -> list[Path]:
    """`paths` less AgentDiff's own reports (`own_report`), in order: a search's runs.

    A report written into a folder of runs (`compare-runs a b -f json -o a/report.json`) is no
    run; each one left out is added to `skipped`, for a note.
    """
    kept = []
    limits = Limits.resolve()
    for path in paths:
        report = own_report(path, limits)
        if report is None:
            kept.append(path)
        elif skipped is not None:
            skipped.append(report)
    return kept


def own_report(path: Path, limits: Limits | None = None) -> NotARunError | None:
    """Why `path` is no run when it holds one of AgentDiff's own JSON reports, else None.

    Only a file that starts as AgentDiff writes its reports (`report_version` first; gzip
    inflated) is read whole, as one JSON document whatever its name (a report written as
    `r.jsonl` too), and it is a report when no adapter claims it (`NotARunError`). Any other
    file, and one that cannot be read (a FIFO, a device: refused unopened, never waited on), is
    left for loading to judge.
    """
    limits = limits or Limits.resolve()
    try:
        if _REPORT_START.match(read_head(path, limits, _REPORT_HEAD)) is None:
            return None
        _choose_adapter(_parse_checked(read_file(path, limits), path, limits), None)
    except NotARunError as exc:
        exc.with_source(path)
        return exc
    except (AgentDiffError, OSError):
        return None
    return None


def part_of(path: Path) -> Path | None:
    """The file on disk `path` is read as part of (an adapter's `part_of`), else None."""
    for adapter in multi_file_adapters():
        try:
            found = adapter.part_of(path)
        except Exception:  # noqa: BLE001, S112 - a plugin's
            continue
        if found is not None:
            return found
    return None


def no_runs_among(found: Sequence[Path]) -> str:
    """Why trace files found hold no run (`runs_only` kept none): whose parts they are.

    `no runs: only sub-agent transcripts of the session a.jsonl (read with it, never runs of
    their own)`.
    """
    sessions = sorted({str(_shown_path(s)) for p in found if (s := part_of(p)) is not None})
    if not sessions:
        return "no runs: every trace file found is read as part of another"
    whose = (
        f"the session {sessions[0]}"
        if len(sessions) == 1
        else "the sessions " + ", ".join(sessions)
    )
    return f"no runs: only sub-agent transcripts of {whose} (read with it, never runs of their own)"


def _shown_path(path: Path) -> Path:
    """`path` relative to the working folder when it lies within it."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def companion_files(paths: Sequence[Path]) -> list[Path]:
    """The files adapters read beside `paths` (`BaseAdapter.companions`), as `paths` spell them.

    Asked before the inputs are read, of a JSON Lines document (`[]`); a plugin's `companions`
    that needs the data itself is passed over.
    """
    adapters = multi_file_adapters()
    out: list[Path] = []
    for path in paths:
        for adapter in adapters:
            try:
                out += adapter.companions(path, [])
            except Exception:  # noqa: BLE001, S112, PERF203 - a plugin's, given no data
                continue
    return out


def parse_trace_data(
    data: Any,
    adapter_name: str | None = None,
    *,
    trace_id: str | None = None,
    limits: Limits | None = None,
    source: Path | None = None,
) -> AgentTrace:
    """Build an `AgentTrace` from a parsed document (a dict or a list), within `limits`.

    `source` is the file it came from, so an adapter can add the files beside it that hold the
    rest of the run (`BaseAdapter.with_companions`).
    """
    limits = limits or Limits.resolve()
    adapter = _choose_adapter(data, adapter_name)
    if source is not None:
        data = _with_companions(adapter, data, source, limits)
    ids = adapter.trace_ids(data)
    chosen = _chosen_trace(ids, trace_id)
    if chosen is not None:
        data = adapter.select_trace(data, chosen)
    trace = _built(data, adapter)
    if trace_id is not None and not ids:
        _check_picked(trace, trace_id)
    return _finished(trace, adapter, limits)


def _with_companions(adapter: type[BaseAdapter], data: Any, source: Path, limits: Limits) -> Any:
    """`data` with the records of the files `adapter` reads beside `source` (its companions)."""
    files = adapter.companions(source, data)
    if not files:
        return data
    return adapter.with_companions(data, [r for f in files for r in _records(f, limits)])


def _built(data: Any, adapter: type[BaseAdapter]) -> AgentTrace:
    """The trace `adapter` builds of `data` (its validation errors described)."""
    try:
        return adapter.from_dict(data)
    except ValidationError as exc:
        raise TraceValidationError(_describe_validation(exc, adapter)) from None


def _check_picked(trace: AgentTrace, trace_id: str) -> None:
    """A document of one trace given `--trace-id`: that must be its id (never silently another)."""
    if _known_id(trace_id, [trace.trace_id]) != trace.trace_id:
        msg = f"no trace {trace_id!r} in this document; it holds: {trace.trace_id}"
        raise MultipleTracesError(msg)


def _finished(trace: AgentTrace, adapter: type[BaseAdapter], limits: Limits) -> AgentTrace:
    """The trace an adapter built, within the limits, marked with its format, compacted."""
    _check_step_count(trace, limits)
    _check_depth(trace)
    _mark_source(trace, adapter)
    return compact_trace(trace)


def _mark_source(trace: AgentTrace, adapter: type[BaseAdapter]) -> None:
    trace.metadata = with_source_format(trace.metadata, adapter.name)


def _check_step_count(trace: AgentTrace, limits: Limits) -> None:
    if len(trace.steps) > limits.max_steps:
        msg = f"has {len(trace.steps):,} steps, past the limit of {limits.max_steps:,}"
        raise TraceLimitError(msg, hint=STEPS_HINT)


def _check_depth(trace: AgentTrace) -> None:
    path = too_deep(trace)
    if path is not None:
        raise nesting_error(path)


def _choose_adapter(data: Any, adapter_name: str | None) -> type[BaseAdapter]:
    if adapter_name not in (None, "auto"):
        return get_adapter(adapter_name)
    if not isinstance(data, (dict, list)):
        msg = f"expected a JSON object or array, got {type(data).__name__}"
        raise TraceFormatError(msg)
    adapter = detect_adapter(data)
    if adapter is None:
        _raise_if_report(data)
        tried = ", ".join(detection_order())
        msg = f"no adapter recognises this document (tried: {tried})"
        raise UnknownFormatError(msg, hint="force one with --adapter NAME (adapter_name=...)")
    return adapter


def _raise_if_report(data: Any) -> None:
    """A document no adapter claims that is one of AgentDiff's own reports: `NotARunError`."""
    kind = report_kind(data)
    if kind is not None:
        version = data["report_version"]
        shown = isinstance(version, str) and 0 < len(version) <= _VERSION_SHOWN
        msg = f"an AgentDiff {kind}" + (f" (report_version {version})" if shown else "")
        raise NotARunError(f"{msg}, not a run", hint="compare the runs it was made from")


def _chosen_trace(ids: list[str], trace_id: str | None) -> str | None:
    """The trace to keep of `ids` (as the document spells it); `None` keeps the document whole."""
    if trace_id is not None:
        trace_id = _known_id(trace_id, ids)
        if ids and trace_id not in ids:
            msg = f"no trace {trace_id!r} in this document; it holds: {', '.join(ids)}"
            raise MultipleTracesError(msg)
        return trace_id if ids else None
    if len(ids) > 1:
        msg = f"the document holds {len(ids)} traces: {', '.join(ids)}"
        raise MultipleTracesError(msg, hint="pick one with --trace-id ID (trace_id=...)")
    return None


def _known_id(trace_id: str, ids: list[str]) -> str:
    """`trace_id` as the document spells it: hex ids match in any case, with or without 0x."""
    if trace_id in ids:
        return trace_id
    loose = trace_id.lower().removeprefix("0x")
    return next((i for i in ids if i.lower().removeprefix("0x") == loose), trace_id)


def _describe_validation(exc: ValidationError, adapter: type[BaseAdapter]) -> str:
    errors = exc.errors()
    first = errors[0]
    where = _json_path(first["loc"])
    more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
    prefix = (
        "" if adapter.name == "generic" else f"{adapter.name} adapter produced an invalid trace: "
    )
    location = f"{where}: " if where else ""
    return f"{prefix}{location}{_message(first)}{more}"


def _message(error: ErrorDetails) -> str:
    """A validation error's message, without pydantic's "Value error, " before our own words."""
    cause = error.get("ctx", {}).get("error")
    return str(cause) if error["type"] == "value_error" and cause is not None else error["msg"]


def _json_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path
