"""Cookbook: load what CrewAI gives you (no OTel, no API keys) and diff two runs.

Offline, on real CrewAI runs committed under `tests/fixtures/real/crewai/` (captured by
`scripts/capture/crewai.py`: a Weather Researcher → Travel Advisor crew, two sequential tasks,
native tool calling, on a scripted model):

1. Load `crew.kickoff()` output saved with `CrewOutput.model_dump(mode="json")`; the format is
   auto-detected. Print the normalized step tree: one routing step per task, named by the
   agent's role, with that agent's tool calls and final answer underneath.
2. Load the same run's CrewAI trace-event batch (`{"events": [...]}`): it adds per-LLM-call
   tokens and timings, and finds the same tool calls.
3. Diff the `error_retry` pair: the candidate's `get_weather` failed once (a `tool_failures`
   record) and the identical retry succeeded.
4. Diff the `loop` pair: the candidate called `get_weather` four times in a row.

Run: `python cookbooks/ingestion_crewai.py`
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from agentdiff import compare, load_trace
from agentdiff.models.trace import AgentTrace, StepStatus, StepType
from agentdiff.render import RenderOptions, render
from agentdiff.render.tree import trace_tree

CREWAI = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real" / "crewai"


def tool_calls(trace: AgentTrace) -> list[str]:
    """`name(arguments)` for every tool step, in execution order."""
    return [
        f"{s.name}({s.input_payload})" for s in trace.steps if s.step_type is StepType.TOOL_CALL
    ]


def main() -> None:
    console = Console(width=120)

    kickoff = load_trace(CREWAI / "error_retry" / "candidate.kickoff.json")
    tokens = kickoff.total_tokens
    console.rule("CrewAI kickoff output (error_retry candidate)")
    console.print(
        f"format: {(kickoff.metadata or {})['source_format']}, agents: "
        f"{kickoff.agent_name}, {tokens.total_tokens if tokens else None} tokens"
    )
    console.print(trace_tree(kickoff))
    for step in kickoff.steps:
        if step.status is StepStatus.ERROR:
            console.print(f"failed: {step.name}({step.input_payload}): {step.error_message}")

    events = load_trace(CREWAI / "error_retry" / "candidate.events.json")
    turns = compare(events, events).baseline.model_turns
    console.rule("the same run as a CrewAI trace-event batch")
    console.print(
        f"crew {events.agent_name}: {turns} model turns, "
        f"{events.total_tokens.total_tokens if events.total_tokens else None} tokens, "
        f"{events.total_latency_ms or 0:.0f} ms; "
        f"same tool calls {tool_calls(events) == tool_calls(kickoff)}"
    )
    console.print(f"divergence from the kickoff dump {compare(kickoff, events).divergence:.2f}")

    for scenario, shape in (("error_retry", "kickoff"), ("loop", "events")):
        console.rule(f"{scenario}: baseline vs candidate ({shape})")
        report = compare(
            load_trace(CREWAI / scenario / f"baseline.{shape}.json"),
            load_trace(CREWAI / scenario / f"candidate.{shape}.json"),
        )
        print(render(report, "terminal", RenderOptions(width=console.width)))


if __name__ == "__main__":
    main()
