"""OTLP/JSON Lines decoded one line at a time: a million-span file never sits in memory twice.

`SpanLines.add(doc)` decodes one line's `TracesData` document into `OtelSpan`s with the decoder
of the whole-document route (`otlp_json.decode_document`, the same JSON paths: `[d].resource
Spans[...]` for the d-th line) so the caller can drop the line at once. Equal trace ids and
equal resources are stored once. `trace_ids()` and `select(trace_id)` answer as
`documents.trace_ids` and `documents.select_trace` answer for the list of all lines: both read
the undecoded ids (`raw_trace_id`).

A line this cannot decode on its own (not an object with a `resourceSpans` list) raises
`NotStreamable`; the caller then reads the file as a whole, the route that names every error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentdiff.adapters.otel.otlp_json import decode_document, otlp_raw_spans
from agentdiff.adapters.otel.span import normal_id
from agentdiff.adapters.otel.span_json import raw_trace_id

if TYPE_CHECKING:
    from collections.abc import Hashable

    from agentdiff.adapters.otel.span import OtelSpan

__all__ = ["NotStreamable", "SpanLines"]


class NotStreamable(Exception):  # noqa: N818 - a signal to take the other route, not an error
    """A line the stream cannot decode on its own: read the file as a whole instead."""


def _check_line(doc: Any) -> None:
    if not (isinstance(doc, dict) and isinstance(doc.get("resourceSpans"), list)):
        raise NotStreamable


class SpanLines:
    """The spans of OTLP/JSON Lines, decoded as each line is read."""

    def __init__(self) -> None:
        self.spans: list[OtelSpan] = []
        self.lines = 0
        self._raw_ids: list[str] = []
        self._order: dict[str, str] = {}
        """Each trace id seen, lower-cased → as first spelled (see `documents.trace_ids`)."""
        self._shared: dict[str, str] = {}
        self._resources: dict[Hashable, dict[str, Any]] = {}

    def add(self, doc: Any) -> None:
        """Decode the next line's document (`TraceFormatError` naming its path when bad)."""
        _check_line(doc)
        raws: list[dict[str, Any]] = []
        spans = decode_document(doc, f"[{self.lines}]", raws)
        self.lines += 1
        for span, raw in zip(spans, raws, strict=True):
            raw_id = self._share(raw_trace_id(raw))
            self._raw_ids.append(raw_id)
            if raw_id:
                self._order.setdefault(raw_id.lower(), raw_id)
            span.trace_id = self._share(span.trace_id)
            span.resource = self._resource(span.resource)
        self.spans += spans

    def skim(self, doc: Any) -> int:
        """Note the trace ids of a line not decoded (after a bad span); how many spans it holds.

        `TraceFormatError` when its shape is wrong (the whole route names that, with its path).
        """
        _check_line(doc)
        raws = list(otlp_raw_spans(doc))
        for raw in raws:
            if trace_id := raw_trace_id(raw):
                self._order.setdefault(trace_id.lower(), self._share(trace_id))
        return len(raws)

    def trace_ids(self) -> list[str]:
        """Distinct trace ids in order of first appearance (as `documents.trace_ids`)."""
        return list(self._order.values())

    def select(self, trace_id: str) -> None:
        """Keep only the spans of `trace_id` (as `documents.select_trace`)."""
        wanted = normal_id(trace_id).lower()
        pairs = zip(self.spans, self._raw_ids, strict=True)
        self.spans = [span for span, raw_id in pairs if raw_id.lower() == wanted]
        self._raw_ids = []

    def _share(self, text: str) -> str:
        return self._shared.setdefault(text, text)

    def _resource(self, resource: dict[str, Any]) -> dict[str, Any]:
        """One dict for equal resources (every line repeats its exporter's resource)."""
        try:
            key = tuple((name, type(value), value) for name, value in resource.items())
            return self._resources.setdefault(key, resource)
        except TypeError:  # a list value: not hashable, kept as it is
            return resource
