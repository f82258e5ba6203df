"""SDK span JSON → `OtelSpan`s.

A JSON list of `ReadableSpan.to_json()` (or Phoenix) span dicts: `context.span_id`,
`parent_id`, ISO `start_time`/`end_time`, a plain (possibly nested) `attributes` dict.
"""

from __future__ import annotations

from typing import Any

from agentdiff.adapters.otel.otlp_json import KINDS, STATUS
from agentdiff.adapters.otel.span import OtelSpan, enum_name, flatten_attributes, normal_id
from agentdiff.errors import TraceFormatError
from agentdiff.timeparse import parse_timestamp

__all__ = ["decode_span_json", "is_span_json", "raw_span_id"]

_SAMPLE = 8


def is_span_json(data: Any) -> bool:
    """A list of SDK/Phoenix span dicts (`context.span_id` or `span_id`, plus `name`)."""
    if not (isinstance(data, list) and data):
        return False
    return all(
        isinstance(s, dict) and "name" in s and raw_span_id(s) is not None for s in data[:_SAMPLE]
    )


def raw_span_id(raw: dict[str, Any]) -> str | None:
    """The span id of an undecoded SDK span dict, or `None`."""
    context = raw.get("context")
    value = context.get("span_id") if isinstance(context, dict) else raw.get("span_id")
    return str(value) if value else None


def decode_span_json(data: list[Any]) -> list[OtelSpan]:
    """Every span of an SDK span-JSON list, decoded."""
    return [_decode_span(s, i) for i, s in enumerate(data)]


def _decode_span(raw: Any, index: int) -> OtelSpan:
    span_id = raw_span_id(raw) if isinstance(raw, dict) else None
    if span_id is None:
        msg = f"[{index}]: a span needs context.span_id (or span_id)"
        raise TraceFormatError(msg)
    context = raw.get("context") or {}
    status = raw.get("status") if isinstance(raw.get("status"), dict) else {}
    code = status.get("status_code") or raw.get("status_code") or "UNSET"
    return OtelSpan(
        trace_id=normal_id(context.get("trace_id") or raw.get("trace_id") or ""),
        span_id=normal_id(span_id),
        parent_id=normal_id(raw.get("parent_id") or raw.get("parent_span_id")) or None,
        name=str(raw.get("name") or ""),
        kind=enum_name(raw.get("kind") or raw.get("span_kind"), KINDS, "SPAN_KIND_"),
        start=parse_timestamp(raw.get("start_time")),
        end=parse_timestamp(raw.get("end_time")),
        status_code=enum_name(code, STATUS, "STATUS_CODE_"),
        status_message=status.get("description") or raw.get("status_message") or None,
        attributes=flatten_attributes(raw.get("attributes") or {}),
        events=[_event(e) for e in raw.get("events") or [] if isinstance(e, dict)],
        resource=flatten_attributes((raw.get("resource") or {}).get("attributes") or {}),
    )


def _event(raw: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": raw.get("name"),
        "timestamp": parse_timestamp(raw.get("timestamp")),
        "attributes": flatten_attributes(raw.get("attributes") or {}),
    }
