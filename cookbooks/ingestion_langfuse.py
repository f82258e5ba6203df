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

from rich.console import Console

from agentdiff import compare, load_trace
from agentdiff.render import RenderOptions, render
from agentdiff.render.tree import trace_tree

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real" / "langfuse"
SHAPES = ("json", "snake.json", "v2_observations.json", "otlp.json")


def main(folder: Path) -> None:
    """Load every shape of one run, print one tree, then diff the loop regression."""
    console = Console(width=120)

    console.rule("one run, four Langfuse shapes")
    for suffix in SHAPES:
        trace = load_trace(folder / "error_retry" / f"candidate.{suffix}")
        usage = trace.total_tokens
        cost = usage.estimated_cost_usd if usage else None
        console.print(
            f"{suffix:22s} adapter={(trace.metadata or {}).get('source_format')} "
            f"steps={len(trace.steps)} tokens={usage.total_tokens if usage else None} "
            f"cost={'unknown' if cost is None else f'${cost:.7f}'}"
        )

    console.rule("the error_retry candidate, from the OTLP export")
    console.print(trace_tree(load_trace(folder / "error_retry" / "candidate.otlp.json")))

    console.rule("loop scenario: baseline vs candidate")
    report = compare(
        load_trace(folder / "loop" / "baseline.json"),
        load_trace(folder / "loop" / "candidate.json"),
    )
    print(render(report, "terminal", RenderOptions(width=console.width)))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURES)
