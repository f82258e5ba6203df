"""`agentdiff approve CANDIDATE --baseline PATH`: bless a candidate as the new baseline.

The candidate is compared with the current baseline first (the report is printed) and approved
only when `agentdiff.baselines.approval_blockers` finds nothing: the gate passed and no new tool
loop appeared; `--force` approves anyway and says what it overrode. Without a baseline file the
candidate becomes the first baseline. The baseline is read with the `--adapter` (then by
detection: see `agentdiff.baselines.load_baseline`) and the limits given; `--trace-id` picks the
candidate only (a baseline is one trace, whatever its id). A baseline file whose
content is no readable trace is refused (exit 2) unless `--force`, which writes the candidate
over it without a comparison; a file past a limit (`--max-input-size`, `--max-steps`, nesting),
one that is no regular file, or that cannot be read at all, is never replaced. The write
(provenance, refusal of multi-trace files, atomic replace) is
`agentdiff.baselines.save_baseline`, shared with `compare --update-baseline` and the pytest
plugin.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import typer

from agentdiff.baselines import (
    VIA_APPROVE,
    UnreadableBaselineError,
    approval_blockers,
    load_baseline,
    replaced_provenance,
    save_baseline,
)
from agentdiff.cli.errors import EXIT_GATE_FAILED, handle_errors, say
from agentdiff.cli.options import AdapterOpt, MaxInputSizeOpt, MaxStepsOpt, TraceIdOpt
from agentdiff.cli.settings import resolved_options, setting_flags
from agentdiff.diff import compare as compare_traces
from agentdiff.files import check_output_path
from agentdiff.limits import Limits
from agentdiff.loader import input_files, load_trace
from agentdiff.models.report import DiffReport
from agentdiff.models.trace import AgentTrace
from agentdiff.provenance import Provenance
from agentdiff.render import RenderOptions, render

__all__ = ["approve", "approve_from_report"]


def _describe(path: Path, record: Provenance) -> str:
    commit = (
        f", commit {record.commit[:12]}{' (dirty)' if record.dirty else ''}"
        if record.commit
        else ""
    )
    reason = f", reason: {record.reason}" if record.reason else ""
    return f"baseline approved: {path} (by {record.approved_by}{commit}{reason})"


def approve_from_report(
    path: Path,
    candidate: AgentTrace,
    report: DiffReport,
    *,
    force: bool,
    via: str,
    reason: str | None = None,
    candidate_path: Path | None = None,
    adapter_name: str | None = None,
    limits: Limits | None = None,
) -> bool:
    """Approve `candidate` over the baseline at `path` after `report`; False when refused.

    `adapter_name` and `limits` read the baseline replaced (`save_baseline`).
    """
    blockers = approval_blockers(report)
    for blocker in blockers:
        word = "overridden by --force" if force else "not approved"
        say(f"{word}: {blocker}")
    if blockers and not force:
        say("hint: fix the candidate, or add --force to approve it anyway")
        return False
    inputs = input_files([candidate_path]) if candidate_path is not None else []
    record = save_baseline(
        path,
        candidate,
        via=via,
        reason=reason,
        candidate=candidate_path,
        inputs=inputs,
        adapter_name=adapter_name,
        limits=limits,
    )
    say(_describe(path, record))
    return True


def _current_baseline(
    path: Path, adapter: str | None, limits: Limits, *, force: bool
) -> AgentTrace | None:
    """The baseline at `path`; `None` when it holds no readable trace and `--force` replaces it.

    Past a limit, or not readable at all, it raises its own error: `--force` never replaces it.
    """
    try:
        return load_baseline(path, adapter, limits=limits)
    except UnreadableBaselineError as exc:
        if not force:
            msg = f"is no readable baseline ({exc.message}); --force replaces it with the candidate"
            raise UnreadableBaselineError(msg, hint=exc.hint, source=path) from None
        say(f"overridden by --force: {path} is no readable baseline ({exc.message})")
        return None


@handle_errors
@setting_flags
def approve(
    candidate: Annotated[Path, typer.Argument(help="The candidate trace file to bless.")],
    baseline: Annotated[
        Path, typer.Option("--baseline", "-b", help="The baseline file to create or replace.")
    ],
    reason: Annotated[
        str | None, typer.Option("--reason", "-m", help="Why (kept in the provenance).")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Approve even when the gate fails or a loop is new.")
    ] = False,
    adapter: AdapterOpt = None,
    trace_id: TraceIdOpt = None,
    max_input_size: MaxInputSizeOpt = None,
    max_steps: MaxStepsOpt = None,
    *,
    flags: Mapping[str, object],
) -> None:
    """Compare CANDIDATE with the baseline and make it the new baseline, with provenance."""
    check_output_path(Path(os.path.realpath(baseline)), input_files([candidate]))  # before compare
    config = resolved_options(flags)
    options = config.options
    limits = Limits.resolve(max_input_size, max_steps)
    cand = load_trace(candidate, adapter, trace_id=trace_id, limits=limits)
    # refuse a multi-trace file, or one past a limit, before comparing
    replaced_provenance(baseline, adapter, limits=limits)
    first = not baseline.exists()
    current = None if first else _current_baseline(baseline, adapter, limits, force=force)
    if current is None:  # no baseline yet, or one holding no trace that --force replaces
        record = save_baseline(
            baseline,
            cand,
            via=VIA_APPROVE,
            reason=reason,
            candidate=candidate,
            adapter_name=adapter,
            limits=limits,
        )
        if first:
            say(f"no baseline yet: {baseline} created from {candidate}")
        say(_describe(baseline, record))
        return
    report = compare_traces(current, cand, options=options)
    shown = RenderOptions(width=100, **config.redaction())  # the user's patterns and keys too
    typer.echo(render(report, "terminal", shown))
    if not approve_from_report(
        baseline,
        cand,
        report,
        force=force,
        via=VIA_APPROVE,
        reason=reason,
        candidate_path=candidate,
        adapter_name=adapter,
        limits=limits,
    ):
        raise typer.Exit(EXIT_GATE_FAILED)
