"""Capture OTel GenAI-semconv spans from a real pydantic-ai agent, offline.

The agent, its tool execution, pydantic-ai's own instrumentation and the OpenTelemetry SDK
(`InMemorySpanExporter`) are the real code; only the language model is a scripted
`FunctionModel` that plays back tool calls and reports fixed token usage, and the tools return
fixed data. Facts are recorded from the live run: inside the tool functions and the scripted model.

Every scenario side is run three times with pydantic-ai's three instrumentation formats, each
written in its own shape (the runs are deterministic, and the script checks that their facts agree):

- `<side>.spans.json`        default format (version 5), `ReadableSpan.to_json()` list
- `<side>.otlp.json`         newest format (version 6), OTLP/JSON (hex ids, `*UnixNano` strings)
- `<side>.legacy.spans.json` deprecated format (version 2: `running tool` spans with
                              `tool_arguments`/`tool_response`, no `invoke_agent` operation)

Usage: python scripts/capture/genai.py OUT_ROOT   (writes OUT_ROOT/genai/...)
"""

from __future__ import annotations

import base64
import json
import re
import sys
import warnings
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.usage import RequestUsage

SOURCE = "genai"
AGENT_NAME = "weather_agent"
MODEL_NAME = "scripted-genai-1"
PROMPT = "What's the weather like in Paris right now? Give me the temperature in Celsius."
PACKAGES = (
    "pydantic-ai-slim",
    "opentelemetry-sdk",
    "opentelemetry-exporter-otlp-proto-common",
    "protobuf",
)
SHAPES = {  # shape -> (instrumentation version, file suffix, writer)
    "spans": (5, "spans.json", "to_json"),
    "otlp": (6, "otlp.json", "otlp"),
    "legacy_spans": (2, "legacy.spans.json", "to_json"),
}

PARIS = {"lat": 48.8566, "lon": 2.3522}
GEOCODE = ("geocode", {"city": "Paris"})
WEATHER = ("get_weather", dict(PARIS))
SEARCH = ("web_search", {"query": "Paris weather right now"})
ANSWER = "It is 18.0 °C and partly cloudy in Paris right now."
REWORDED = "Paris currently has partly cloudy skies with a temperature of 18.0 °C."

Turn = tuple[str, dict[str, Any]] | str
BASE: list[Turn] = [GEOCODE, WEATHER, ANSWER]
PLANS: dict[str, dict[str, list[Turn]]] = {
    "identical": {"baseline": BASE, "candidate": BASE},
    "detour": {"baseline": BASE, "candidate": [GEOCODE, SEARCH, WEATHER, ANSWER]},
    "loop": {"baseline": BASE, "candidate": [GEOCODE, WEATHER, WEATHER, WEATHER, WEATHER, ANSWER]},
    "error_retry": {"baseline": BASE, "candidate": [GEOCODE, WEATHER, WEATHER, ANSWER]},
    "reworded": {"baseline": BASE, "candidate": [GEOCODE, WEATHER, REWORDED]},
}
FAIL_FIRST_WEATHER = {("error_retry", "candidate")}
WEATHER_ERROR = "weather service timed out (upstream 504); try again"


