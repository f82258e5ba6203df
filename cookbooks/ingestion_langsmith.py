"""Cookbook: load LangSmith runs, look at the normalized tree, diff regressions.

Runs offline on the real LangChainTracer captures (langsmith 0.15.1, a LangGraph agent with a
scripted chat model) committed under `tests/fixtures/real/langsmith` (see
`scripts/capture/langchain.py`). One run is loaded from both shapes the adapter reads: the root
run with nested `child_runs`, and a `list_runs`-style flat list linked by `parent_run_id`. Then
the `loop` and `error_retry` candidates are compared with their baselines.

    python cookbooks/ingestion_langsmith.py [FIXTURES_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from agentdiff import AgentTrace, StepType, compare, load_trace
from agentdiff.render import RenderOptions, render
from agentdiff.render.tree import trace_tree

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real" / "langsmith"
SHAPES = ("nested", "flat")


def without(trace: AgentTrace, names: set[str]) -> AgentTrace:
    """A copy of `trace` without the steps named in `names` and everything under them."""
    hidden: set[str] = set()
    for step in trace.steps:  # a parent always comes before its children
        if step.name in names or step.parent_id in hidden:
            hidden.add(step.step_id)
    kept = [s for s in trace.steps if s.step_id not in hidden]
    return trace.model_copy(update={"steps": kept})


def main(folder: Path) -> None:
    """Load both shapes of one run, print its tree, then diff two regressions."""
    console = Console(width=120)

    console.rule("one run, two LangSmith shapes")
    for shape in SHAPES:
        trace = load_trace(folder / "error_retry" / f"candidate.{shape}.json")
        usage = trace.total_tokens
        tools = [s.name for s in trace.steps if s.step_type is StepType.TOOL_CALL]
        console.print(
            f"{shape:6s} adapter={(trace.metadata or {}).get('source_format')} "
            f"steps={len(trace.steps)} tokens={usage.total_tokens if usage else None} "
            f"tools={','.join(tools)}"
        )

    trace = load_trace(folder / "error_retry" / "candidate.flat.json")
    console.rule(
        "the error_retry candidate, from the flat run list "
        "(LangChain's Prompt and should_continue steps hidden)"
    )
    console.print(trace_tree(without(trace, {"Prompt", "should_continue"})))
    console.print(f"final output: {(trace.final_output or {}).get('output')}")

    for scenario in ("loop", "error_retry"):
        console.rule(f"{scenario}: baseline vs candidate")
        report = compare(
            load_trace(folder / scenario / "baseline.nested.json"),
            load_trace(folder / scenario / "candidate.nested.json"),
        )
        print(render(report, "terminal", RenderOptions(width=console.width)))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURES)
