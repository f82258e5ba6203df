"""`agentdiff compare BASELINE CANDIDATE` (alias `diff`): the report, and the gate's exit code."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from agentdiff.cli.errors import EXIT_GATE_FAILED, handle_errors
from agentdiff.cli.options import AdapterOpt, OutputOpt
from agentdiff.diff import CompareOptions
from agentdiff.diff import compare as compare_traces
from agentdiff.loader import load_trace
from agentdiff.render import RENDERERS, RenderOptions, render

__all__ = ["compare"]

ReportFormat = Enum("ReportFormat", {name: name for name in RENDERERS}, type=str)  # type: ignore[misc]


@handle_errors
def compare(
    baseline: Annotated[Path, typer.Argument(help="The baseline trace file.")],
    candidate: Annotated[Path, typer.Argument(help="The candidate trace file.")],
    adapter: AdapterOpt = None,
    baseline_adapter: Annotated[str | None, typer.Option(help="Adapter for the baseline.")] = None,
    candidate_adapter: Annotated[
        str | None, typer.Option(help="Adapter for the candidate.")
    ] = None,
    detect_loops: Annotated[bool, typer.Option("--detect-loops/--no-detect-loops")] = True,
    strict_tool_signatures: Annotated[bool, typer.Option("--strict-tool-signatures")] = False,
    compare_content: Annotated[bool, typer.Option("--compare-content")] = False,
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", help="Dotted-path glob never compared (repeatable)."),
    ] = None,
    fmt: Annotated[ReportFormat, typer.Option("--format", "-f")] = "terminal",  # type: ignore[assignment]
    output: OutputOpt = None,
) -> None:
    """Compare two runs; exit 1 when the gate fails, 2 on bad input."""
    base = load_trace(baseline, baseline_adapter or adapter)
    cand = load_trace(candidate, candidate_adapter or adapter)
    options = CompareOptions(
        detect_loops=detect_loops,
        strict_tool_signatures=strict_tool_signatures,
        compare_content=compare_content,
        ignore=tuple(ignore or ()),
    )
    report = compare_traces(base, cand, options=options)
    from agentdiff.cli.output import write_output  # noqa: PLC0415

    write_output(render(report, str(fmt.value), RenderOptions()), output)
    if not report.gate.passed:
        raise typer.Exit(EXIT_GATE_FAILED)
