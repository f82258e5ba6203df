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

from agentdiff.adapters._kit.shapes import items, mapping
from agentdiff.adapters.otel.otlp_json import KINDS, STATUS
from agentdiff.adapters.otel.span import OtelSpan, enum_name, flatten_attributes, normal_id
from agentdiff.errors import TraceFormatError
from agentdiff.timeparse import from_unix_nanos, from_unix_seconds, parse_timestamp

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
    if isinstance(data, list):
        return data
    if not isinstance(data, dict):
        return None
    if raw_span_id(data) is not None and "name" in data:
        return [data]
    for key in ("spans", "data"):
        inner = data.get(key)
        if isinstance(inner, list) and inner and _looks_like_spans(inner):
            return inner
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
    """The trace id of an undecoded span dict, or `""`."""
    for context, key in (("context", "trace_id"), ("spanContext", "traceId")):
        nested = raw.get(context)
        if isinstance(nested, dict) and nested.get(key):
            return normal_id(nested[key])
    return normal_id(raw.get("traceId") or raw.get("trace_id") or "")


def decode_span_json(data: Any) -> list[OtelSpan]:
    """Every span of a span-JSON document, decoded."""
    spans = span_list(data) or []
    divisor = _time_divisor(spans)
    return [_decode_span(s, i, divisor) for i, s in enumerate(spans)]


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


def _decode_span(raw: Any, index: int, divisor: float) -> OtelSpan:
    span_id = raw_span_id(raw) if isinstance(raw, dict) else None
    if span_id is None:
        msg = f"[{index}]: a span needs context.span_id, spanContext.spanId or span_id"
        raise TraceFormatError(msg)
    js = isinstance(raw.get("spanContext"), dict)
    status = raw.get("status") if isinstance(raw.get("status"), dict) else {}
    code = status.get("status_code") or status.get("code") or raw.get("status_code") or "UNSET"
    attributes = flatten_attributes(mapping(raw.get("attributes"), f"[{index}].attributes"))
    kind = raw.get("kind") if raw.get("kind") is not None else raw.get("span_kind")
    if isinstance(kind, str) and kind.upper() in OI_KIND_NAMES:
        attributes.setdefault("openinference.span.kind", kind.upper())
        kind = None
    return OtelSpan(
        trace_id=raw_trace_id(raw),
        span_id=normal_id(span_id),
        parent_id=normal_id(_parent_id(raw)) or None,
        name=str(raw.get("name") or ""),
        kind=enum_name(kind, _JS_KINDS if js else KINDS, "SPAN_KIND_"),
        start=_time(raw.get("startTime", raw.get("start_time")), divisor),
        end=_time(raw.get("endTime", raw.get("end_time")), divisor),
        status_code=enum_name(code, STATUS, "STATUS_CODE_"),
        status_message=(
            status.get("description") or status.get("message") or raw.get("status_message")
        )
        or None,
        attributes=attributes,
        events=[
            _event(e, divisor)
            for e in items(raw.get("events"), f"[{index}].events")
            if isinstance(e, dict)
        ],
        resource=flatten_attributes(
            mapping(
                mapping(raw.get("resource"), f"[{index}].resource").get("attributes"),
                f"[{index}].resource.attributes",
            )
        ),
    )


def _parent_id(raw: dict[str, Any]) -> Any:
    parent = raw.get("parentSpanContext")
    if isinstance(parent, dict) and parent.get("spanId"):
        return parent["spanId"]
    return raw.get("parent_id") or raw.get("parent_span_id") or raw.get("parentSpanId")


def _time(value: Any, divisor: float) -> datetime | None:
    """ISO text, an hrtime `[seconds, nanoseconds]` pair, or a number in the document's unit."""
    if isinstance(value, list) and len(value) == 2:  # noqa: PLR2004 - hrtime is a pair
        seconds, nanos = value
        if isinstance(seconds, int) and isinstance(nanos, int):
            return from_unix_nanos(seconds * 1_000_000_000 + nanos)
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return from_unix_seconds(value / divisor)
    return parse_timestamp(value)


def _event(raw: dict[str, Any], divisor: float) -> dict[str, Any]:
    return {
        "name": raw.get("name"),
        "timestamp": _time(raw.get("timestamp", raw.get("time")), divisor),
        "attributes": flatten_attributes(mapping(raw.get("attributes"), "event.attributes")),
    }
