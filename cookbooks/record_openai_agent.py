"""Cookbook: record your own OpenAI-SDK agent with `agentdiff.record`, then diff a prompt change.

Offline: the real `openai` SDK talks over HTTP to a scripted Chat Completions server on
127.0.0.1 (`support/scripted_openai.py`), so the agent loop, the tool calls and the token usage
are exactly what the SDK returns.

1. The agent (a tool-calling loop) records each model call with `run.step("llm_call", ...)` and
   `step.record_response(response)` (tokens + model), and each tool with `@traced`.
2. It runs twice: the baseline prompt, then a candidate prompt that asks it to confirm with a
   web search. Each run is written atomically as canonical AgentTrace JSON.
3. `compare()` shows the detour (one extra `web_search` and one extra model call) and the gate
   blocks the token increase. `tests/record/test_openai_cookbook.py` gates the same agent with
   the pytest plugin's `agentdiff_baseline` fixture.

Run: `python cookbooks/record_openai_agent.py`
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from openai import OpenAI
from rich.console import Console

from agentdiff import compare, load_trace
from agentdiff.models.trace import AgentTrace
from agentdiff.record import record_run, traced
from agentdiff.render import RenderOptions, render
from agentdiff.render.tree import trace_tree

try:
    from support.scripted_openai import scripted_openai
except ImportError:  # imported from the tests, with the repository root on sys.path
    from cookbooks.support.scripted_openai import scripted_openai

BASELINE_PROMPT = "You are a concise weather assistant."
CANDIDATE_PROMPT = (
    "You are a careful weather assistant. Always confirm the forecast with a web search."
)
QUESTION = "What's the weather like in Paris right now?"
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
            },
        },
    }
    for name, description, properties in (
        ("geocode", "Latitude/longitude of a city.", {"city": {"type": "string"}}),
        (
            "get_weather",
            "Current weather at a coordinate.",
            {"lat": {"type": "number"}, "lon": {"type": "number"}},
        ),
        ("web_search", "Search the web.", {"query": {"type": "string"}}),
    )
]


@traced
def geocode(city: str) -> dict[str, Any]:
    return {"city": city, "country": "FR", "lat": 48.8566, "lon": 2.3522}


@traced
def get_weather(lat: float, lon: float) -> dict[str, Any]:
    return {"conditions": "partly cloudy", "temp_c": 18.0, "at": [lat, lon]}


@traced
def web_search(query: str) -> list[dict[str, str]]:
    return [{"title": "Paris weather", "snippet": f"Current conditions for: {query}"}]


TOOL_FUNCTIONS = {f.__name__: f for f in (geocode, get_weather, web_search)}


def run_agent(base_url: str, system_prompt: str, path: Path | None = None) -> AgentTrace:
    """One run of the tool-calling loop, recorded (and written to `path` when given)."""
    client = OpenAI(base_url=base_url, api_key="sk-offline-scripted", max_retries=0)
    messages: list[Any] = [
        {"role": "system", "content": system_prompt},
        {"role": "user", "content": QUESTION},
    ]
    with record_run("weather-agent", task_input={"question": QUESTION}, path=path) as run:
        for _ in range(8):
            with run.step("llm_call", "chat.completions", {"messages": messages}) as step:
                response = client.chat.completions.create(
                    model="gpt-4o-mini", messages=messages, tools=TOOLS
                )
                step.record_response(response)
                message = response.choices[0].message
                step.output = message
            messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                run.final_output = {"answer": message.content}
                break
            for call in message.tool_calls:
                function = TOOL_FUNCTIONS[call.function.name]
                result = function(**json.loads(call.function.arguments))
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}
                )
    return run.build() if run.trace is None else run.trace


def main() -> None:
    console = Console(width=120)
    with scripted_openai() as base_url, tempfile.TemporaryDirectory() as folder:
        paths = {side: Path(folder) / f"{side}.json" for side in ("baseline", "candidate")}
        run_agent(base_url, BASELINE_PROMPT, paths["baseline"])
        run_agent(base_url, CANDIDATE_PROMPT, paths["candidate"])
        baseline, candidate = (load_trace(paths[side]) for side in ("baseline", "candidate"))
    for label, trace in (("baseline", baseline), ("candidate", candidate)):
        console.rule(f"{label}: {trace.metadata and trace.metadata['source_format']} trace")
        console.print(trace_tree(trace))
    report = compare(baseline, candidate)
    print(render(report, "terminal", RenderOptions(width=console.width)))
    print(f"gate passed: {report.passed}")


if __name__ == "__main__":
    main()
