"""A document of OTel spans in either JSON shape: decoding, attribute sampling, trace selection.

The shapes are OTLP/JSON (`otlp_json`) and span JSON (`span_json`: a list, `{"spans": [...]}`,
`{"data": [...]}` or one span). A document may hold several traces: `trace_ids` lists them,
`select_trace` keeps one (OTLP stays OTLP; span JSON becomes a plain list).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentdiff.adapters.otel.otlp_json import (
    decode_otlp,
    documents,
    is_otlp,
    otlp_raw_spans,
    resource_spans,
    scopes,
)
from agentdiff.adapters.otel.span import flatten_attributes, normal_id
from agentdiff.adapters.otel.span_json import (
    decode_span_json,
    is_span_json,
    raw_trace_id,
    span_list,
)
from agentdiff.errors import TraceFormatError

if TYPE_CHECKING:
    from collections.abc import Iterator

    from agentdiff.adapters.otel.span import OtelSpan

__all__ = [
    "decode_spans",
    "raw_spans",
    "raw_trace_id",
    "sample_attribute_keys",
    "select_trace",
    "trace_ids",
]

_SAMPLE_SPANS = 32


def decode_spans(data: Any) -> list[OtelSpan]:
    """Every span in an OTLP/JSON document (or list of them) or an SDK span-JSON list."""
    if is_otlp(data):
        return decode_otlp(data)
    if isinstance(data, list) or is_span_json(data):
        return decode_span_json(data)
    msg = "expected OTLP/JSON (resourceSpans) or span objects (a list, spans/data, or one span)"
    raise TraceFormatError(msg)


def raw_spans(data: Any) -> Iterator[dict[str, Any]]:
    """The undecoded span objects of either shape, in file order."""
    if is_otlp(data):
        yield from otlp_raw_spans(data)
    else:
        yield from (s for s in span_list(data) or [] if isinstance(s, dict))


def sample_attribute_keys(data: Any) -> set[str]:
    """Attribute keys of the first spans (whole scopes, up to 32 spans), for cheap detection."""
    keys: set[str] = set()
    for raw in _sample(data):
        attrs = raw.get("attributes")
        if isinstance(attrs, dict):
            keys.update(flatten_attributes(attrs))
        elif isinstance(attrs, list):
            keys.update(str(a.get("key", "")) for a in attrs if isinstance(a, dict))
    return keys


def _sample(data: Any) -> list[dict[str, Any]]:
    if not is_otlp(data):
        return [s for s in (span_list(data) or [])[:_SAMPLE_SPANS] if isinstance(s, dict)]
    out: list[dict[str, Any]] = []
    try:
        for raw in otlp_raw_spans(data):
            out.append(raw)
            if len(out) >= _SAMPLE_SPANS:
                return out
    except TraceFormatError:  # detection never raises; loading names the bad part
        return out
    return out


def trace_ids(data: Any) -> list[str]:
    """Distinct trace ids in order of first appearance (spans without one are not counted)."""
    return list(dict.fromkeys(i for raw in raw_spans(data) if (i := raw_trace_id(raw))))


def select_trace(data: Any, trace_id: str) -> Any:
    """The same document holding only the spans of `trace_id` (empty groups dropped)."""
    wanted = normal_id(trace_id).lower()
    if is_otlp(data):
        docs = [_filter_document(doc, wanted) for doc in documents(data)]
        return docs if isinstance(data, list) else docs[0]
    listed = span_list(data)
    if listed is not None:
        return [s for s in listed if isinstance(s, dict) and raw_trace_id(s).lower() == wanted]
    return data


def _filter_document(doc: dict[str, Any], trace_id: str) -> dict[str, Any]:
    kept_groups = []
    for rs in resource_spans(doc):
        kept = [
            {
                **ss,
                "spans": [
                    s
                    for s in ss.get("spans") or []
                    if isinstance(s, dict) and raw_trace_id(s).lower() == trace_id
                ],
            }
            for ss in scopes(rs)
        ]
        rest = {k: v for k, v in rs.items() if k != "instrumentationLibrarySpans"}
        kept_groups.append({**rest, "scopeSpans": [ss for ss in kept if ss["spans"]]})
    return {**doc, "resourceSpans": [rs for rs in kept_groups if rs["scopeSpans"]]}
