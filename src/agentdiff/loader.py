"""Read trace files and hand the parsed document to the right adapter.

`load_trace(path)` reads `.json`, JSON Lines (`.jsonl`/`.ndjson`: one document per line, the
OTel file-exporter format) and gzip (by its magic bytes, whatever the name), UTF-8 with or without
a BOM. `parse_trace_data(data)` does the rest for data already in memory: pick the adapter
(`adapter_name`, or detection: built-ins in `registry.BUILTIN_ADAPTERS` order, then plugins),
pick the trace when the document holds several, build and validate the `AgentTrace`, and record
`metadata["source_format"]`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain, islice
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from agentdiff.adapters.base import BaseAdapter
from agentdiff.adapters.generic import GenericAdapter
from agentdiff.adapters.registry import detect_adapter, detection_order, get_adapter
from agentdiff.canonical import decode_canonical
from agentdiff.errors import (
    AgentDiffError,
    MultipleTracesError,
    TraceFormatError,
    TraceValidationError,
    UnknownFormatError,
)
from agentdiff.gcpause import no_gc_pauses
from agentdiff.limits import ENVELOPE_DEPTH, MAX_DEPTH, Limits, deepest_path, exceeds_depth
from agentdiff.models.compact import compact_trace
from agentdiff.models.trace import AgentTrace
from agentdiff.reading import iter_lines, open_trace_file, read_capped

__all__ = ["load_trace", "parse_trace_data", "read_document"]

_BOM = b"\xef\xbb\xbf"
STEPS_HINT = "raise the limit with --max-steps N or AGENTDIFF_MAX_STEPS"
DEPTH_HINT = f"payloads may nest at most {MAX_DEPTH} levels; flatten or trim the deep value"
_JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")
_CANONICAL_NAMES = (None, "auto", GenericAdapter.name, *GenericAdapter.aliases)
"""`--adapter` values that let a canonical JSON file take the fast path."""


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
    source = Path(path)
    try:
        with no_gc_pauses():
            loaded = _load(source, adapter_name, limits)
            if isinstance(loaded, AgentTrace):
                return loaded
            return parse_trace_data(
                loaded, adapter_name, trace_id=trace_id, limits=limits, source=source
            )
    except AgentDiffError as exc:
        raise exc.with_source(path) from exc.__cause__


def _load(source: Path, adapter_name: str | None, limits: Limits) -> AgentTrace | Any:
    """The trace when it is canonical JSON (the fast path), else the parsed document."""
    if _is_json_lines(source):
        return _read_lines(source, limits, fast=adapter_name in _CANONICAL_NAMES)
    raw = _read_whole(source, limits)
    trace = _canonical(_without_bom(raw), adapter_name, limits)
    return trace if trace is not None else _parse_checked(raw, source, limits)


def read_document(path: str | Path, limits: Limits | None = None) -> Any:
    """The parsed JSON document in `path` (a list of documents for JSON Lines)."""
    path = Path(path)
    limits = limits or Limits.resolve()
    if _is_json_lines(path):
        return _read_lines(path, limits)
    return _parse_checked(_read_whole(path, limits), path, limits)


def _is_json_lines(path: Path) -> bool:
    return path.name.removesuffix(".gz").endswith(_JSON_LINES_SUFFIXES)


def _read_lines(path: Path, limits: Limits, *, fast: bool = False) -> AgentTrace | list[Any]:
    """The parsed lines; with `fast`, a file of one canonical trace line is decoded directly."""
    with open_trace_file(path, limits) as stream:
        lines = ((n, line) for n, line in iter_lines(stream, path, limits) if line.strip())
        head = list(islice(lines, 2))
        if fast and len(head) == 1:
            number, line = head[0]
            trace = _canonical(line.removeprefix(_BOM) if number == 1 else line, None, limits)
            if trace is not None:
                return trace
        document = _parse_lines(chain(head, lines), path, limits)
    _check_document_depth(document, path)
    return document


def _read_whole(path: Path, limits: Limits) -> bytes:
    with open_trace_file(path, limits) as stream:
        return read_capped(stream, path, limits)


def _parse_checked(raw: bytes, path: Path, limits: Limits) -> Any:
    document = _parse_whole(raw, path, limits)
    _check_document_depth(document, path)
    return document


def _canonical(
    raw: bytes | memoryview, adapter_name: str | None, limits: Limits
) -> AgentTrace | None:
    """The trace when `raw` is plain canonical JSON (the fast path; see `agentdiff.canonical`)."""
    if adapter_name not in _CANONICAL_NAMES:
        return None
    trace = decode_canonical(raw)
    if trace is None:
        return None
    _check_step_count(trace, limits)
    _mark_source(trace, GenericAdapter)
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
            lines = enumerate(bytes(body).splitlines(), start=1)
            return _parse_lines(lines, path, limits)
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
    lines = [line for line in bytes(raw).splitlines() if line.strip()]
    return len(lines) > 1 and all(line.lstrip()[:1] in (b"{", b"[") for line in lines)


def _parse_lines(lines: Iterable[tuple[int, bytes]], path: Path, limits: Limits) -> list[Any]:
    documents: list[Any] = []
    for number, line in lines:
        if not line.strip():
            continue
        if len(documents) >= limits.max_steps:
            msg = f"has more than {limits.max_steps:,} JSON lines, past the step limit"
            raise TraceFormatError(msg, hint=STEPS_HINT, source=path)
        try:
            documents.append(orjson.loads(line.removeprefix(_BOM) if number == 1 else line))
        except orjson.JSONDecodeError as exc:
            _raise_if_not_utf8(line, path, number)
            msg = f"invalid JSON on line {number}: {exc}"
            raise TraceFormatError(msg, source=path) from None
    if not documents:
        raise TraceFormatError("file is empty; expected a JSON trace document", source=path)
    return documents


def _check_document_depth(document: Any, path: Path) -> None:
    limit = MAX_DEPTH + ENVELOPE_DEPTH
    if exceeds_depth([document], limit):
        where = _short_path(deepest_path(document, limit, "$") or "$")
        msg = f"nests deeper than {limit} levels at {where}"
        raise TraceFormatError(msg, hint=DEPTH_HINT, source=path)


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
        data = adapter.with_companions(source, data)
    data = _select_trace(adapter, data, trace_id)
    try:
        trace = adapter.from_dict(data)
    except ValidationError as exc:
        raise TraceValidationError(_describe_validation(exc, adapter)) from None
    _check_step_count(trace, limits)
    _check_depth(trace)
    _mark_source(trace, adapter)
    return compact_trace(trace)


def _mark_source(trace: AgentTrace, adapter: type[BaseAdapter]) -> None:
    meta = dict(trace.metadata or {})
    meta["source_format"] = adapter.name
    trace.metadata = meta


def _check_step_count(trace: AgentTrace, limits: Limits) -> None:
    if len(trace.steps) > limits.max_steps:
        msg = f"has {len(trace.steps):,} steps, past the limit of {limits.max_steps:,}"
        raise TraceValidationError(msg, hint=STEPS_HINT)


def _check_depth(trace: AgentTrace) -> None:
    values: list[Any] = [trace.task_input, trace.final_output, trace.metadata]
    for step in trace.steps:
        values += (step.input_payload, step.output_payload, step.metadata)
    if not exceeds_depth(values, MAX_DEPTH):
        return
    for where, value in _payload_fields(trace):
        path = deepest_path(value, MAX_DEPTH, where)
        if path is not None:
            msg = f"{_short_path(path)} nests deeper than {MAX_DEPTH} levels"
            raise TraceValidationError(msg, hint=DEPTH_HINT)


def _payload_fields(trace: AgentTrace) -> Iterator[tuple[str, Any]]:
    yield from (
        ("task_input", trace.task_input),
        ("final_output", trace.final_output),
        ("metadata", trace.metadata),
    )
    for i, step in enumerate(trace.steps):
        yield f"steps[{i}].input_payload", step.input_payload
        yield f"steps[{i}].output_payload", step.output_payload
        yield f"steps[{i}].metadata", step.metadata


def _short_path(path: str, limit: int = 120) -> str:
    """A JSON path short enough for one line: its start and its end around an ellipsis."""
    if len(path) <= limit:
        return path
    return f"{path[: limit // 2]}…{path[-limit // 3 :]}"


def _choose_adapter(data: Any, adapter_name: str | None) -> type[BaseAdapter]:
    if adapter_name not in (None, "auto"):
        return get_adapter(adapter_name)
    if not isinstance(data, (dict, list)):
        msg = f"expected a JSON object or array, got {type(data).__name__}"
        raise TraceFormatError(msg)
    adapter = detect_adapter(data)
    if adapter is None:
        tried = ", ".join(detection_order())
        msg = f"no adapter recognises this document (tried: {tried})"
        raise UnknownFormatError(msg, hint="force one with --adapter NAME (adapter_name=...)")
    return adapter


def _select_trace(adapter: type[BaseAdapter], data: Any, trace_id: str | None) -> Any:
    ids = adapter.trace_ids(data)
    if trace_id is not None:
        trace_id = _known_id(trace_id, ids)
        if ids and trace_id not in ids:
            msg = f"no trace {trace_id!r} in this document; it holds: {', '.join(ids)}"
            raise MultipleTracesError(msg)
        return adapter.select_trace(data, trace_id) if ids else data
    if len(ids) > 1:
        msg = f"the document holds {len(ids)} traces: {', '.join(ids)}"
        raise MultipleTracesError(msg, hint="pick one with --trace-id ID (trace_id=...)")
    return data


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
    return f"{prefix}{location}{first['msg']}{more}"


def _json_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path
