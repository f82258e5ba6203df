"""Cookbook: load Langfuse exports, look at the normalized tree, diff a regression.

Runs offline on the real Langfuse v4 SDK captures committed under `tests/fixtures/real/langfuse`
(see `scripts/capture/langfuse.py`). The same run is loaded from all four shapes the adapter
reads: the OTLP/JSON the SDK exports, and the trace / v2-observations API responses (camelCase
and snake_case). Then the `loop` scenario's candidate is compared with its baseline.

    python cookbooks/ingestion_langfuse.py [FIXTURES_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

from agentdiff import AgentTrace, load_trace
from agentdiff.diff.compare import compare

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real" / "langfuse"
SHAPES = ("json", "snake.json", "v2_observations.json", "otlp.json")


def show_tree(trace: AgentTrace) -> None:
    """Print the steps as an indented tree, with status, latency and tokens."""
    depth: dict[str | None, int] = {None: -1}
    for step in trace.steps:
        depth[step.step_id] = depth.get(step.parent_id, -1) + 1
        tokens = f" tokens={step.tokens.total_tokens}" if step.tokens else ""
        error = f" ERROR: {step.error_message}" if step.error_message else ""
        latency = f"{step.latency_ms:.1f}ms" if step.latency_ms is not None else "?"
        print(f"  {step.step_index:2d} {'  ' * depth[step.step_id]}{step.step_type.value:9s} "
              f"{step.name} {latency}{tokens}{error}")


def main(folder: Path) -> None:
    """Load every shape of one run, print one tree, then diff the loop regression."""
    print("== one run, four Langfuse shapes")
    for suffix in SHAPES:
        trace = load_trace(folder / "error_retry" / f"candidate.{suffix}")
        usage = trace.total_tokens
        cost = usage.estimated_cost_usd if usage else None
        print(f"{suffix:22s} adapter={(trace.metadata or {}).get('source_format')} "
              f"steps={len(trace.steps)} tokens={usage.total_tokens if usage else None} "
              f"cost={'unknown' if cost is None else f'${cost:.7f}'}")
    trace = load_trace(folder / "error_retry" / "candidate.otlp.json")
    print(f"\n== {trace.agent_name} ({trace.trace_id}), from the OTLP export")
    show_tree(trace)

    baseline = load_trace(folder / "loop" / "baseline.json")
    candidate = load_trace(folder / "loop" / "candidate.json")
    report = compare(baseline, candidate)
    print("\n== loop scenario: baseline vs candidate")
    print(f"divergence={report.divergence:.2f} "
          f"tool_calls {report.baseline.tool_calls} -> {report.candidate.tool_calls}")
    for loop in report.loops:
        print(f"loop: {' -> '.join(loop.names)} x{loop.repetitions} (new={loop.new})")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURES)
