"""OTLP/JSON → `OtelSpan`s.

`{"resourceSpans": [{"resource", "scopeSpans": [{"spans": [...]}]}]}`, one document or a list
of them (JSON Lines): hex ids, `*UnixNano` as strings or numbers, `AnyValue` attributes, integer
enums. The pre-1.0 `instrumentationLibrarySpans` is read like `scopeSpans`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentdiff.adapters._kit.shapes import items, mapping, text, wrong
from agentdiff.adapters.otel.span import OtelSpan, enum_name, flatten_attributes, normal_id
from agentdiff.errors import TraceFormatError
from agentdiff.timeparse import from_unix_nanos

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "KINDS",
    "STATUS",
    "Documents",
    "decode_document",
    "decode_otlp",
    "documents",
    "is_otlp",
    "otlp_raw_spans",
    "place",
    "scopes",
]

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


class Documents(list[dict[str, Any]]):
    """Some documents of a JSON Lines list, each with its place in it (`places`).

    What one trace's part of the list is (`documents.select_trace`): errors name a document
    by its place in the file, not in the part.
    """

    def __init__(self, docs: list[dict[str, Any]], places: list[int]) -> None:
        super().__init__(docs)
        self.places = places


def documents(data: Any) -> list[dict[str, Any]]:
    """The `TracesData` documents of an OTLP document or JSON Lines list."""
    found = data if isinstance(data, list) else [data]
    return [mapping(doc, f"[{place(data, d)}]") for d, doc in enumerate(found)]


def place(data: Any, d: int) -> int:
    """The place in its file of the document `d` of a JSON Lines list (or of `Documents`)."""
    return data.places[d] if isinstance(data, Documents) else d


def _document_path(data: Any, d: int) -> str:
    """`[d]` for the documents of a JSON Lines list (their place); `""` for a single document."""
    return f"[{place(data, d)}]" if isinstance(data, list) else ""


def _member(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def resource_spans(doc: dict[str, Any], where: str = "") -> list[dict[str, Any]]:
    """The `resourceSpans` entries of one document, each checked to be an object."""
    at = _member(where, "resourceSpans")
    found = items(doc.get("resourceSpans"), at)
    return [mapping(rs, f"{at}[{r}]") for r, rs in enumerate(found)]


def scopes(resource_spans: dict[str, Any], where: str = "") -> list[dict[str, Any]]:
    """The scope groups of one `resourceSpans` entry (`scopeSpans`, or the pre-1.0 name)."""
    found = resource_spans.get("scopeSpans") or resource_spans.get("instrumentationLibrarySpans")
    groups = items(found or None, f"{where}.scopeSpans")
    return [mapping(ss, f"{where}.scopeSpans[{s}]") for s, ss in enumerate(groups)]


def otlp_raw_spans(data: Any) -> Iterator[dict[str, Any]]:
    """Every span object of an OTLP document (or list of them), undecoded, in file order."""
    for d, doc in enumerate(documents(data)):
        top = _document_path(data, d)
        for r, rs in enumerate(resource_spans(doc, top)):
            for s, ss in enumerate(scopes(rs, f"{_member(top, 'resourceSpans')}[{r}]")):
                where = f"{_member(top, 'resourceSpans')}[{r}].scopeSpans[{s}].spans"
                yield from (s for s in items(ss.get("spans"), where) if isinstance(s, dict))


def decode_otlp(data: Any) -> list[OtelSpan]:
    """Every span of an OTLP document (or list of them), decoded."""
    spans = []
    for d, doc in enumerate(documents(data)):
        spans += decode_document(doc, _document_path(data, d))
    return spans


def decode_document(
    doc: dict[str, Any], top: str = "", raws: list[dict[str, Any]] | None = None
) -> list[OtelSpan]:
    """The spans of one `TracesData` document; `top` is its JSON path (`[d]` for line d + 1).

    `raws`, when given, receives each span's undecoded object, in the same order.
    """
    spans = []
    for r, rs in enumerate(resource_spans(doc, top)):
        at = f"{_member(top, 'resourceSpans')}[{r}]"
        resource_doc = mapping(rs.get("resource"), f"{at}.resource")
        resource = _any_attributes(resource_doc.get("attributes"), f"{at}.resource.attributes")
        for s, ss in enumerate(scopes(rs, at)):
            for i, raw in enumerate(items(ss.get("spans"), f"{at}.scopeSpans[{s}].spans")):
                where = f"{at}.scopeSpans[{s}].spans[{i}]"
                spans.append(_decode_span(raw, resource, where))
                if raws is not None:
                    raws.append(raw)
    return spans


def _decode_span(raw: Any, resource: dict[str, Any], where: str) -> OtelSpan:
    if not isinstance(raw, dict) or not raw.get("spanId") or not raw.get("traceId"):
        msg = f"{where}: an OTLP span needs traceId and spanId"
        raise TraceFormatError(msg)
    status = mapping(raw.get("status"), f"{where}.status")
    return OtelSpan(
        trace_id=normal_id(text(raw["traceId"], f"{where}.traceId")),
        span_id=normal_id(text(raw["spanId"], f"{where}.spanId")),
        parent_id=normal_id(text(raw.get("parentSpanId"), f"{where}.parentSpanId")) or None,
        name=text(raw.get("name"), f"{where}.name") or "",
        kind=enum_name(raw.get("kind"), KINDS, "SPAN_KIND_"),
        start=from_unix_nanos(_nanos(raw.get("startTimeUnixNano"), f"{where}.startTimeUnixNano")),
        end=from_unix_nanos(_nanos(raw.get("endTimeUnixNano"), f"{where}.endTimeUnixNano")),
        status_code=enum_name(status.get("code"), STATUS, "STATUS_CODE_"),
        status_message=text(status.get("message"), f"{where}.status.message") or None,
        attributes=_any_attributes(raw.get("attributes"), f"{where}.attributes"),
        events=[
            _event(e, f"{where}.events[{n}]")
            for n, e in enumerate(items(raw.get("events"), f"{where}.events"))
            if isinstance(e, dict)
        ],
        resource=resource,
        path=where,
    )


def _nanos(value: Any, where: str) -> Any:
    """`*UnixNano`: a decimal string or a number (its value is checked by `from_unix_nanos`)."""
    if value is None or (isinstance(value, (str, int, float)) and not isinstance(value, bool)):
        return value
    raise wrong(where, "nanoseconds since the epoch (a decimal string)", value)


def _event(raw: dict[str, Any], where: str) -> dict[str, Any]:
    return {
        "name": raw.get("name"),
        "timestamp": from_unix_nanos(raw.get("timeUnixNano")),
        "attributes": _any_attributes(raw.get("attributes"), f"{where}.attributes"),
    }


def _any_value(value: Any, where: str) -> Any:
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return _int_value(value["intValue"], f"{where}.intValue")
    if "arrayValue" in value:
        values = items(mapping(value["arrayValue"], f"{where}.arrayValue").get("values"), where)
        return [_any_value(v, f"{where}.arrayValue.values[{i}]") for i, v in enumerate(values)]
    if "kvlistValue" in value:
        kvlist = mapping(value["kvlistValue"], f"{where}.kvlistValue")
        return _any_attributes(kvlist.get("values"), f"{where}.kvlistValue.values")
    return None


def _int_value(value: Any, where: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        msg = f"{where}: expected an integer, got {type(value).__name__}"
        raise TraceFormatError(msg) from None


def _any_attributes(found: Any, where: str) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for i, item in enumerate(items(found, where)):
        if isinstance(item, dict) and "key" in item:
            flat[str(item["key"])] = _any_value(item.get("value"), f"{where}[{i}].value")
    return flatten_attributes(flat)
