"""Read trace files and hand the parsed document to the right adapter.

`load_trace(path)` reads `.json`, JSON Lines (`.jsonl`/`.ndjson`: one document per line, the
OTel file-exporter format) and gzip (by its magic bytes, whatever the name), UTF-8 with or without
a BOM. `parse_trace_data(data)` does the rest for data already in memory: pick the adapter
(`adapter_name`, or detection: built-ins in `registry.BUILTIN_ADAPTERS` order, then plugins),
pick the trace when the document holds several, build and validate the `AgentTrace`, and record
`metadata["source_format"]`.
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from agentdiff.adapters.base import BaseAdapter
from agentdiff.adapters.registry import detect_adapter, detection_order, get_adapter
from agentdiff.errors import (
    AgentDiffError,
    MultipleTracesError,
    TraceFileError,
    TraceFormatError,
    TraceValidationError,
    UnknownFormatError,
)
from agentdiff.gcpause import no_gc_pauses
from agentdiff.models.trace import AgentTrace

__all__ = ["load_trace", "parse_trace_data", "read_document"]

_GZIP_MAGIC = b"\x1f\x8b"
_JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")
_ADAPTER_BUGS = (KeyError, TypeError, AttributeError, IndexError, ValueError, RecursionError)


def load_trace(
    path: str | Path, adapter_name: str | None = None, *, trace_id: str | None = None
) -> AgentTrace:
    """Load one trace from a file; `adapter_name=None` or `"auto"` detects the format."""
    try:
        with no_gc_pauses():
            return parse_trace_data(read_document(path), adapter_name, trace_id=trace_id)
    except AgentDiffError as exc:
        raise exc.with_source(path) from exc.__cause__


def read_document(path: str | Path) -> Any:
    """The parsed JSON document in `path` (a list of documents for JSON Lines)."""
    path = Path(path)
    raw = _read_bytes(path)
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            msg = f"not a valid gzip file: {exc}"
            raise TraceFormatError(msg, source=path) from None
    text = _decode(raw, path)
    if not text.strip():
        raise TraceFormatError("file is empty; expected a JSON trace document", source=path)
    stem = path.name.removesuffix(".gz")
    if stem.endswith(_JSON_LINES_SUFFIXES):
        return _parse_json_lines(text, path)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        if _looks_like_json_lines(text):
            return _parse_json_lines(text, path)
        msg = f"invalid JSON: {exc}"
        raise TraceFormatError(
            msg, hint="is the file complete? check where it was cut", source=path
        ) from None


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise TraceFileError("file not found", source=path) from None
    except IsADirectoryError:
        raise TraceFileError("is a directory, not a trace file", source=path) from None
    except OSError as exc:
        msg = f"cannot read file: {exc.strerror or exc}"
        raise TraceFileError(msg, source=path) from None


def _decode(raw: bytes, path: Path) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        msg = f"not UTF-8 text (bad byte at offset {exc.start}); trace files must be UTF-8 JSON"
        raise TraceFormatError(msg, source=path) from None


def _looks_like_json_lines(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.lstrip()[:1] in "{[" for line in lines)


def _parse_json_lines(text: str, path: Path) -> list[Any]:
    documents = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            documents.append(orjson.loads(line))
        except orjson.JSONDecodeError as exc:
            msg = f"invalid JSON on line {number}: {exc}"
            raise TraceFormatError(msg, source=path) from None
    return documents


def parse_trace_data(
    data: Any, adapter_name: str | None = None, *, trace_id: str | None = None
) -> AgentTrace:
    """Build an `AgentTrace` from a parsed document (a dict or a list)."""
    adapter = _choose_adapter(data, adapter_name)
    data = _select_trace(adapter, data, trace_id)
    try:
        trace = adapter.from_dict(data)
    except ValidationError as exc:
        raise TraceValidationError(_describe_validation(exc, adapter)) from None
    except AgentDiffError:
        raise
    except _ADAPTER_BUGS as exc:
        msg = f"not a valid {adapter.name} document: {type(exc).__name__}: {exc}"
        raise TraceFormatError(msg, hint=f"is this really a {adapter.name} export?") from exc
    meta = dict(trace.metadata or {})
    meta["source_format"] = adapter.name
    trace.metadata = meta
    return trace


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
