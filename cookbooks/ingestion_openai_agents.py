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

from rich.console import Console

from agentdiff import compare, load_trace
from agentdiff.render import RenderOptions, render
from agentdiff.render.tree import trace_tree

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real" / "openai_agents"
SHAPES = {"export": "json", "ingest": "ingest.json"}


def main(folder: Path) -> None:
    """Load both shapes of one run, print its tree, then diff two regressions."""
    console = Console(width=140)  # wide enough for the tool error on one line

    console.rule("one run, two OpenAI Agents SDK shapes")
    for shape, suffix in SHAPES.items():
        trace = load_trace(folder / "error_retry" / f"candidate.{suffix}")
        usage = trace.total_tokens
        console.print(
            f"{shape:7s} adapter={(trace.metadata or {}).get('source_format')} "
            f"steps={len(trace.steps)} tokens={usage.total_tokens if usage else None}"
        )

    trace = load_trace(folder / "error_retry" / "candidate.ingest.json")
    console.rule("the error_retry candidate, from the ingest body")
    console.print(trace_tree(trace))
    console.print(f"final output: {(trace.final_output or {}).get('output')}")

    for scenario in ("detour", "error_retry"):
        console.rule(f"{scenario}: baseline vs candidate")
        report = compare(
            load_trace(folder / scenario / "baseline.json"),
            load_trace(folder / scenario / "candidate.json"),
        )
        print(render(report, "terminal", RenderOptions(width=console.width)))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURES)
