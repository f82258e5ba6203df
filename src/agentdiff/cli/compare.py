"""`agentdiff compare BASELINE CANDIDATE` (alias `diff`): the report, and the gate's exit code.

Settings come from flags, `AGENTDIFF_*` variables, `agentdiff.toml` and defaults (in that
order; see `agentdiff.config`). A baseline older than `stale_after_days` is warned about.
`--update-baseline` writes the candidate over BASELINE as `agentdiff approve` does (provenance,
the baseline's format family, atomically; see `agentdiff.baselines`), and only when the gate
passed and no loop is new, unless `--force` is given. A baseline holding no readable trace is
refused even so, naming the `agentdiff approve --force` command that replaces it; one past a
limit, or that cannot be read, is refused with its own error (no such command: it is no
corrupt file).
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

from agentdiff.baselines import VIA_COMPARE, UnreadableBaselineError, load_baseline
from agentdiff.cli.approve import approve_from_report
from agentdiff.cli.errors import EXIT_GATE_FAILED, handle_errors, say, state
from agentdiff.cli.options import AdapterOpt, MaxInputSizeOpt, MaxStepsOpt, OutputsOpt
from agentdiff.cli.output import (
    Target,
    check_targets,
    parse_targets,
    reporting_errors,
    to_stdout,
    write_targets,
)
from agentdiff.cli.settings import compare_flags, resolved_options
from agentdiff.cli.side_ahead import SideAhead, side_ahead
from agentdiff.config import ResolvedConfig
from agentdiff.diff.compare import compare_adopting
from agentdiff.errors import TraceFileError
from agentdiff.files import check_output_path
from agentdiff.limits import Limits
from agentdiff.loader import input_files, load_trace, reading_ahead
from agentdiff.models.trace import AgentTrace
from agentdiff.provenance import stale_warning
from agentdiff.render import ERROR_RENDERERS, RENDERERS, RenderOptions, render_output
from agentdiff.render.verdict import verdict_line
from agentdiff.scaffold import sh
from agentdiff.sessions import resolve_path, resolve_reference

__all__ = ["compare"]

ReportFormat = Enum("ReportFormat", {name: name for name in RENDERERS}, type=str)  # type: ignore[misc]


def _render_options(
    output: Path | None, color: bool | None, config: ResolvedConfig | None = None
) -> RenderOptions:
    to_screen = to_stdout(output)
    if color is None:
        color = to_screen and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    # the terminal's width, or $COLUMNS when piped; a file gets the renderer's default
    width = shutil.get_terminal_size((100, 24)).columns if to_screen else None
    redaction = config.redaction() if config is not None else {}
    return RenderOptions(width=width, color=color, **redaction)


def _check_outputs(
    targets: list[Target], baseline: Path, inputs: tuple[list[Path], list[Path]], update: bool
) -> None:
    """Refuse bad outputs before any work.

    `inputs`: the baseline's and the candidate's files (`input_files`); `--update-baseline`
    replaces the baseline, never a file of the candidate.
    """
    baseline_files, candidate_files = inputs
    check_targets(targets, [*baseline_files, *candidate_files])
    if update:
        check_output_path(Path(os.path.realpath(baseline)), candidate_files)


def _input_files(baseline: Path, candidate: Path, update_baseline: bool) -> tuple[Path, Path]:
    """The two files, with `claude:ID` / `codex:ID` session references resolved."""
    if update_baseline and resolve_reference(str(baseline)) is not None:
        msg = "--update-baseline needs a baseline file, not a session reference"
        raise TraceFileError(msg, hint="convert the session first: agentdiff convert REF -o FILE")
    return resolve_path(baseline), resolve_path(candidate)


def _same_file(baseline: Path, candidate: Path) -> bool:
    """Both sides name one file (or cannot be told apart: then they may)."""
    try:
        return baseline.samefile(candidate)
    except OSError:
        return True


def _load_baseline(
    paths: tuple[Path, Path],
    adapter: str | None,
    *,
    trace_id: str | None,
    limits: Limits,
    update: bool,
    approve_flags: tuple[str, ...] = (),
) -> AgentTrace:
    """The baseline trace of `paths` (baseline, candidate).

    With `--update-baseline`, a baseline holding no readable trace is refused in one line that
    gives the `agentdiff approve --force` command replacing it (compare never writes over it),
    with `approve_flags`: what reads the candidate (its adapter, trace id, limits given).
    """
    baseline, candidate = paths
    if not update:
        return load_trace(baseline, adapter, trace_id=trace_id, limits=limits)
    try:
        return load_baseline(baseline, adapter, trace_id=trace_id, limits=limits)
    except UnreadableBaselineError as exc:
        flags = "".join(f" {sh(flag)}" for flag in approve_flags)
        command = (
            f"agentdiff approve {sh(str(candidate))} --baseline {sh(str(baseline))}{flags} --force"
        )
        msg = f"{exc.message}; `{command}` replaces it"
        raise UnreadableBaselineError(msg, hint=exc.hint, source=baseline) from None


def _approve_flags(
    adapter: str | None, trace_id: str | None, max_input_size: str | None, max_steps: str | None
) -> tuple[str, ...]:
    """The `approve` flags that read the candidate as this comparison did (those given)."""
    given = (
        ("--adapter", adapter),
        ("--trace-id", trace_id),
        ("--max-input-size", max_input_size),
        ("--max-steps", max_steps),
    )
    return tuple(part for flag, value in given if value is not None for part in (flag, value))


@handle_errors
@compare_flags
def compare(
    baseline: Annotated[
        Path,
        typer.Argument(help="The baseline trace file (or claude:ID, codex:ID).", readable=False),
    ],
    candidate: Annotated[
        Path,
        typer.Argument(help="The candidate trace file (or claude:ID, codex:ID).", readable=False),
    ],
    adapter: AdapterOpt = None,
    baseline_adapter: Annotated[str | None, typer.Option(help="Adapter for the baseline.")] = None,
    candidate_adapter: Annotated[
        str | None, typer.Option(help="Adapter for the candidate.")
    ] = None,
    trace_id: Annotated[
        str | None,
        typer.Option("--trace-id", help="Pick this trace from both files when they hold several."),
    ] = None,
    baseline_trace_id: Annotated[
        str | None, typer.Option(help="Pick this trace from the baseline file.")
    ] = None,
    candidate_trace_id: Annotated[
        str | None, typer.Option(help="Pick this trace from the candidate file.")
    ] = None,
    fmt: Annotated[ReportFormat, typer.Option("--format", "-f")] = "terminal",  # type: ignore[assignment]
    output: OutputsOpt = None,
    color: Annotated[
        bool | None,
        typer.Option("--color/--no-color", help="Default: on for a TTY, off if NO_COLOR."),
    ] = None,
    update_baseline: Annotated[
        bool, typer.Option("--update-baseline", help="Write the candidate over BASELINE (atomic).")
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="With --update-baseline: even when the gate failed or a loop is new."
        ),
    ] = False,
    max_input_size: MaxInputSizeOpt = None,
    max_steps: MaxStepsOpt = None,
    *,
    flags: Mapping[str, object],
) -> None:
    """Compare two runs; exit 1 when the gate fails, 2 on bad input or config."""
    baseline, candidate = _input_files(baseline, candidate, update_baseline)
    targets = parse_targets(output, str(fmt.value), RENDERERS)
    files = input_files([baseline]), input_files([candidate])  # with sub-agent transcripts
    inputs = [*files[0], *files[1]]
    _check_outputs(targets, baseline, files, update_baseline)
    ahead: SideAhead | None = None
    try:
        with reporting_errors(targets, ERROR_RENDERERS, inputs):
            config = resolved_options(flags)
            options = config.options
            limits = Limits.resolve(max_input_size, max_steps)
            picked = (candidate_adapter or adapter, candidate_trace_id or trace_id)
            if files[1] == [candidate] and not _same_file(baseline, candidate):
                ahead = side_ahead(candidate, *picked, limits, options)
            with reading_ahead([candidate], limits):  # read while the baseline is decoded
                base = _load_baseline(
                    (baseline, candidate),
                    baseline_adapter or adapter,
                    trace_id=baseline_trace_id or trace_id,
                    limits=limits,
                    update=update_baseline,
                    approve_flags=_approve_flags(*picked, max_input_size, max_steps),
                )
                cand = load_trace(candidate, picked[0], trace_id=picked[1], limits=limits)
        report = compare_adopting(base, cand, options, None if ahead is None else ahead.side)
    finally:
        if ahead is not None:
            ahead.close()
    if state.exiting:
        state.retained.append((base, cand, report))
    write_targets(
        targets,
        lambda t: render_output(
            report, t.fmt, _render_options(t.path, color, config), parts=not to_stdout(t.path)
        ),
        inputs,
        summary=verdict_line(report),
    )
    stale = stale_warning(base, config.stale_after_days)
    if stale:
        say(f"warning: {baseline}: {stale}")
    if update_baseline:
        approve_from_report(
            baseline,
            cand,
            report,
            force=force,
            via=VIA_COMPARE,
            candidate_path=candidate,
            adapter_name=baseline_adapter or adapter,
            limits=limits,
        )
    if not report.passed:
        raise typer.Exit(EXIT_GATE_FAILED)
