"""OpenTelemetry spans in the two JSON shapes people save, decoded to one `OtelSpan` record.

- **OTLP/JSON** (`{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}`, one document or a
  list of them from JSON Lines): hex ids, `*UnixNano` as strings or numbers, `AnyValue`
  attributes, integer enums.
- **SDK span JSON** (`ReadableSpan.to_json()`, Phoenix): a list of dicts with `context.span_id`,
  `parent_id`, ISO `start_time`/`end_time`, a plain `attributes` dict.

Attributes come out flat (`llm.input_messages.0.message.role`), whether the source flattened them
or nested them; adapters read one form. Used by the `openinference` and `langfuse` adapters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agentdiff.adapters.timestamps import from_unix_nanos, parse_timestamp
from agentdiff.errors import TraceFormatError

__all__ = [
    "OtelSpan",
    "decode_spans",
    "flatten_attributes",
    "indexed_list",
    "is_otlp",
    "is_span_json",
    "sample_attribute_keys",
]

_KINDS = {0: "UNSPECIFIED", 1: "INTERNAL", 2: "SERVER", 3: "CLIENT", 4: "PRODUCER", 5: "CONSUMER"}
_STATUS = {0: "UNSET", 1: "OK", 2: "ERROR"}
_SAMPLE = 8


@dataclass(slots=True)
class OtelSpan:
    """One span, whatever JSON shape it came in."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    kind: str = "INTERNAL"
    start: datetime | None = None
    end: datetime | None = None
    status_code: str = "UNSET"
    status_message: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    resource: dict[str, Any] = field(default_factory=dict)


def is_otlp(data: Any) -> bool:
    """An OTLP/JSON `TracesData` document, or a list of them (JSON Lines)."""
    if isinstance(data, dict):
        return isinstance(data.get("resourceSpans"), list)
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(d, dict) and "resourceSpans" in d for d in data[:_SAMPLE])
    )


def is_span_json(data: Any) -> bool:
    """A list of SDK/Phoenix span dicts (`context.span_id` or `span_id`, plus `name`)."""
    if not (isinstance(data, list) and data):
        return False
    return all(
        isinstance(s, dict) and "name" in s and _sdk_span_id(s) is not None for s in data[:_SAMPLE]
    )


def sample_attribute_keys(data: Any) -> set[str]:
    """Attribute keys of the first few spans, for cheap detection (never decodes everything)."""
    keys: set[str] = set()
    for raw in _raw_spans(data, limit=_SAMPLE * 4):
        attrs = raw.get("attributes")
        if isinstance(attrs, dict):
            keys.update(flatten_attributes(attrs))
        elif isinstance(attrs, list):
            keys.update(a.get("key", "") for a in attrs if isinstance(a, dict))
    return keys


