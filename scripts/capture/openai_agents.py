"""Capture real OpenAI Agents SDK traces offline: `python openai_agents.py OUT_ROOT`.

A triage agent hands off to a weather agent with the tools geocode / get_weather / search /
calculator. Both agents use the SDK's real model classes (`OpenAIResponsesModel` for the triage
agent, `OpenAIChatCompletionsModel` for the weather agent) on a real `openai.AsyncOpenAI` client
whose HTTP transport is a scripted, in-process endpoint: the agent loop, the tool runner, the
tracing spans and the exporter are all SDK code; only the language model's answers are played back.

Per scenario and side this writes into `OUT_ROOT/openai_agents/<scenario>/`:
- `<side>.json`: `{"trace": trace.export(), "spans": [span.export(), ...]}` (spans in end order,
  as a `TracingProcessor` receives them);
- `<side>.ingest.json`: the `{"data": [...]}` body `BackendSpanExporter` POSTs to the OpenAI
  traces ingest endpoint (its own sanitizer; the POST is caught by a mock transport);
- `<side>.trace_object.json`: the spec's "top-level trace object with a flat list of spans":
  `{**trace.export(), "spans": [span.export(), ...]}` (assembled from the same exports);
- `<side>.facts.json`: what the live run did (recorded inside the tools and the scripted endpoint).

`CAPTURE_ONLY=shape,shape` writes only those shapes, after checking that the run's facts equal
the facts already on disk (so new shapes join fixtures captured earlier).
`CAPTURE_SCENARIOS=parallel` runs only the named scenarios (the others stay as captured).

Besides the five scenarios every source has, `parallel` is a fan-out: one model message asks for
`geocode` and `search` at once (the candidate lists them in the other order). The facts record,
per model message, the tool calls it issued (`model_messages`), so tests can check which steps the
adapter puts in one turn.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx2
from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    function_tool,
    set_trace_processors,
)
from agents.tracing import Span, Trace, TracingProcessor
from agents.tracing.processors import BackendSpanExporter
from openai import AsyncOpenAI

SOURCE = "openai_agents"
PACKAGES = ("openai-agents", "openai", "pydantic", "httpx2")
PRODUCED_BY = {name: version(name) for name in PACKAGES}
SCENARIOS = ("identical", "detour", "loop", "error_retry", "reworded", "parallel")
PARIS = {"latitude": 48.8566, "longitude": 2.3522}
TASK = "What's the weather in Paris right now, in Fahrenheit?"
FINAL = "It is 65.1°F (18.4°C) in Paris right now, with light rain, 81% humidity and 14 km/h wind."
REWORDED = (
    "Paris currently has light rain at about 65°F (18.4°C); humidity is 81% and the "
    "wind blows at 14 km/h."
)


@dataclass
class Facts:
    """What the live run did, recorded where it happened."""

    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    model_messages: list[list[str]] = field(default_factory=list)
    """The names of the tool calls each model message issued, in its order ([] for none)."""
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    fail_next_weather: bool = False


FACTS = Facts()


# ---------------------------------------------------------------- tools (fixed data)


def _record(name: str, arguments: dict[str, Any], error: str | None = None) -> None:
    FACTS.tool_calls.append({"name": name, "arguments": arguments, "error": error})


def _tool_error(_ctx: Any, error: Exception) -> str:
    """Application-approved error text for the model (and the span): the exception message."""
    return f"Tool failed: {error}"


@function_tool(failure_error_function=_tool_error)
def geocode(city: str) -> dict[str, Any]:
    """Find the coordinates of a city."""
    _record("geocode", {"city": city})
    return {**PARIS, "display_name": "Paris, Île-de-France, France"}


@function_tool(failure_error_function=_tool_error)
def get_weather(latitude: float, longitude: float) -> dict[str, Any]:
    """Current weather at a coordinate."""
    arguments = {"latitude": latitude, "longitude": longitude}
    if FACTS.fail_next_weather:
        FACTS.fail_next_weather = False
        message = "weather service timed out after 5.0s (upstream 504)"
        _record("get_weather", arguments, error=message)
        raise TimeoutError(message)
    _record("get_weather", arguments)
    return {
        **arguments,
        "observed_at": "2026-11-30T06:00:00Z",
        "temperature_c": 18.4,
        "condition": "light rain",
        "humidity": 81,
        "wind_kph": 14,
    }


@function_tool(failure_error_function=_tool_error)
def search(query: str) -> str:
    """Search the web."""
    _record("search", {"query": query})
    return "Paris today: light rain, around 18°C, moderate wind (weather.example, 06:00 UTC)."


@function_tool(failure_error_function=_tool_error)
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    _record("calculator", {"expression": expression})
    allowed = set("0123456789.+-*/() ")
    if not set(expression) <= allowed:
        msg = f"unsupported expression: {expression!r}"
        raise ValueError(msg)
    return str(round(eval(expression), 2))


# ---------------------------------------------------------------- the scripted model endpoint

Call = tuple[str, dict[str, Any]]


def weather_script(scenario: str) -> list[list[Call] | str]:
    """The weather agent's turns: tool calls per turn, then the final text."""
    weather: Call = ("get_weather", dict(PARIS))
    geocode_call: Call = ("geocode", {"city": "Paris"})
    search_call: Call = ("search", {"query": "Paris weather today"})
    fan_out = {
        "parallel": [geocode_call, search_call],
        "parallel_swapped": [search_call, geocode_call],
    }
    turns: list[list[Call] | str] = [fan_out.get(scenario, [geocode_call])]
    if scenario == "detour":
        turns.append([search_call])
    repeats = {"loop": 4, "error_retry": 2}.get(scenario, 1)
    turns.extend([[weather]] * repeats)
    turns.append([("calculator", {"expression": "18.4 * 9 / 5 + 32"})])
    turns.append(REWORDED if scenario == "reworded" else FINAL)
    return turns


