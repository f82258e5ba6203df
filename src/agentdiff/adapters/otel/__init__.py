"""OpenTelemetry spans, read once for every adapter that takes them (`openinference`, `langfuse`).

- `span`: the decoded `OtelSpan` record and attribute helpers (flattening, indexed lists).
- `otlp_json`: OTLP/JSON (`resourceSpans` documents, JSON Lines of them) → spans.
- `span_json`: SDK span JSON (`ReadableSpan.to_json()`, Phoenix) → spans.
- `documents`: either shape as one document: decoding, cheap attribute sampling, trace ids and
  selecting one trace.
- `semconv`: what a span means as an agent step (OpenInference and GenAI conventions).
- `tree`: the kept spans' parent/child structure and their parents-first order.
"""
