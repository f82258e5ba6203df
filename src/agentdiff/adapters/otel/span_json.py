"""Span JSON (not OTLP) → `OtelSpan`s.

The shapes, each a JSON list of span dicts, `{"spans": [...]}`, Phoenix's REST `{"data":
[...]}`, or one span object on its own:

- Python `ReadableSpan.to_json()` and Phoenix spans: `context.span_id` / `context.trace_id` (or
  top-level `span_id`), `parent_id`, ISO `start_time` / `end_time`, a plain (possibly nested)
  `attributes` dict, `kind` / `span_kind` (Phoenix puts the OpenInference kind there: `LLM`,
  `TOOL`, ... — read as `openinference.span.kind` when that attribute is absent);
- JavaScript `ReadableSpan` dumps: `spanContext.spanId` / `traceId`, `parentSpanId` or
  `parentSpanContext.spanId`, hrtime `[seconds, nanoseconds]` times, the JS `SpanKind` numbers
  (INTERNAL = 0) and `status.code`.

Numeric `start_time` / `end_time` may be seconds, milliseconds, microseconds or nanoseconds; the
unit is decided once per document from the largest value (a trace never mixes units), never per
value.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agentdiff.adapters._kit.shapes import items, key_path, mapping, text, timestamp, wrong
from agentdiff.adapters.otel.otlp_json import KINDS, STATUS
from agentdiff.adapters.otel.span import OtelSpan, enum_name, flatten_attributes, normal_id
from agentdiff.errors import TraceFormatError
from agentdiff.timeparse import from_unix_nanos, from_unix_seconds

__all__ = [
    "OI_KIND_NAMES",
    "decode_span_json",
    "is_span_json",
    "raw_span_id",
    "raw_trace_id",
    "span_list",
]

_SAMPLE = 8
_JS_KINDS = {0: "INTERNAL", 1: "SERVER", 2: "CLIENT", 3: "PRODUCER", 4: "CONSUMER"}
OI_KIND_NAMES = frozenset(
    (
        "LLM",
        "EMBEDDING",
        "CHAIN",
        "RETRIEVER",
        "RERANKER",
        "TOOL",
        "AGENT",
        "GUARDRAIL",
        "EVALUATOR",
        "PROMPT",
        "UNKNOWN",
    )
)
"""OpenInference span kinds, as Phoenix writes them under `span_kind`."""
_UNIT_THRESHOLDS = ((1e17, 1e9), (1e14, 1e6), (1e11, 1e3))
"""(largest value above, divisor to seconds): ns, µs, ms; else seconds."""


def span_list(data: Any) -> list[Any] | None:
    """The span dicts of a span-JSON document, whatever its wrapper; `None` when it is none."""
    found = _span_list(data)
    return found[1] if found is not None else None


def _span_list(data: Any) -> tuple[str, list[Any]] | None:
    """(the JSON path of the list — `""`, `spans` or `data`; `None` for one span —, its spans)."""
    if isinstance(data, list):
        return "", data
    if not isinstance(data, dict):
        return None
    if raw_span_id(data) is not None and "name" in data:
        return "$", [data]
    for key in ("spans", "data"):
        inner = data.get(key)
        if isinstance(inner, list) and inner and _looks_like_spans(inner):
            return key, inner
    return None


def is_span_json(data: Any) -> bool:
    """Span dicts (any wrapper of `span_list`), each with a span id and a `name`."""
    spans = span_list(data)
    return bool(spans) and _looks_like_spans(spans or [])


def _looks_like_spans(spans: list[Any]) -> bool:
    return all(
        isinstance(s, dict) and "name" in s and raw_span_id(s) is not None for s in spans[:_SAMPLE]
    )


def raw_span_id(raw: dict[str, Any]) -> str | None:
    """The span id of an undecoded span dict, or `None`.

    `context.span_id` (Python, Phoenix), `spanContext.spanId` (JavaScript) or `span_id`.
    """
    context = raw.get("context")
    js_context = raw.get("spanContext")
    if isinstance(context, dict):
        value = context.get("span_id")
    elif isinstance(js_context, dict):
        value = js_context.get("spanId")
    else:
        value = raw.get("span_id")
    return str(value) if value else None


def raw_trace_id(raw: dict[str, Any]) -> str:
    """The trace id of an undecoded span dict, or `""`.

    Also `""` for an id that is no string: the decoder names it with its path.
    """
    for context, key in (("context", "trace_id"), ("spanContext", "traceId")):
        nested = raw.get(context)
        if isinstance(nested, dict) and nested.get(key):
            return _id_text(nested[key])
    return _id_text(raw.get("traceId") or raw.get("trace_id") or "")


def _id_text(value: Any) -> str:
    return normal_id(value) if isinstance(value, str) else ""


def decode_span_json(data: Any) -> list[OtelSpan]:
    """Every span of a span-JSON document, decoded."""
    at, spans = _span_list(data) or ("", [])
    divisor = _time_divisor(spans)
    return [
        _decode_span(s, "" if at == "$" else f"{at}[{i}]", divisor) for i, s in enumerate(spans)
    ]


def _time_divisor(spans: list[Any]) -> float:
    """One unit for every numeric time of the document, from the largest of them."""
    numbers = [
        abs(float(value))
        for raw in spans
        if isinstance(raw, dict)
        for value in (raw.get("start_time"), raw.get("end_time"))
        if isinstance(value, (int, float)) and not isinstance(value, bool)
    ]
    largest = max(numbers, default=0.0)
    return next((scale for above, scale in _UNIT_THRESHOLDS if largest > above), 1.0)


def _decode_span(raw: Any, where: str, divisor: float) -> OtelSpan:
    span_id = raw_span_id(raw) if isinstance(raw, dict) else None
    if span_id is None:
        msg = f"{where or '$'}: a span needs context.span_id, spanContext.spanId or span_id"
        raise TraceFormatError(msg)
    _check_ids(raw, where)
    js = isinstance(raw.get("spanContext"), dict)
    status = raw.get("status") if isinstance(raw.get("status"), dict) else {}
    code = status.get("status_code") or status.get("code") or raw.get("status_code") or "UNSET"
    attributes = flatten_attributes(mapping(raw.get("attributes"), key_path(where, "attributes")))
    kind = raw.get("kind") if raw.get("kind") is not None else raw.get("span_kind")
    if isinstance(kind, str) and kind.upper() in OI_KIND_NAMES:
        attributes.setdefault("openinference.span.kind", kind.upper())
        kind = None
    return OtelSpan(
        trace_id=raw_trace_id(raw),
        span_id=normal_id(span_id),
        parent_id=normal_id(_parent_id(raw)) or None,
        name=text(raw.get("name"), key_path(where, "name")) or "",
        kind=enum_name(kind, _JS_KINDS if js else KINDS, "SPAN_KIND_"),
        start=_time(raw, ("startTime", "start_time"), where, divisor),
        end=_time(raw, ("endTime", "end_time"), where, divisor),
        status_code=enum_name(code, STATUS, "STATUS_CODE_"),
        status_message=(
            status.get("description") or status.get("message") or raw.get("status_message")
        )
        or None,
        attributes=attributes,
        events=[
            _event(e, f"{key_path(where, 'events')}[{n}]", divisor)
            for n, e in enumerate(items(raw.get("events"), key_path(where, "events")))
            if isinstance(e, dict)
        ],
        resource=flatten_attributes(
            mapping(
                mapping(raw.get("resource"), key_path(where, "resource")).get("attributes"),
                key_path(where, "resource.attributes"),
            )
        ),
        path=where,
    )


_ID_FIELDS = (
    ("context", ("span_id", "trace_id")),
    ("spanContext", ("spanId", "traceId")),
    ("", ("span_id", "trace_id", "traceId", "parent_id", "parent_span_id", "parentSpanId")),
    ("parentSpanContext", ("spanId",)),
)


def _check_ids(raw: dict[str, Any], where: str) -> None:
    """Ids are text: a number or an object where an id belongs is an error naming its path."""
    for holder, keys in _ID_FIELDS:
        found = raw.get(holder) if holder else raw
        if isinstance(found, dict):
            at = key_path(where, holder) if holder else where
            for key in keys:
                text(found.get(key), key_path(at, key))


def _parent_id(raw: dict[str, Any]) -> Any:
    parent = raw.get("parentSpanContext")
    if isinstance(parent, dict) and parent.get("spanId"):
        return parent["spanId"]
    return raw.get("parent_id") or raw.get("parent_span_id") or raw.get("parentSpanId")


def _time(
    raw: dict[str, Any], keys: tuple[str, ...], where: str, divisor: float
) -> datetime | None:
    """ISO text, an hrtime `[seconds, nanoseconds]` pair, or a number in the document's unit."""
    key = next((k for k in keys if k in raw), keys[-1])
    value = raw.get(key)
    if isinstance(value, list) and len(value) == 2:  # noqa: PLR2004 - hrtime is a pair
        seconds, nanos = value
        if isinstance(seconds, int) and isinstance(nanos, int):
            return from_unix_nanos(seconds * 1_000_000_000 + nanos)
        raise wrong(key_path(where, key), "an hrtime [seconds, nanoseconds] pair", value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return from_unix_seconds(value / divisor)
    return timestamp(value, key_path(where, key))


def _event(raw: dict[str, Any], where: str, divisor: float) -> dict[str, Any]:
    return {
        "name": raw.get("name"),
        "timestamp": _time(raw, ("timestamp", "time"), where, divisor),
        "attributes": flatten_attributes(
            mapping(raw.get("attributes"), key_path(where, "attributes"))
        ),
    }