class ScriptedEndpoint:
    """Plays back the model's side of the conversation over HTTP, reporting token usage."""

    def __init__(self, scenario: str) -> None:
        self.weather_turns = weather_script(scenario)
        self.count = 0

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.count += 1
        prompt = len(json.dumps(body, sort_keys=True)) // 4
        if request.url.path.endswith("/responses"):
            return self._triage(prompt)
        return self._weather(prompt)

    def _usage(self, prompt: int, completion: int) -> tuple[int, int]:
        FACTS.llm_calls += 1
        FACTS.prompt_tokens += prompt
        FACTS.completion_tokens += completion
        return prompt, completion

    def _triage(self, prompt: int) -> httpx2.Response:
        inp, out = self._usage(prompt, 18)
        item = {
            "type": "function_call",
            "id": f"fc_{self.count:04d}",
            "status": "completed",
            "call_id": f"call_{self.count:04d}",
            "name": "transfer_to_weather_agent",
            "arguments": "{}",
        }
        return httpx2.Response(
            200,
            json={
                "id": f"resp_{self.count:04d}",
                "object": "response",
                "created_at": 1_780_000_000,
                "model": "gpt-4.1-mini",
                "status": "completed",
                "output": [item],
                "parallel_tool_calls": True,
                "tool_choice": "auto",
                "tools": [],
                "usage": {
                    "input_tokens": inp,
                    "output_tokens": out,
                    "total_tokens": inp + out,
                    "input_tokens_details": {"cached_tokens": 0},
                    "output_tokens_details": {"reasoning_tokens": 0},
                },
            },
        )

    def _weather(self, prompt: int) -> httpx2.Response:
        turn = self.weather_turns.pop(0)
        FACTS.model_messages.append([] if isinstance(turn, str) else [name for name, _ in turn])
        if isinstance(turn, str):
            message: dict[str, Any] = {"role": "assistant", "content": turn}
            finish, completion = "stop", len(turn) // 4
        else:
            calls = [
                {
                    "id": f"call_{self.count:04d}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
                for i, (name, args) in enumerate(turn)
            ]
            message = {"role": "assistant", "content": None, "tool_calls": calls}
            finish, completion = "tool_calls", 20 + 6 * len(calls)
        inp, out = self._usage(prompt, completion)
        return httpx2.Response(
            200,
            json={
                "id": f"chatcmpl-{self.count:04d}",
                "object": "chat.completion",
                "created": 1_780_000_000,
                "model": "gpt-4o-mini",
                "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                "usage": {
                    "prompt_tokens": inp,
                    "completion_tokens": out,
                    "total_tokens": inp + out,
                },
            },
        )


# ---------------------------------------------------------------- tracing capture


class Collector(TracingProcessor):
    """Keeps the finished trace and spans in memory (nothing is exported)."""

    def __init__(self) -> None:
        self.traces: list[Trace] = []
        self.spans: list[Span[Any]] = []

    def on_trace_start(self, trace: Trace) -> None:
        self.traces.append(trace)

    def on_trace_end(self, trace: Trace) -> None:
        pass

    def on_span_start(self, span: Span[Any]) -> None:
        pass

    def on_span_end(self, span: Span[Any]) -> None:
        self.spans.append(span)

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass


def ingest_body(items: list[Any]) -> dict[str, Any]:
    """The body `BackendSpanExporter.export` POSTs, caught by a mock transport."""
    posted: list[dict[str, Any]] = []

    def catch(request: httpx2.Request) -> httpx2.Response:
        posted.append(json.loads(request.content))
        return httpx2.Response(200, json={})

    exporter = BackendSpanExporter(api_key="sk-offline-capture")
    exporter._client = httpx2.Client(transport=httpx2.MockTransport(catch))  # noqa: SLF001
    exporter.export(items)
    if len(posted) != 1:
        msg = f"expected one ingest POST, got {len(posted)}"
        raise RuntimeError(msg)
    return posted[0]


# ---------------------------------------------------------------- one run


