"""Capture the OpenTelemetry spans of one agent call at a time (used by `agentdiff record`).

`OtelCapture` adds a `FileSpanExporter` to the process's tracer provider (the app's own when it
set one; else a new SDK provider is installed as the global one, so instrumentations that use the
global provider report to it) and wraps each call in a root span of OpenInference kind `AGENT`,
so every span the call makes shares one trace id and ends up in one file.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import Status, StatusCode

from agentdiff.otel.file_exporter import FileSpanExporter
from agentdiff.record.step import describe_error, jsonable

__all__ = ["OtelCapture", "SpanFile"]


def _json(value: Any) -> str:
    return orjson.dumps(jsonable(value)).decode()


class SpanFile:
    """Where the spans of one captured call were written, once its root span has ended."""

    def __init__(self, span: trace.Span) -> None:
        self.path: Path | None = None
        self._span = span

    def set_output(self, value: Any) -> None:
        """Record the call's result on the root span (`output.value`, as JSON)."""
        self._span.set_attribute("output.value", _json(value))
        self._span.set_attribute("output.mime_type", "application/json")

    def fail(self, error: BaseException) -> None:
        """Record the exception that ended the call on the root span (status ERROR)."""
        self._span.record_exception(error)
        self._span.set_status(Status(StatusCode.ERROR, describe_error(error)))

    def span_count(self) -> int:
        """How many spans the file holds (0 when nothing was written)."""
        if self.path is None or not self.path.is_file():
            return 0
        document = orjson.loads(self.path.read_bytes())
        return sum(
            len(ss.get("spans", []))
            for rs in document.get("resourceSpans", [])
            for ss in rs.get("scopeSpans", [])
        )


class OtelCapture:
    """A `FileSpanExporter` on the global tracer provider, writing into a temporary folder."""

    def __init__(self) -> None:
        provider = trace.get_tracer_provider()
        if not isinstance(provider, TracerProvider):
            provider = TracerProvider()
            trace.set_tracer_provider(provider)
        self._provider = provider
        self._folder = tempfile.TemporaryDirectory(prefix="agentdiff-otel-")
        self.exporter = FileSpanExporter.attach(provider, self._folder.name)
        self._tracer = provider.get_tracer("agentdiff.record")

    @contextmanager
    def call(self, name: str, task_input: Any) -> Iterator[SpanFile]:
        """Run the block under a new root span; the yielded `SpanFile` is filled on exit."""
        attributes = {
            "openinference.span.kind": "AGENT",
            "input.value": _json(task_input),
            "input.mime_type": "application/json",
        }
        with self._tracer.start_as_current_span(name, attributes=attributes) as span:
            found = SpanFile(span)
            try:
                yield found
            finally:
                context = span.get_span_context()
                found.path = self.exporter.path_for(context.trace_id)
        self._provider.force_flush()

    def close(self) -> None:
        """Stop writing and remove the temporary folder."""
        self.exporter.shutdown()
        self._folder.cleanup()