def _raw_spans(data: Any, limit: int | None = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if is_otlp(data):
        for doc in data if isinstance(data, list) else [data]:
            for rs in doc.get("resourceSpans") or []:
                for ss in rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []:
                    out.extend(s for s in ss.get("spans") or [] if isinstance(s, dict))
                    if limit is not None and len(out) >= limit:
                        return out
    elif isinstance(data, list):
        out = [s for s in data[:limit] if isinstance(s, dict)]
    return out


def decode_spans(data: Any) -> list[OtelSpan]:
    """Every span in an OTLP/JSON document (or list of them) or an SDK span-JSON list."""
    if is_otlp(data):
        return _decode_otlp(data if isinstance(data, list) else [data])
    if isinstance(data, list):
        return [_decode_sdk_span(s, i) for i, s in enumerate(data)]
    msg = "expected OTLP/JSON (resourceSpans) or a list of span objects"
    raise TraceFormatError(msg)


def _decode_otlp(documents: list[dict[str, Any]]) -> list[OtelSpan]:
    spans = []
    for d, doc in enumerate(documents):
        for r, rs in enumerate(doc.get("resourceSpans") or []):
            resource = _any_attributes((rs.get("resource") or {}).get("attributes") or [])
            scopes = rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []
            for s, ss in enumerate(scopes):
                for i, raw in enumerate(ss.get("spans") or []):
                    where = f"[{d}].resourceSpans[{r}].scopeSpans[{s}].spans[{i}]"
                    spans.append(_decode_otlp_span(raw, resource, where))
    return spans


def _decode_otlp_span(raw: Any, resource: dict[str, Any], where: str) -> OtelSpan:
    if not isinstance(raw, dict) or not raw.get("spanId") or not raw.get("traceId"):
        msg = f"{where}: an OTLP span needs traceId and spanId"
        raise TraceFormatError(msg)
    status = raw.get("status") or {}
    return OtelSpan(
        trace_id=_hex_id(raw["traceId"]),
        span_id=_hex_id(raw["spanId"]),
        parent_id=_hex_id(raw.get("parentSpanId")) or None,
        name=str(raw.get("name") or ""),
        kind=_enum(raw.get("kind"), _KINDS, "SPAN_KIND_"),
        start=from_unix_nanos(raw.get("startTimeUnixNano")),
        end=from_unix_nanos(raw.get("endTimeUnixNano")),
        status_code=_enum(status.get("code"), _STATUS, "STATUS_CODE_"),
        status_message=status.get("message") or None,
        attributes=_any_attributes(raw.get("attributes") or []),
        events=[_otlp_event(e) for e in raw.get("events") or [] if isinstance(e, dict)],
        resource=resource,
    )


def _otlp_event(raw: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": raw.get("name"),
        "timestamp": from_unix_nanos(raw.get("timeUnixNano")),
        "attributes": _any_attributes(raw.get("attributes") or []),
    }


def _decode_sdk_span(raw: Any, index: int) -> OtelSpan:
    span_id = _sdk_span_id(raw) if isinstance(raw, dict) else None
    if span_id is None:
        msg = f"[{index}]: a span needs context.span_id (or span_id)"
        raise TraceFormatError(msg)
    context = raw.get("context") or {}
    status = raw.get("status") if isinstance(raw.get("status"), dict) else {}
    code = status.get("status_code") or raw.get("status_code") or "UNSET"
    return OtelSpan(
        trace_id=_hex_id(context.get("trace_id") or raw.get("trace_id") or ""),
        span_id=_hex_id(span_id),
        parent_id=_hex_id(raw.get("parent_id") or raw.get("parent_span_id")) or None,
        name=str(raw.get("name") or ""),
        kind=_enum(raw.get("kind") or raw.get("span_kind"), _KINDS, "SPAN_KIND_"),
        start=parse_timestamp(raw.get("start_time")),
        end=parse_timestamp(raw.get("end_time")),
        status_code=_enum(code, _STATUS, "STATUS_CODE_"),
        status_message=status.get("description") or raw.get("status_message") or None,
        attributes=flatten_attributes(raw.get("attributes") or {}),
        events=[_sdk_event(e) for e in raw.get("events") or [] if isinstance(e, dict)],
        resource=flatten_attributes((raw.get("resource") or {}).get("attributes") or {}),
    )


def _sdk_event(raw: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": raw.get("name"),
        "timestamp": parse_timestamp(raw.get("timestamp")),
        "attributes": flatten_attributes(raw.get("attributes") or {}),
    }


def _sdk_span_id(raw: dict[str, Any]) -> str | None:
    context = raw.get("context")
    value = context.get("span_id") if isinstance(context, dict) else raw.get("span_id")
    return str(value) if value else None


def _hex_id(value: Any) -> str:
    if value is None:
        return ""
    text = str(value).lower()
    return text.removeprefix("0x")


def _enum(value: Any, names: dict[int, str], prefix: str) -> str:
    if isinstance(value, int):
        return names.get(value, str(value))
    text = str(value or "").upper().rsplit(".", 1)[-1]  # "SpanKind.INTERNAL" → "INTERNAL"
    text = text.removeprefix(prefix)
    return text or names[0]


def _any_value(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [_any_value(v) for v in (value["arrayValue"] or {}).get("values") or []]
    if "kvlistValue" in value:
        return _any_attributes((value["kvlistValue"] or {}).get("values") or [])
    return None


def _any_attributes(items: list[Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for item in items:
        if isinstance(item, dict) and "key" in item:
            flat[str(item["key"])] = _any_value(item.get("value"))
    return flatten_attributes(flat)


def flatten_attributes(attrs: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested attribute dicts and lists of dicts → dotted keys with zero-based list indices."""
    flat: dict[str, Any] = {}
    for key, value in attrs.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            flat.update(flatten_attributes(value, f"{name}."))
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for i, item in enumerate(value):
                flat.update(flatten_attributes(item, f"{name}.{i}."))
        else:
            flat[name] = value
    return flat


def indexed_list(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """Collect `prefix.N.rest` keys into a list of `{rest: value}` dicts ordered by N."""
    items: dict[int, dict[str, Any]] = {}
    start = f"{prefix}."
    for key, value in attrs.items():
        if not key.startswith(start):
            continue
        index, _, rest = key[len(start) :].partition(".")
        if index.isdigit() and rest:
            items.setdefault(int(index), {})[rest] = value
    return [items[i] for i in sorted(items)]
