"""Langfuse-flavoured OTel spans (what the v4 SDK exports) → `Observation`s and a `TraceHeader`.

Read the way the Langfuse server ingests OTel: `langfuse.observation.type` (lower case in the
SDK; no type → SPAN), `langfuse.observation.input|output` (JSON strings), `.level` (or a span
status ERROR), `.status_message` (or the span status message), `.model.name`, `.usage_details` /
`.cost_details` (JSON strings, or nested attributes that arrive flattened), and the trace-level
`langfuse.trace.name|input|output|tags|metadata.*`, `user.id`, `session.id`, `langfuse.release`,
`langfuse.version`, `langfuse.environment`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentdiff.adapters._kit.shapes import text
from agentdiff.adapters.langfuse.observations import (
    Observation,
    TraceHeader,
    cost_from,
    json_value,
    usage_details,
    usage_extra,
)
from agentdiff.adapters.otel.documents import decode_spans
from agentdiff.timeparse import wall_clock_ms

if TYPE_CHECKING:
    from agentdiff.adapters.otel.span import OtelSpan

__all__ = ["observations_from_otlp"]

_OBS = "langfuse.observation."
_TRACE = "langfuse.trace."
_TRACE_FIELDS = {
    "user.id": "user_id",
    "session.id": "session_id",
    "langfuse.trace.tags": "tags",
    "langfuse.release": "release",
    "langfuse.environment": "environment",
}


def _nested(attrs: dict[str, Any], key: str) -> Any:
    """`attrs[key]`, or the dict gathered from flattened `key.*` attributes."""
    if key in attrs:
        return attrs[key]
    prefix = f"{key}."
    nested = {k[len(prefix) :]: v for k, v in attrs.items() if k.startswith(prefix)}
    return nested or None


def _observation(span: OtelSpan) -> Observation:
    attrs = span.attributes
    level = attrs.get(f"{_OBS}level") or ("ERROR" if span.status_code == "ERROR" else "DEFAULT")
    extra: dict[str, Any] = {"span_kind": span.kind, "otel_status": span.status_code}
    for key in ("model.parameters", "completion_start_time", "prompt.name", "prompt.version"):
        if f"{_OBS}{key}" in attrs:
            extra[key.replace(".", "_")] = json_value(attrs[f"{_OBS}{key}"])
    at = span.attributes_path
    usage = usage_extra(_nested(attrs, f"{_OBS}usage_details"), f"{at}.{_OBS}usage_details")
    if usage:
        extra["usage"] = usage
    return Observation(
        id=span.span_id,
        type=(text(attrs.get(f"{_OBS}type"), f"{at}.{_OBS}type") or "span").upper(),
        name=span.name or "span",
        parent_id=span.parent_id,
        trace_id=span.trace_id or None,
        start=span.start,
        end=span.end,
        input=json_value(attrs.get(f"{_OBS}input")),
        output=json_value(attrs.get(f"{_OBS}output")),
        level=(text(level, f"{at}.{_OBS}level") or "DEFAULT").upper(),
        status_message=attrs.get(f"{_OBS}status_message") or span.status_message,
        model=text(attrs.get(f"{_OBS}model.name"), f"{at}.{_OBS}model.name"),
        usage=usage_details(
            _nested(attrs, f"{_OBS}usage_details"),
            f"{at}.{_OBS}usage_details",
            cost_from(_nested(attrs, f"{_OBS}cost_details"), f"{at}.{_OBS}cost_details"),
        ),
        extra=extra,
    )


def _header(spans: list[OtelSpan]) -> TraceHeader:
    ids = {s.span_id for s in spans}
    roots = [s for s in spans if s.parent_id is None or s.parent_id not in ids] or spans
    ordered = [*roots, *(s for s in spans if s not in roots)]
    header = TraceHeader(trace_id=spans[0].trace_id or None)
    for span in ordered:
        _merge_trace_attributes(header, span.attributes)
    header.latency_ms = wall_clock_ms((s.start for s in spans), (s.end for s in spans))
    resource = spans[0].resource
    if resource:
        header.metadata.setdefault("resource", resource)
    return header


def _merge_trace_attributes(header: TraceHeader, attrs: dict[str, Any]) -> None:
    """Fill the header from one span's trace attributes (the first span to set one wins)."""
    header.name = header.name or attrs.get(f"{_TRACE}name")
    header.version = header.version or attrs.get("langfuse.version")
    if header.input is None:
        header.input = json_value(attrs.get(f"{_TRACE}input"))
    if header.output is None:
        header.output = json_value(attrs.get(f"{_TRACE}output"))
    for key, name in _TRACE_FIELDS.items():
        if key in attrs:
            header.metadata.setdefault(name, attrs[key])
    meta_prefix = f"{_TRACE}metadata."
    for key, value in attrs.items():
        if key.startswith(meta_prefix):
            header.metadata.setdefault("trace_metadata", {}).setdefault(
                key[len(meta_prefix) :], json_value(value)
            )


def observations_from_otlp(data: Any) -> tuple[TraceHeader, list[Observation]]:
    """Decode OTLP/JSON (or SDK span JSON) written by the Langfuse SDK."""
    spans = decode_spans(data)
    if not spans:
        return TraceHeader(), []
    return _header(spans), [_observation(s) for s in spans]