def build_agents(endpoint: ScriptedEndpoint) -> Agent[Any]:
    client = AsyncOpenAI(
        api_key="sk-offline-capture",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(endpoint)),
    )
    weather = Agent(
        name="Weather Agent",
        instructions="Answer weather questions with tools.",
        tools=[geocode, get_weather, search, calculator],
        model=OpenAIChatCompletionsModel(model="gpt-4o-mini", openai_client=client),
    )
    return Agent(
        name="Triage Agent",
        instructions="Hand weather questions to the Weather Agent.",
        handoffs=[weather],
        model=OpenAIResponsesModel(model="gpt-4.1-mini", openai_client=client),
    )


async def run_once(scenario: str, side: str) -> tuple[dict[str, Any], dict[str, Any], Facts, str]:
    """One run: the `export` and `ingest` documents, the facts and the final output."""
    global FACTS  # noqa: PLW0603 - the tools record into the current run's facts
    FACTS = Facts(fail_next_weather=(scenario == "error_retry" and side == "candidate"))
    collector = Collector()
    set_trace_processors([collector])
    live_scenario = {
        ("parallel", "baseline"): "parallel",
        ("parallel", "candidate"): "parallel_swapped",
    }.get((scenario, side), scenario if side == "candidate" else "baseline")
    endpoint = ScriptedEndpoint(live_scenario)
    config = RunConfig(
        workflow_name="weather-assistant",
        group_id=f"conv-{scenario}-{side}",
        trace_metadata={"scenario": scenario, "side": side},
    )
    result = await Runner.run(build_agents(endpoint), TASK, run_config=config)
    if len(collector.traces) != 1:
        msg = f"expected one trace, got {len(collector.traces)}"
        raise RuntimeError(msg)
    trace = collector.traces[0]
    export = {"trace": trace.export(), "spans": [span.export() for span in collector.spans]}
    ingest = ingest_body([trace, *collector.spans])
    return export, ingest, FACTS, str(result.final_output)


def facts_document(scenario: str, side: str, facts: Facts, final: str) -> dict[str, Any]:
    return {
        "source": SOURCE,
        "scenario": scenario,
        "side": side,
        "agent_name": "weather-assistant",
        "tool_calls": facts.tool_calls,
        **({"model_messages": facts.model_messages} if scenario == "parallel" else {}),
        "llm_calls": facts.llm_calls,
        "prompt_tokens": facts.prompt_tokens,
        "completion_tokens": facts.completion_tokens,
        "total_tokens": facts.prompt_tokens + facts.completion_tokens,
        "cost_usd": None,
        "final_output": final,
        "produced_by": PRODUCED_BY,
    }


def trace_object(export: dict[str, Any]) -> dict[str, Any]:
    """`{"object": "trace", "id", "workflow_name", ..., "spans": [...]}` from one export."""
    return {**export["trace"], "spans": export["spans"]}


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def manifest() -> dict[str, Any]:
    return {
        "source": SOURCE,
        "capture_script": "scripts/capture/openai_agents.py",
        "produced_by": PRODUCED_BY,
        "shapes": {
            "export": {
                "adapter": "openai_agents",
                "file": "<side>.json",
                "emulated": False,
                "description": "{trace: Trace.export(), spans: [Span.export()...]} as a "
                "TracingProcessor sees them (spans in end order)",
            },
            "ingest": {
                "adapter": "openai_agents",
                "file": "<side>.ingest.json",
                "emulated": False,
                "description": "the {data: [...]} body BackendSpanExporter POSTs to "
                "/v1/traces/ingest (sanitized: usage dropped from "
                "response spans)",
            },
            "trace_object": {
                "adapter": "openai_agents",
                "file": "<side>.trace_object.json",
                "emulated": True,
                "description": "the spec's top-level trace object holding its spans: "
                "{**Trace.export(), spans: [Span.export()...]} assembled from the same exports",
            },
        },
    }


def main(out_root: Path) -> None:
    out = out_root / SOURCE
    only = set(filter(None, os.environ.get("CAPTURE_ONLY", "").split(",")))
    chosen = set(filter(None, os.environ.get("CAPTURE_SCENARIOS", "").split(",")))
    scenarios = [s for s in SCENARIOS if not chosen or s in chosen]
    for scenario in scenarios:
        folder = out / scenario
        folder.mkdir(parents=True, exist_ok=True)
        for side in ("baseline", "candidate"):
            export, ingest, facts, final = asyncio.run(run_once(scenario, side))
            documents = {
                "export": export,
                "ingest": ingest,
                "trace_object": trace_object(export),
                "facts": facts_document(scenario, side, facts, final),
            }
            if only:
                stored = json.loads((folder / f"{side}.facts.json").read_text(encoding="utf-8"))
                if stored != documents["facts"]:
                    msg = f"{scenario}/{side}: facts differ from the stored ones; capture all"
                    raise RuntimeError(msg)
            files = {name: shape["file"] for name, shape in manifest()["shapes"].items()}
            files["facts"] = "<side>.facts.json"
            for name, document in documents.items():
                if not only or name in only:
                    write_json(folder / files[name].replace("<side>", side), document)
    write_json(out / "manifest.json", manifest())
    print(f"wrote {len(scenarios)} scenarios to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
