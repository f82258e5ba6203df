"""Capture real CrewAI output offline: a 2-agent / 2-task crew against a scripted model.

Run through `scripts/capture/capture.sh crewai` (own venv: crewai pins openai 2.x). The crew is
real CrewAI 1.15.30 code with native tool calling through its OpenAI provider; the provider is
pointed at an in-process Chat Completions endpoint on 127.0.0.1 that plays back a script. No
network, no API keys, telemetry and CrewAI tracing off.

For each scenario (identical, detour, loop, error_retry, reworded) and side (baseline,
candidate) it writes, under `<root>/crewai/<scenario>/`:

- `<side>.kickoff.json`: `CrewOutput.model_dump(mode="json")` (tasks keep `messages`,
  `tool_failures`);
- `<side>.events.json`: CrewAI's trace-event batch `{"events": [...], "batch_metadata": ...}`,
  built from every event-bus event with CrewAI's own `TraceCollectionListener._create_trace_event`
  and sorted the way `TraceBatchManager.finalize_batch` sorts before posting;
- `<side>.facts.json`: what happened in the live run, recorded inside the tools and the scripted
  endpoint (never read back from the serialized output).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import version
from pathlib import Path
from typing import Any

# This file is named like the package it captures: keep its own folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
os.environ.update(
    {
        "CREWAI_DISABLE_TELEMETRY": "true",
        "OTEL_SDK_DISABLED": "true",
        "CREWAI_TRACING_ENABLED": "false",
        "CREWAI_TESTING": "true",
        "OPENAI_API_KEY": "sk-scripted-offline",
    }
)

from crewai import LLM, Agent, Crew, Process, Task  # noqa: E402
from crewai.events.event_bus import crewai_event_bus  # noqa: E402
from crewai.events.listeners.tracing.trace_listener import TraceCollectionListener  # noqa: E402
from crewai.tasks.task_output import TaskOutput  # noqa: E402
from crewai.tools import tool  # noqa: E402

SOURCE = os.environ.get("AGENTDIFF_CAPTURE_SOURCE", "crewai")
"""`crewai`, or `crewai_legacy` when `crewai_legacy.py` runs this script on an older release."""
CREW_NAME = "travel_weather_crew"
WEATHER, ADVISOR = "Weather Researcher", "Travel Advisor"
PRODUCED_BY = {pkg: version(pkg) for pkg in ("crewai", "openai")}
PARIS = {"latitude": 48.8566, "longitude": 2.3522}
WEATHER_TEXT = "Paris right now: 18.4°C, light rain, humidity 81%, wind 14 km/h."
ADVICE_TEXT = (
    "It's about 65°F (18.4°C) in Paris with light rain. Pack a compact umbrella, a light "
    "waterproof jacket and shoes that can handle wet pavements."
)
REWORDED_WEATHER = "Currently in Paris: light rain at 18.4°C, 81% humidity and a 14 km/h wind."
REWORDED_ADVICE = (
    "Expect roughly 65°F (18.4°C) and drizzle in Paris: bring an umbrella, a thin "
    "rain jacket and water-resistant shoes."
)
TOOL_ERROR = "weather service unavailable (HTTP 503), please retry"


# --------------------------------------------------------------------------- the live record
@dataclass
class Recorder:
    """What the live run did, written by the tools and the scripted endpoint."""

    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    fail_next: set[str] = field(default_factory=set)
    script: dict[str, list[Any]] = field(default_factory=dict)

    def tool(self, agent: str, name: str, arguments: dict[str, Any]) -> None:
        error = TOOL_ERROR if name in self.fail_next else None
        self.fail_next.discard(name)
        self.tool_calls.append(
            {"name": name, "arguments": arguments, "error": error, "agent": agent}
        )
        if error:
            raise RuntimeError(error)


REC = Recorder()


@tool("geocode")
def geocode(city: str) -> str:
    """Look up latitude and longitude for a city name."""
    REC.tool(WEATHER, "geocode", {"city": city})
    return json.dumps({**PARIS, "display_name": "Paris, Île-de-France, France"})


@tool("get_weather")
def get_weather(latitude: float, longitude: float) -> str:
    """Get current weather (temperature in Celsius, conditions, humidity, wind) at a location."""
    REC.tool(WEATHER, "get_weather", {"latitude": latitude, "longitude": longitude})
    return json.dumps(
        {
            "latitude": latitude,
            "longitude": longitude,
            "observed_at": "2026-11-30T06:00:00Z",
            "temperature_c": 18.4,
            "condition": "light rain",
            "humidity": 81,
            "wind_kph": 14,
        }
    )


@tool("search")
def search(query: str) -> str:
    """Search the web and return the top result snippets."""
    REC.tool(WEATHER, "search", {"query": query})
    return json.dumps([{"title": "Paris weather today", "snippet": "Light rain, around 18°C."}])


@tool("calculator")
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression such as `18.4 * 9 / 5 + 32`."""
    REC.tool(ADVISOR, "calculator", {"expression": expression})
    numbers = [float(n) for n in re.findall(r"[\d.]+", expression)]
    return str(round(numbers[0] * numbers[1] / numbers[2] + numbers[3], 2))


