"""Cookbook: load OpenAI Agents SDK traces, look at the normalized tree, diff regressions.

Runs offline on the real openai-agents 0.24.0 captures committed under
`tests/fixtures/real/openai_agents` (see `scripts/capture/openai_agents.py`). One run is loaded
from both shapes the adapter reads: `{trace, spans}` as a `TracingProcessor` sees it, and the
`{data: [...]}` body the SDK's backend exporter posts (whose sanitizer strips usage from
`response` spans; the adapter takes it from the SDK's `turn` spans instead). Then the `detour`
and `error_retry` candidates are compared with their baselines.

    python cookbooks/ingestion_openai_agents.py [FIXTURES_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

from agentdiff import AgentTrace, load_trace
from agentdiff.diff.compare import compare

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real" / "openai_agents"
SHAPES = {"export": "json", "ingest": "ingest.json"}


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


def diff(folder: Path, scenario: str) -> None:
    """Compare one scenario's candidate with its baseline and print the headline numbers."""
    report = compare(load_trace(folder / scenario / "baseline.json"),
                     load_trace(folder / scenario / "candidate.json"))
    print(f"\n== {scenario}: baseline vs candidate")
    print(f"divergence={report.divergence:.2f} "
          f"tool_calls {report.baseline.tool_calls} -> {report.candidate.tool_calls} "
          f"llm_calls {report.baseline.llm_calls} -> {report.candidate.llm_calls} "
          f"tokens {report.baseline.total_tokens} -> {report.candidate.total_tokens} "
          f"errors {report.baseline.errors} -> {report.candidate.errors}")
    for finding in report.recovery:
        print(f"recovery: retry={finding.retry} recovered={finding.recovered}")


def main(folder: Path) -> None:
    """Load both shapes of one run, print its tree, then diff two regressions."""
    print("== one run, two OpenAI Agents SDK shapes")
    for shape, suffix in SHAPES.items():
        trace = load_trace(folder / "error_retry" / f"candidate.{suffix}")
        usage = trace.total_tokens
        print(f"{shape:7s} adapter={(trace.metadata or {}).get('source_format')} "
              f"steps={len(trace.steps)} tokens={usage.total_tokens if usage else None}")
    trace = load_trace(folder / "error_retry" / "candidate.ingest.json")
    print(f"\n== {trace.agent_name} ({trace.trace_id}), from the ingest body")
    show_tree(trace)
    print(f"final output: {(trace.final_output or {}).get('output')}")
    diff(folder, "detour")
    diff(folder, "error_retry")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURES)