@dataclass
class Recorder:
    """What the live run did, recorded by the scripted model and the tools themselves."""

    plan: list[Turn]
    fail_first_weather: bool
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    final_output: str | None = None

    def model(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """The scripted model: play back the next turn of the plan, with fixed usage."""
        turn = self.plan[self.llm_calls]
        usage = RequestUsage(
            input_tokens=180 + 45 * self.llm_calls,
            output_tokens=(len(turn) // 4) if isinstance(turn, str) else 14,
        )
        self.llm_calls += 1
        self.prompt_tokens += usage.input_tokens
        self.completion_tokens += usage.output_tokens
        if isinstance(turn, str):
            self.final_output = turn
            return ModelResponse(parts=[TextPart(turn)], usage=usage, model_name=MODEL_NAME)
        name, args = turn
        return ModelResponse(
            parts=[ToolCallPart(name, dict(args))], usage=usage, model_name=MODEL_NAME
        )

    def record(self, name: str, arguments: dict[str, Any], error: str | None = None) -> None:
        self.tool_calls.append({"name": name, "arguments": arguments, "error": error})

    def facts(self, scenario: str, side: str) -> dict[str, Any]:
        return {
            "source": SOURCE,
            "scenario": scenario,
            "side": side,
            "agent_name": AGENT_NAME,
            "tool_calls": self.tool_calls,
            "llm_calls": self.llm_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "cost_usd": None,
            "final_output": self.final_output,
            "produced_by": produced_by(),
        }


def build_agent(recorder: Recorder, settings: InstrumentationSettings) -> Agent[None, str]:
    """The weather agent with its three tools, instrumented with `settings`."""
    agent: Agent[None, str] = Agent(
        FunctionModel(recorder.model, model_name=MODEL_NAME),
        name=AGENT_NAME,
        retries=2,
        instructions="You are a concise weather assistant.",
    )
    agent.instrument = settings

    @agent.tool_plain
    def geocode(city: str) -> dict[str, Any]:
        """Look up latitude/longitude for a city name."""
        recorder.record("geocode", {"city": city})
        return {"city": city, "country": "FR", **PARIS}

    @agent.tool_plain
    def get_weather(lat: float, lon: float) -> dict[str, Any]:
        """Current weather at a coordinate."""
        if recorder.fail_first_weather:
            recorder.fail_first_weather = False
            recorder.record("get_weather", {"lat": lat, "lon": lon}, WEATHER_ERROR)
            raise ModelRetry(WEATHER_ERROR)
        recorder.record("get_weather", {"lat": lat, "lon": lon})
        return {"conditions": "partly cloudy", "temp_c": 18.0, "humidity": 62}

    @agent.tool_plain
    def web_search(query: str) -> list[dict[str, str]]:
        """Search the web and return the top results."""
        recorder.record("web_search", {"query": query})
        return [
            {
                "title": "Paris weather",
                "url": "https://weather.example/paris",
                "snippet": f"Current conditions for: {query}",
            }
        ]

    return agent


def run(scenario: str, side: str, fmt: int) -> tuple[list[ReadableSpan], Recorder]:
    """One live run of the agent; returns the finished spans and what was recorded."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "weather-agent-genai"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    recorder = Recorder(PLANS[scenario][side], (scenario, side) in FAIL_FIRST_WEATHER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # version 2 is deprecated; captured on purpose
        settings = InstrumentationSettings(
            tracer_provider=provider, version=fmt, include_content=True
        )
    result = build_agent(recorder, settings).run_sync(PROMPT)
    assert result.output == recorder.final_output, "final output differs from the script"
    provider.shutdown()
    return list(exporter.get_finished_spans()), recorder


def to_span_json(spans: list[ReadableSpan]) -> Any:
    return [json.loads(span.to_json()) for span in spans]


def to_otlp_json(spans: list[ReadableSpan]) -> Any:
    """OTLP/JSON as the spec writes it: protobuf JSON mapping with hex trace/span ids."""
    document = MessageToDict(encode_spans(spans))
    for resource_spans in document["resourceSpans"]:
        for scope_spans in resource_spans["scopeSpans"]:
            for span in scope_spans["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return document


WRITERS = {"to_json": to_span_json, "otlp": to_otlp_json}
WRITTEN_AS = {
    "to_json": "a JSON list of ReadableSpan.to_json() dicts",
    "otlp": "OTLP/JSON (encode_spans + MessageToDict, ids as hex)",
}


def scrub(text: str) -> str:
    """Rewrite this machine's paths in tracebacks to `/app/...`."""
    for prefix in sorted({sys.prefix, sys.base_prefix, str(Path.cwd())}, key=len, reverse=True):
        text = text.replace(prefix, "/app")
    return re.sub(r'File \\"/(?!app/)[^"\\]*/', r'File \\"/app/', text)


def produced_by() -> dict[str, str]:
    return {name: version(name) for name in PACKAGES}


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(scrub(json.dumps(data, indent=1, ensure_ascii=False)) + "\n", encoding="utf-8")


def capture(out: Path) -> None:
    for scenario, sides in PLANS.items():
        for side in sides:
            facts: dict[str, Any] | None = None
            for fmt, suffix, writer in SHAPES.values():
                spans, recorder = run(scenario, side, fmt)
                write_json(out / scenario / f"{side}.{suffix}", WRITERS[writer](spans))
                these = recorder.facts(scenario, side)
                assert facts is None or facts == these, f"{scenario}/{side}: runs disagree"
                facts = these
            write_json(out / scenario / f"{side}.facts.json", facts)
    write_json(out / "manifest.json", manifest())


def manifest() -> dict[str, Any]:
    how = "pydantic-ai Agent + scripted FunctionModel, InstrumentationSettings(version={v})"
    return {
        "source": SOURCE,
        "capture_script": "scripts/capture/genai.py",
        "produced_by": produced_by(),
        "shapes": {
            shape: {
                "adapter": "openinference",
                "file": f"<side>.{suffix}",
                "emulated": False,
                "description": f"{how.format(v=fmt)}; {WRITTEN_AS[writer]}",
            }
            for shape, (fmt, suffix, writer) in SHAPES.items()
        },
    }


if __name__ == "__main__":
    capture(Path(sys.argv[1]) / SOURCE)