# --------------------------------------------------------------------------- scenarios
def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


GEOCODE = [_call("geocode", city="Paris")]
WEATHER_CALL = [_call("get_weather", **PARIS)]
CALC = [_call("calculator", expression="18.4 * 9 / 5 + 32")]
BASELINE = {WEATHER: [GEOCODE, WEATHER_CALL, WEATHER_TEXT], ADVISOR: [CALC, ADVICE_TEXT]}
CANDIDATES: dict[str, dict[str, list[Any]]] = {
    "identical": BASELINE,
    "detour": {
        WEATHER: [
            GEOCODE,
            [_call("search", query="Paris weather today")],
            WEATHER_CALL,
            WEATHER_TEXT,
        ],
        ADVISOR: [CALC, ADVICE_TEXT],
    },
    "loop": {
        WEATHER: [GEOCODE, WEATHER_CALL, WEATHER_CALL, WEATHER_CALL, WEATHER_CALL, WEATHER_TEXT],
        ADVISOR: [CALC, ADVICE_TEXT],
    },
    "error_retry": {
        WEATHER: [GEOCODE, WEATHER_CALL, WEATHER_CALL, WEATHER_TEXT],
        ADVISOR: [CALC, ADVICE_TEXT],
    },
    "reworded": {
        WEATHER: [GEOCODE, WEATHER_CALL, REWORDED_WEATHER],
        ADVISOR: [CALC, REWORDED_ADVICE],
    },
}
FAILS = {"error_retry": {"get_weather"}}


# --------------------------------------------------------------------------- scripted endpoint
def _turn(messages: list[dict[str, Any]]) -> Any:
    """The scripted reply: which agent is asking (system prompt) and how far it got (tool results)."""
    system = str(messages[0].get("content", ""))
    agent = WEATHER if system.startswith(f"You are {WEATHER}") else ADVISOR
    done = sum(1 for m in messages if m.get("role") == "tool")
    return REC.script[agent][done]


