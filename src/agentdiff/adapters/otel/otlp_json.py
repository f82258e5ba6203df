"""OTLP/JSON → `OtelSpan`s.

`{"resourceSpans": [{"resource", "scopeSpans": [{"spans": [...]}]}]}`, one document or a list
of them (JSON Lines): hex ids, `*UnixNano` as strings or numbers, `AnyValue` attributes, integer
enums. The pre-1.0 `instrumentationLibrarySpans` is read like `scopeSpans`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentdiff.adapters.otel.span import OtelSpan, enum_name, flatten_attributes, normal_id
from agentdiff.errors import TraceFormatError
from agentdiff.timeparse import from_unix_nanos

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["KINDS", "STATUS", "decode_otlp", "documents", "is_otlp", "otlp_raw_spans", "scopes"]

KINDS = {0: "UNSPECIFIED", 1: "INTERNAL", 2: "SERVER", 3: "CLIENT", 4: "PRODUCER", 5: "CONSUMER"}
STATUS = {0: "UNSET", 1: "OK", 2: "ERROR"}
_SAMPLE = 8


def is_otlp(data: Any) -> bool:
    """An OTLP/JSON `TracesData` document, or a list of them (JSON Lines)."""
    if isinstance(data, dict):
        return isinstance(data.get("resourceSpans"), list)
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(d, dict) and "resourceSpans" in d for d in data[:_SAMPLE])
    )


def documents(data: Any) -> list[dict[str, Any]]:
    """The `TracesData` documents of an OTLP document or JSON Lines list."""
    return data if isinstance(data, list) else [data]


def scopes(resource_spans: dict[str, Any]) -> list[Any]:
    """The scope groups of one `resourceSpans` entry (`scopeSpans`, or the pre-1.0 name)."""
    found = resource_spans.get("scopeSpans") or resource_spans.get("instrumentationLibrarySpans")
    return found or []


def otlp_raw_spans(data: Any) -> Iterator[dict[str, Any]]:
    """Every span object of an OTLP document (or list of them), undecoded, in file order."""
    for doc in documents(data):
        for rs in doc.get("resourceSpans") or []:
            for ss in scopes(rs):
                yield from (s for s in ss.get("spans") or [] if isinstance(s, dict))


def decode_otlp(data: Any) -> list[OtelSpan]:
    """Every span of an OTLP document (or list of them), decoded."""
    spans = []
    for d, doc in enumerate(documents(data)):
        for r, rs in enumerate(doc.get("resourceSpans") or []):
            resource = _any_attributes((rs.get("resource") or {}).get("attributes") or [])
            for s, ss in enumerate(scopes(rs)):
                for i, raw in enumerate(ss.get("spans") or []):
                    where = f"[{d}].resourceSpans[{r}].scopeSpans[{s}].spans[{i}]"
                    spans.append(_decode_span(raw, resource, where))
    return spans


def _decode_span(raw: Any, resource: dict[str, Any], where: str) -> OtelSpan:
    if not isinstance(raw, dict) or not raw.get("spanId") or not raw.get("traceId"):
        msg = f"{where}: an OTLP span needs traceId and spanId"
        raise TraceFormatError(msg)
    status = raw.get("status") or {}
    return OtelSpan(
        trace_id=normal_id(raw["traceId"]),
        span_id=normal_id(raw["spanId"]),
        parent_id=normal_id(raw.get("parentSpanId")) or None,
        name=str(raw.get("name") or ""),
        kind=enum_name(raw.get("kind"), KINDS, "SPAN_KIND_"),
        start=from_unix_nanos(raw.get("startTimeUnixNano")),
        end=from_unix_nanos(raw.get("endTimeUnixNano")),
        status_code=enum_name(status.get("code"), STATUS, "STATUS_CODE_"),
        status_message=status.get("message") or None,
        attributes=_any_attributes(raw.get("attributes") or []),
        events=[_event(e) for e in raw.get("events") or [] if isinstance(e, dict)],
        resource=resource,
    )


def _event(raw: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": raw.get("name"),
        "timestamp": from_unix_nanos(raw.get("timeUnixNano")),
        "attributes": _any_attributes(raw.get("attributes") or []),
    }


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
