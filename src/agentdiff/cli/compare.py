"""`agentdiff compare BASELINE CANDIDATE` (alias `diff`): the report, and the gate's exit code.

Settings come from flags, `AGENTDIFF_*` variables, `agentdiff.toml` and defaults (in that
order; see `agentdiff.config`). `--update-baseline` writes the candidate, as canonical JSON,
over BASELINE atomically, and only when the gate passed unless `--force` is given.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from agentdiff.baselines import write_baseline
from agentdiff.cli.errors import EXIT_GATE_FAILED, handle_errors, state
from agentdiff.cli.options import AdapterOpt, MaxInputSizeOpt, MaxStepsOpt, OutputOpt
from agentdiff.cli.output import write_output
from agentdiff.cli.settings import setting_flags
from agentdiff.config import load_options
from agentdiff.diff import compare as compare_traces
from agentdiff.errors import AgentDiffError
from agentdiff.limits import Limits
from agentdiff.loader import load_trace
from agentdiff.models.report import DiffReport
from agentdiff.models.trace import AgentTrace
from agentdiff.render import ERROR_RENDERERS, RENDERERS, RenderOptions, render

__all__ = ["compare"]

ReportFormat = Enum("ReportFormat", {name: name for name in RENDERERS}, type=str)  # type: ignore[misc]


def _render_options(output: Path | None, color: bool | None) -> RenderOptions:
    to_tty = (output is None or str(output) == "-") and sys.stdout.isatty()
    if color is None:
        color = to_tty and not os.environ.get("NO_COLOR")
    to_screen = output is None or str(output) == "-"
    # the terminal's width, or $COLUMNS when piped; a file gets the renderer's default
    width = shutil.get_terminal_size((100, 24)).columns if to_screen else None
    return RenderOptions(width=width, color=color)


def _update_baseline(path: Path, candidate: AgentTrace, report: DiffReport, force: bool) -> None:
    if not report.passed and not force:
        typer.echo("baseline not updated: the gate failed (add --force to accept)", err=True)
        return
    write_baseline(path, candidate)
    typer.echo(f"baseline updated: {path}", err=True)


@handle_errors
@setting_flags
def compare(
    baseline: Annotated[Path, typer.Argument(help="The baseline trace file.")],
    candidate: Annotated[Path, typer.Argument(help="The candidate trace file.")],
    adapter: AdapterOpt = None,
    baseline_adapter: Annotated[str | None, typer.Option(help="Adapter for the baseline.")] = None,
    candidate_adapter: Annotated[
        str | None, typer.Option(help="Adapter for the candidate.")
    ] = None,
    fmt: Annotated[ReportFormat, typer.Option("--format", "-f")] = "terminal",  # type: ignore[assignment]
    output: OutputOpt = None,
    color: Annotated[
        bool | None,
        typer.Option("--color/--no-color", help="Default: on for a TTY, off if NO_COLOR."),
    ] = None,
    update_baseline: Annotated[
        bool, typer.Option("--update-baseline", help="Write the candidate over BASELINE (atomic).")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="With --update-baseline: even when the gate failed.")
    ] = False,
    max_input_size: MaxInputSizeOpt = None,
    max_steps: MaxStepsOpt = None,
    *,
    flags: Mapping[str, object],
) -> None:
    """Compare two runs; exit 1 when the gate fails, 2 on bad input or config."""
    name = str(fmt.value)
    try:
        options = load_options(flags).options
        limits = Limits.resolve(max_input_size, max_steps)
        base = load_trace(baseline, baseline_adapter or adapter, limits=limits)
        cand = load_trace(candidate, candidate_adapter or adapter, limits=limits)
    except AgentDiffError as exc:
        if name in ERROR_RENDERERS:
            write_output(ERROR_RENDERERS[name](str(exc)), output)
        raise
    report = compare_traces(base, cand, options=options)
    if state.exiting:
        state.retained.append((base, cand, report))
    write_output(render(report, name, _render_options(output, color)), output)
    if update_baseline:
        _update_baseline(baseline, cand, report, force)
    if not report.passed:
        raise typer.Exit(EXIT_GATE_FAILED)
