"""OpenTelemetry integration (extra `agentdiff[otel]`): write diffable trace files from any app.

`FileSpanExporter` writes each trace as one OTLP/JSON file, `<trace_id>.json`, which the
`openinference` adapter loads; see `agentdiff.otel.file_exporter`.
"""

from agentdiff.otel.file_exporter import FileSpanExporter

__all__ = ["FileSpanExporter"]
