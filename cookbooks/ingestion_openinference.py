"""Cookbook: load OpenTelemetry traces (OpenInference and GenAI semconv) and diff two runs.

Offline, on real traces committed under `tests/fixtures/real/`:

1. A LangGraph agent traced by `openinference-instrumentation-langchain`, saved as OTLP/JSON:
   load it (the format is auto-detected), print the normalized step tree.
2. The same run written as OTLP JSON Lines (the OTel file exporter's format) loads the same.
3. A pydantic-ai agent traced with the OTel GenAI semantic conventions: its candidate run
   called `get_weather` four times in a row; `compare()` finds the loop.

Run: `python cookbooks/ingestion_openinference.py`
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from agentdiff import compare, load_trace
from agentdiff.models.trace import AgentTrace, StepType
from agentdiff.render import RenderOptions, render
from agentdiff.render.tree import trace_tree

REAL = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real"


def tool_calls(trace: AgentTrace) -> list[str]:
    """`name(arguments)` for every tool step, in execution order."""
    return [
        f"{s.name}({s.input_payload})" for s in trace.steps if s.step_type is StepType.TOOL_CALL
    ]


def main() -> None:
    console = Console(width=120)

    otlp = load_trace(REAL / "openinference" / "detour" / "candidate.otlp.json")
    console.rule("OpenInference spans (LangGraph), OTLP/JSON")
    console.print(trace_tree(otlp))

    jsonl = load_trace(REAL / "openinference" / "detour" / "candidate.otlp_jsonl.jsonl")
    same = tool_calls(jsonl) == tool_calls(otlp)
    console.print(f"OTLP JSON Lines loads the same tool calls: {same}")

    console.rule("GenAI semconv spans (pydantic-ai): baseline vs loop candidate")
    baseline = load_trace(REAL / "genai" / "loop" / "baseline.spans.json")
    candidate = load_trace(REAL / "genai" / "loop" / "candidate.otlp.json")
    for label, trace in (("baseline", baseline), ("candidate", candidate)):
        tokens = trace.total_tokens.total_tokens if trace.total_tokens else None
        console.print(
            f"{label}: {len(trace.steps)} steps, {tokens} tokens, "
            f"tools: {', '.join(tool_calls(trace))}"
        )
    print(render(compare(baseline, candidate), "terminal", RenderOptions(width=console.width)))


if __name__ == "__main__":
    main()
