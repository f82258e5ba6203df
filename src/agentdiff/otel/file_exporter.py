"""`FileSpanExporter`: one OTLP/JSON file per trace, for an app's existing `TracerProvider`.

    provider = trace.get_tracer_provider()          # the app's own, instrumented as it is
    FileSpanExporter.attach(provider, "traces/")    # adds a span processor; replaces nothing

OpenTelemetry has no end-of-trace signal, so the exporter buffers finished spans per trace and
writes `<dir>/<trace_id>.json` when a *local root* of that trace ends (a span with no parent, or
whose parent lives in another process). A span of a trace whose file exists already (a late span,
or a second local root of a distributed trace) is merged into that file at once, so the file is
rewritten whole and atomically. `force_flush()` and `shutdown()` write every trace still
buffered; when more than `max_buffered_spans` are waiting (a root that never ends), the biggest
trace is written early and completed later the same way. The exporter never raises into the app:
a failed write is logged and reported as `SpanExportResult.FAILURE`.

Files are OTLP/JSON as the OTLP specification writes it (hex ids, integer enums, `*UnixNano`
strings), encoded by OpenTelemetry's own OTLP encoder; `agentdiff` reads them with its
`openinference` adapter (OpenInference and GenAI semantic conventions).
"""

from __future__ import annotations

import base64
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

from agentdiff.errors import AgentDiffError
from agentdiff.files import write_atomically

__all__ = ["FileSpanExporter"]

_log = logging.getLogger(__name__)
_ID_KEYS = ("traceId", "spanId", "parentSpanId")


class FileSpanExporter(SpanExporter):
    """A `SpanExporter` writing `<directory>/<trace_id>.json` (OTLP/JSON) per trace."""

    def __init__(self, directory: str | Path, *, max_buffered_spans: int = 100_000) -> None:
        self.directory = Path(directory)
        self.max_buffered_spans = max_buffered_spans
        self._buffers: dict[str, list[ReadableSpan]] = {}
        self._lock = threading.Lock()
        self._closed = False

    @classmethod
    def attach(cls, provider: TracerProvider, directory: str | Path) -> FileSpanExporter:
        """Add a new exporter to `provider` (beside its other processors) and return it."""
        exporter = cls(directory)
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        return exporter

    def path_for(self, trace_id: int | str) -> Path:
        """Where the trace with this id (an int or 32 hex digits) is written."""
        text = format(trace_id, "032x") if isinstance(trace_id, int) else trace_id.lower()
        return self.directory / f"{text}.json"

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Buffer `spans`; write the traces whose local root ended or whose file exists."""
        if self._closed:
            return SpanExportResult.FAILURE
        with self._lock:
            due: set[str] = set()
            for span in spans:
                trace_id = _trace_id(span)
                self._buffers.setdefault(trace_id, []).append(span)
                if _is_local_root(span) or self.path_for(trace_id).exists():
                    due.add(trace_id)
            due.update(self._overflow())
            return self._write(due)

    def force_flush(self, timeout_millis: int = 30_000) -> bool:  # noqa: ARG002 - writes are quick
        """Write every buffered trace now (a trace whose root has not ended is completed later)."""
        with self._lock:
            return self._write(set(self._buffers)) is SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        """Write what is buffered; later exports fail."""
        self.force_flush()
        self._closed = True

    def _overflow(self) -> list[str]:
        waiting = sum(len(spans) for spans in self._buffers.values())
        if waiting <= self.max_buffered_spans:
            return []
        return [max(self._buffers, key=lambda trace_id: len(self._buffers[trace_id]))]

    def _write(self, trace_ids: set[str]) -> SpanExportResult:
        result = SpanExportResult.SUCCESS
        for trace_id in sorted(trace_ids):
            spans = self._buffers.pop(trace_id, [])
            if not spans:
                continue
            try:
                self._merge_into_file(trace_id, spans)
            except (AgentDiffError, OSError, ValueError) as exc:
                _log.warning("agentdiff: cannot write trace %s: %s", trace_id, exc)
                result = SpanExportResult.FAILURE
        return result

    def _merge_into_file(self, trace_id: str, spans: list[ReadableSpan]) -> None:
        path = self.path_for(trace_id)
        document = {"resourceSpans": [*_existing_resource_spans(path), *_otlp(spans)]}
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, orjson.dumps(document).decode() + "\n")


def _trace_id(span: ReadableSpan) -> str:
    context = span.get_span_context()
    return format(context.trace_id if context else 0, "032x")


def _is_local_root(span: ReadableSpan) -> bool:
    return span.parent is None or span.parent.is_remote


def _existing_resource_spans(path: Path) -> list[Any]:
    try:
        document = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return []
    except (OSError, orjson.JSONDecodeError) as exc:
        _log.warning("agentdiff: %s is not a readable trace file, replacing it: %s", path, exc)
        return []
    found = document.get("resourceSpans") if isinstance(document, dict) else None
    return found if isinstance(found, list) else []


def _otlp(spans: list[ReadableSpan]) -> list[Any]:
    """The `resourceSpans` of `spans` in OTLP/JSON (hex ids instead of protobuf's base64)."""
    document = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    resource_spans: list[Any] = document.get("resourceSpans", [])
    for rs in resource_spans:
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                _hex_ids(span)
                for link in span.get("links", []):
                    _hex_ids(link)
    return resource_spans


def _hex_ids(record: dict[str, Any]) -> None:
    for key in _ID_KEYS:
        if record.get(key):
            record[key] = base64.b64decode(record[key]).hex()
