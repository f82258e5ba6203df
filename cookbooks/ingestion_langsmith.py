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

from agentdiff import AgentTrace, StepType, load_trace
from agentdiff.diff.compare import compare

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real" / "langsmith"
SHAPES = ("nested", "flat")


def show_tree(trace: AgentTrace, *, hide: tuple[str, ...] = ()) -> None:
    """Print the steps as an indented tree (omitting steps named in `hide` and their subtrees)."""
    depth: dict[str | None, int] = {None: -1}
    hidden: set[str] = set()
    for step in trace.steps:
        if step.name in hide or step.parent_id in hidden:
            hidden.add(step.step_id)
            continue
        depth[step.step_id] = depth.get(step.parent_id, -1) + 1
        tokens = f" tokens={step.tokens.total_tokens}" if step.tokens else ""
        error = f" ERROR: {step.error_message}" if step.error_message else ""
        latency = f"{step.latency_ms:.1f}ms" if step.latency_ms is not None else "?"
        print(f"  {step.step_index:2d} {'  ' * depth[step.step_id]}{step.step_type.value:9s} "
              f"{step.name} {latency}{tokens}{error}")


def diff(folder: Path, scenario: str) -> None:
    """Compare one scenario's candidate with its baseline and print the headline numbers."""
    report = compare(load_trace(folder / scenario / "baseline.nested.json"),
                     load_trace(folder / scenario / "candidate.nested.json"))
    print(f"\n== {scenario}: baseline vs candidate")
    print(f"divergence={report.divergence:.2f} "
          f"tool_calls {report.baseline.tool_calls} -> {report.candidate.tool_calls} "
          f"llm_calls {report.baseline.llm_calls} -> {report.candidate.llm_calls} "
          f"tokens {report.baseline.total_tokens} -> {report.candidate.total_tokens} "
          f"errors {report.baseline.errors} -> {report.candidate.errors}")
    for loop in report.loops:
        print(f"loop: {' -> '.join(loop.names)} x{loop.repetitions} (new={loop.new})")
    for finding in report.recovery:
        print(f"recovery: retry={finding.retry} recovered={finding.recovered}")


def main(folder: Path) -> None:
    """Load both shapes of one run, print its tree, then diff two regressions."""
    print("== one run, two LangSmith shapes")
    for shape in SHAPES:
        trace = load_trace(folder / "error_retry" / f"candidate.{shape}.json")
        usage = trace.total_tokens
        tools = [s.name for s in trace.steps if s.step_type is StepType.TOOL_CALL]
        print(f"{shape:6s} adapter={(trace.metadata or {}).get('source_format')} "
              f"steps={len(trace.steps)} tokens={usage.total_tokens if usage else None} "
              f"tools={','.join(tools)}")
    trace = load_trace(folder / "error_retry" / "candidate.flat.json")
    print(f"\n== {trace.agent_name} ({trace.trace_id}), from the flat run list "
          "(LangChain's Prompt and should_continue steps hidden)")
    show_tree(trace, hide=("Prompt", "should_continue"))
    print(f"final output: {(trace.final_output or {}).get('output')}")
    diff(folder, "loop")
    diff(folder, "error_retry")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURES)
