"""A document of OTel spans in either JSON shape: decoding, attribute sampling, trace selection.

The shapes are OTLP/JSON (`otlp_json`) and span JSON (`span_json`: a list, `{"spans": [...]}`,
`{"data": [...]}` or one span). A document may hold several traces: `trace_ids` lists them,
`select_trace` keeps one (OTLP stays OTLP; span JSON becomes a plain list).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentdiff.adapters.otel.otlp_json import (
    Documents,
    decode_otlp,
    documents,
    is_otlp,
    otlp_raw_spans,
    place,
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
    "split_traces",
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
    """Distinct trace ids in order of first appearance (spans without one are not counted).

    Ids that differ only in case are one trace, spelled as first seen: a trace is selected by
    its id in any case (`select_trace`), so each would select the same spans.
    """
    seen: dict[str, str] = {}
    for raw in raw_spans(data):
        if trace_id := raw_trace_id(raw):
            seen.setdefault(trace_id.lower(), trace_id)
    return list(seen.values())


def select_trace(data: Any, trace_id: str) -> Any:
    """The same document holding only the spans of `trace_id` (empty groups dropped).

    Of a JSON Lines list of OTLP documents, the documents holding some of those spans (as
    `Documents`: errors name each by its place in the file).
    """
    return _parts(data, {trace_id: _key(trace_id)})[trace_id]


def split_traces(data: Any) -> list[tuple[str, Any]]:
    """`(trace id, select_trace(data, trace id))` for each of `trace_ids(data)`, in one pass."""
    parts = _parts(data, {trace_id: _key(trace_id) for trace_id in trace_ids(data)})
    return list(parts.items())


def _key(trace_id: str) -> str:
    """What the spans of `trace_id` have as `raw_trace_id(span).lower()`."""
    return normal_id(trace_id).lower()


def _parts(data: Any, keys: dict[str, str]) -> dict[str, Any]:
    """Each trace id of `keys` (id → `_key`) → its part of `data`, read in one pass."""
    wanted = set(keys.values())
    if is_otlp(data):
        found = _split_documents(data, wanted)
        if isinstance(data, list):
            return {trace_id: found[key] for trace_id, key in keys.items()}
        empty = {**data, "resourceSpans": []}  # the document without a span of the trace
        return {trace_id: (found[key] or [empty])[0] for trace_id, key in keys.items()}
    listed = span_list(data)
    if listed is None:
        return dict.fromkeys(keys, data)
    groups: dict[str, list[dict[str, Any]]] = {key: [] for key in wanted}
    for span in listed:
        if isinstance(span, dict) and (group := groups.get(raw_trace_id(span).lower())) is not None:
            group.append(span)
    return {trace_id: groups[key] for trace_id, key in keys.items()}


def _split_documents(data: Any, wanted: set[str]) -> dict[str, Documents]:
    """For each key of `wanted`, the OTLP documents holding spans of it, only with those spans.

    Groups (resource, scope) left without spans are dropped, as are documents; the others keep
    their order, their place (`Documents`) and every other member.
    """
    found = {key: Documents([], []) for key in wanted}
    for d, doc in enumerate(documents(data)):
        kept: dict[str, list[dict[str, Any]]] = {}
        for rs in resource_spans(doc):
            rest = {k: v for k, v in rs.items() if k != "instrumentationLibrarySpans"}
            for key, groups in _split_scopes(scopes(rs), wanted).items():
                kept.setdefault(key, []).append({**rest, "scopeSpans": groups})
        for key, groups in kept.items():
            found[key].append({**doc, "resourceSpans": groups})
            found[key].places.append(place(data, d))
    return found


def _split_scopes(
    groups: list[dict[str, Any]], wanted: set[str]
) -> dict[str, list[dict[str, Any]]]:
    """Each key of `wanted` with spans in the scope `groups` → those groups with those spans."""
    out: dict[str, list[dict[str, Any]]] = {}
    for ss in groups:
        spans: dict[str, list[dict[str, Any]]] = {}
        for span in ss.get("spans") or []:
            if isinstance(span, dict) and (key := raw_trace_id(span).lower()) in wanted:
                spans.setdefault(key, []).append(span)
        for key, kept in spans.items():
            out.setdefault(key, []).append({**ss, "spans": kept})
    return out