def _completion(request: dict[str, Any]) -> dict[str, Any]:
    turn = _turn(request["messages"])
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if isinstance(turn, str):
        message["content"], finish = turn, "stop"
    else:
        message["tool_calls"] = [
            {
                "id": "call_" + secrets.token_urlsafe(18)[:24],
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
            }
            for c in turn
        ]
        finish = "tool_calls"
    prompt = max(1, len(json.dumps(request["messages"])) // 4)
    completion = max(1, len(json.dumps(message)) // 4)
    REC.llm_calls += 1
    REC.prompt_tokens += prompt
    REC.completion_tokens += completion
    return {
        "id": "chatcmpl-" + secrets.token_urlsafe(22)[:29],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "gpt-4o-mini"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


class ScriptedChatCompletions(BaseHTTPRequestHandler):
    """`POST .../chat/completions` → the next scripted turn, with usage."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if not self.path.endswith("/chat/completions"):
            self.send_error(404)
            return
        payload = json.dumps(_completion(body)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        """Quiet."""


# --------------------------------------------------------------------------- event batch
class EventTap:
    """Every event-bus emission, turned into CrewAI's own trace-event records."""

    def __init__(self) -> None:
        self.seen: list[tuple[Any, Any]] = []
        self._emit = crewai_event_bus.emit
        crewai_event_bus.emit = self._tap  # type: ignore[method-assign]

    def _tap(self, source: Any, event: Any) -> Any:
        result = self._emit(source, event)
        self.seen.append((source, event))
        return result

    def batch(self) -> dict[str, Any]:
        listener = TraceCollectionListener()
        # CrewAI's own event → TraceEvent conversion (what its tracing backend receives).
        events = [
            listener._create_trace_event(e.type, s, e)  # noqa: SLF001
            for s, e in self.seen
        ]
        events.sort(
            key=lambda e: (
                e.emission_sequence if e.emission_sequence is not None else float("inf"),
                e.timestamp or "",
            )
        )
        self.seen.clear()
        return {
            "events": [e.to_dict() for e in events],
            "batch_metadata": {
                "events_count": len(events),
                "batch_sequence": 1,
                "is_final_batch": True,
            },
        }


# --------------------------------------------------------------------------- the crew
def build_crew(base_url: str) -> tuple[Crew, list[Task]]:
    # One LLM per agent: when agents share an LLM object, CrewAI 1.15.30 adds the shared
    # usage once per agent and CrewOutput.token_usage comes out doubled.
    def llm() -> LLM:
        return LLM(
            model="gpt-4o-mini", base_url=base_url, api_key="sk-scripted-offline", temperature=0.2
        )

    researcher = Agent(
        role=WEATHER,
        goal="Find accurate, current weather for the traveller's destination",
        backstory="A meteorology analyst who always checks live data sources.",
        tools=[geocode, get_weather, search],
        llm=llm(),
        allow_delegation=False,
        max_iter=10,
        cache=False,
    )
    advisor = Agent(
        role=ADVISOR,
        goal="Turn weather reports into practical packing advice",
        backstory="A seasoned travel planner who explains weather in the units travellers use.",
        tools=[calculator],
        llm=llm(),
        allow_delegation=False,
        max_iter=10,
        cache=False,
    )
    research = Task(
        name="weather_research",
        agent=researcher,
        description="Find the current weather in {city}: temperature in Celsius, "
        "conditions, humidity and wind.",
        expected_output="A one-line weather report for {city}.",
    )
    advice = Task(
        name="packing_advice",
        agent=advisor,
        context=[research],
        description="Using the weather report, give the temperature in Fahrenheit and "
        "2-3 packing tips for a traveller going to {city} today.",
        expected_output="Fahrenheit temperature plus short packing advice.",
    )
    crew = Crew(
        name=CREW_NAME,
        agents=[researcher, advisor],
        tasks=[research, advice],
        process=Process.sequential,
        cache=False,
        tracing=False,
        verbose=False,
    )
    return crew, [research, advice]


_ABSOLUTE = re.compile(r"(/[\w.\-]+)+/(site-packages|scripts|src)/")


def _scrub(text: str) -> str:
    """Rewrite this machine's paths (in tracebacks) to `/app/...`."""
    return _ABSOLUTE.sub(r"/app/\2/", text).replace(str(Path.cwd()), "/app")


def run_side(scenario: str, side: str, base_url: str, out: Path, tap: EventTap) -> None:
    REC.tool_calls.clear()
    REC.llm_calls = REC.prompt_tokens = REC.completion_tokens = 0
    REC.script = CANDIDATES[scenario] if side == "candidate" else BASELINE
    REC.fail_next = set(FAILS.get(scenario, set())) if side == "candidate" else set()
    crew, _ = build_crew(base_url)
    result = crew.kickoff(inputs={"city": "Paris"})
    crewai_event_bus.flush()
    facts = {
        "source": SOURCE,
        "scenario": scenario,
        "side": side,
        "agent_name": CREW_NAME,
        "tool_calls": list(REC.tool_calls),
        "llm_calls": REC.llm_calls,
        "prompt_tokens": REC.prompt_tokens,
        "completion_tokens": REC.completion_tokens,
        "total_tokens": REC.prompt_tokens + REC.completion_tokens,
        "cost_usd": None,
        "final_output": result.raw,
        "produced_by": PRODUCED_BY,
    }
    documents = {"kickoff": result.model_dump(mode="json"), "events": tap.batch(), "facts": facts}
    for shape, document in documents.items():
        text = _scrub(json.dumps(document, indent=1, ensure_ascii=False, default=str))
        (out / f"{side}.{shape}.json").write_text(text + "\n", encoding="utf-8")


def write_manifest(root: Path) -> None:
    manifest = {
        "source": SOURCE,
        "capture_script": f"scripts/capture/{SOURCE}.py",
        "produced_by": PRODUCED_BY,
        "shapes": {
            "kickoff": {
                "adapter": "crewai",
                "file": "<side>.kickoff.json",
                "emulated": False,
                "description": "CrewOutput.model_dump(mode='json') of crew.kickoff(); "
                + (
                    "tasks keep messages and tool_failures"
                    if "tool_failures" in TaskOutput.model_fields
                    else "tasks keep messages; no tool_failures (this release has none): a "
                    "failed tool is only the 'Error executing tool: ...' text"
                ),
            },
            "events": {
                "adapter": "crewai",
                "file": "<side>.events.json",
                "emulated": False,
                "description": "CrewAI trace-event batch {events, batch_metadata}: every "
                "event-bus event through TraceCollectionListener._create_trace_event, "
                "sorted as TraceBatchManager.finalize_batch does",
            },
        },
    }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def main(fixtures_root: str) -> None:
    root = Path(fixtures_root) / SOURCE
    server = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedChatCompletions)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    tap = EventTap()
    try:
        for scenario in CANDIDATES:
            out = root / scenario
            out.mkdir(parents=True, exist_ok=True)
            for side in ("baseline", "candidate"):
                run_side(scenario, side, base_url, out, tap)
                print(f"crewai/{scenario}/{side}: ok")
        write_manifest(root)
    finally:
        server.shutdown()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/real")
