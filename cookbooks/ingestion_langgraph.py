"""Cookbook: load what LangGraph gives you (no OTel, no API keys) and diff two runs.

Offline, on real LangGraph runs committed under `tests/fixtures/real/langgraph/` (captured by
`scripts/capture/langchain.py`: a `create_react_agent` weather assistant on a scripted model):

1. Load a state snapshot (`graph.get_state(config)` saved as JSON); the format is auto-detected.
   Print the normalized step tree: routing steps (the AI turns that asked for tools) with the
   tool calls they asked for underneath, and the final answer.
2. The same run saved six other ways (`messages_to_dict`, `dumpd(result)`, `model_dump()`,
   OpenAI-style dicts, the checkpoint, the CheckpointTuple) normalizes to the same tool calls.
3. Diff the `detour` pair: the candidate made one extra `web_search` call.
4. Diff the `loop` pair: the candidate called `get_weather` four times in a row.

Run: `python cookbooks/ingestion_langgraph.py`
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from agentdiff import compare, load_trace
from agentdiff.models.trace import AgentTrace, StepType
from agentdiff.render import RenderOptions, render
from agentdiff.render.tree import trace_tree

LANGGRAPH = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real" / "langgraph"
SHAPES = ("messages", "lc_dumps", "model_dump", "openai", "checkpoint", "channel_values")


def tool_calls(trace: AgentTrace) -> list[str]:
    """`name(arguments)` for every tool step, in execution order."""
    return [
        f"{s.name}({s.input_payload})" for s in trace.steps if s.step_type is StepType.TOOL_CALL
    ]


def main() -> None:
    console = Console(width=120)

    state = load_trace(LANGGRAPH / "detour" / "candidate.state.json")
    meta = state.metadata or {}
    console.rule("LangGraph state snapshot (detour candidate)")
    console.print(
        f"format: {meta['source_format']}, thread {state.trace_id}, "
        f"snapshot taken {meta.get('created_at')}"
    )
    console.print(trace_tree(state))

    for shape in SHAPES:
        other = load_trace(LANGGRAPH / "detour" / f"candidate.{shape}.json")
        tokens = other.total_tokens.total_tokens if other.total_tokens else None
        console.print(
            f"{shape:>15}: same tool calls {tool_calls(other) == tool_calls(state)}, "
            f"{tokens} tokens"
        )

    for scenario, shape in (("detour", "state"), ("loop", "messages")):
        console.rule(f"{scenario}: baseline vs candidate ({shape})")
        report = compare(
            load_trace(LANGGRAPH / scenario / f"baseline.{shape}.json"),
            load_trace(LANGGRAPH / scenario / f"candidate.{shape}.json"),
        )
        print(render(report, "terminal", RenderOptions(width=console.width)))


if __name__ == "__main__":
    main()
