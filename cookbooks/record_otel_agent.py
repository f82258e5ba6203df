"""Cookbook: an OpenTelemetry-instrumented agent writes diffable files with `FileSpanExporter`.

Offline: the same OpenAI-SDK weather agent as `record_openai_agent.py`, against the scripted
Chat Completions server, but recorded the OpenTelemetry way, with no backend:

1. The app owns its `TracerProvider`; `openinference-instrumentation-openai` traces every model
   call (OpenInference semantic conventions), and the agent opens its own `AGENT` and `TOOL`
   spans. `FileSpanExporter.attach(provider, folder)` adds one span processor beside the app's
   (here an `InMemorySpanExporter`), replacing nothing.
2. When each run's root span ends, its trace is written as `<trace_id>.json` (OTLP/JSON).
3. The files load with the `openinference` adapter (auto-detected) and give the same trace as
   the app's in-memory spans; the baseline and the prompt-change candidate are compared.

Run: `python cookbooks/record_otel_agent.py`
"""

from __future__ import annotations

import json
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from openai import OpenAI
from openinference.instrumentation.openai import OpenAIInstrumentor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Tracer

from agentdiff import compare, load_trace, parse_trace_data
from agentdiff.models.trace import AgentTrace
from agentdiff.otel import FileSpanExporter
from agentdiff.render import RenderOptions, render

try:
    from record_openai_agent import BASELINE_PROMPT, CANDIDATE_PROMPT, QUESTION, TOOLS
    from support.scripted_openai import scripted_openai
except ImportError:  # imported from the tests, with the repository root on sys.path
    from cookbooks.record_openai_agent import BASELINE_PROMPT, CANDIDATE_PROMPT, QUESTION, TOOLS
    from cookbooks.support.scripted_openai import scripted_openai

TOOL_RESULTS: dict[str, Any] = {
    "geocode": {"city": "Paris", "country": "FR", "lat": 48.8566, "lon": 2.3522},
    "get_weather": {"conditions": "partly cloudy", "temp_c": 18.0},
    "web_search": [{"title": "Paris weather", "snippet": "18 °C, partly cloudy"}],
}


def call_tool(tracer: Tracer, name: str, arguments: str) -> Any:
    """A tool call in its own OpenInference TOOL span."""
    attributes = {
        "openinference.span.kind": "TOOL",
        "tool.name": name,
        "input.value": arguments,
        "input.mime_type": "application/json",
    }
    with tracer.start_as_current_span(name, attributes=attributes) as span:
        result = TOOL_RESULTS[name]
        span.set_attribute("output.value", json.dumps(result))
        span.set_attribute("output.mime_type", "application/json")
        return result


def run_agent(tracer: Tracer, base_url: str, system_prompt: str) -> int:
    """One run under an AGENT root span; returns its trace id."""
    client = OpenAI(base_url=base_url, api_key="sk-offline-scripted", max_retries=0)
    messages: list[Any] = [
        {"role": "system", "content": system_prompt},
        {"role": "user", "content": QUESTION},
    ]
    root = {"openinference.span.kind": "AGENT", "input.value": QUESTION}
    with tracer.start_as_current_span("weather-agent", attributes=root) as span:
        for _ in range(8):
            response = client.chat.completions.create(
                model="gpt-4o-mini", messages=messages, tools=TOOLS
            )
            message = response.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                span.set_attribute("output.value", message.content or "")
                break
            for call in message.tool_calls:
                result = call_tool(tracer, call.function.name, call.function.arguments)
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}
                )
        return span.get_span_context().trace_id


def untimed(trace: AgentTrace) -> dict[str, Any]:
    """The trace without times: span JSON rounds nanoseconds through a float, OTLP does not."""
    data = trace.model_dump(mode="json", exclude={"metadata", "total_latency_ms"})
    for step in data["steps"]:
        step.pop("latency_ms")
        for key in ("started_at", "ended_at"):
            step["metadata"].pop(key)
    return data


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def max_time_gap_us(a: AgentTrace, b: AgentTrace) -> float:
    """The largest difference between the two traces' step start/end times, in microseconds."""
    gaps = [
        abs(_when(x.metadata[key]) - _when(y.metadata[key]))
        for x, y in zip(a.steps, b.steps, strict=True)
        for key in ("started_at", "ended_at")
        if x.metadata and y.metadata
    ]
    return max(gaps).total_seconds() * 1e6


def main() -> None:
    provider = TracerProvider()  # the app's own provider and exporter ...
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    OpenAIInstrumentor().instrument(tracer_provider=provider)
    tracer = provider.get_tracer("weather-agent")
    with scripted_openai() as base_url, tempfile.TemporaryDirectory() as folder:
        files = FileSpanExporter.attach(provider, folder)  # ... plus one processor of ours
        ids = [run_agent(tracer, base_url, p) for p in (BASELINE_PROMPT, CANDIDATE_PROMPT)]
        written = sorted(p.name for p in Path(folder).glob("*.json"))
        print(
            f"files written: {len(written)}, named by trace id: "
            f"{written == sorted(f'{i:032x}.json' for i in ids)}"
        )
        baseline, candidate = (load_trace(files.path_for(i)) for i in ids)
    in_memory = parse_trace_data(
        [
            json.loads(s.to_json())
            for s in memory.get_finished_spans()
            if s.context.trace_id == ids[0]
        ]
    )
    print(
        f"file trace equals the in-memory spans' trace: {untimed(baseline) == untimed(in_memory)}"
    )
    print(f"timestamps agree within 1 µs: {max_time_gap_us(baseline, in_memory) <= 1}")
    for label, trace in (("baseline", baseline), ("candidate", candidate)):
        fmt = trace.metadata["source_format"] if trace.metadata else "?"
        tools = [s.name for s in trace.steps if s.step_type.value == "tool_call"]
        tokens = trace.total_tokens.total_tokens if trace.total_tokens else None
        print(f"{label}: {fmt}, {len(trace.steps)} steps, {tokens} tokens, tools {tools}")
    report = compare(baseline, candidate)
    print(render(report, "terminal", RenderOptions(width=120)))
    print(f"gate passed: {report.passed}")


if __name__ == "__main__":
    main()
