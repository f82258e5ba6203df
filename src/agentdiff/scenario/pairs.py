"""Each candidate run against its nearest baseline run, through the per-pair engine and gate.

The nearest baseline run is the one at the smallest route distance. Each baseline run is also
compared with its nearest *other* baseline run, so the rate of per-pair gate failures has a
baseline of its own (how often the gate fails when nothing changed).
"""

from __future__ import annotations

from collections.abc import Sequence

from agentdiff.diff import compare
from agentdiff.diff.options import CompareOptions
from agentdiff.models.report import DiffReport, Op
from agentdiff.models.trace import AgentTrace
from agentdiff.scenario.report import NearestRun

__all__ = ["gate_failures", "nearest_rows", "nearest_runs"]


def nearest_runs(
    baseline: Sequence[tuple[str, AgentTrace]],
    candidate: Sequence[tuple[str, AgentTrace]],
    nearest: Sequence[int],
    distances: Sequence[float],
    options: CompareOptions,
) -> list[NearestRun]:
    """One row per candidate run (in input order)."""
    rows = []
    for (run_id, trace), j, distance in zip(candidate, nearest, distances, strict=True):
        base_id, base_trace = baseline[j]
        report = compare(base_trace, trace, options=options)
        rows.append(_row(run_id, base_id, distance, report))
    return rows


def nearest_rows(
    baseline: Sequence[tuple[str, AgentTrace]],
    candidate: Sequence[tuple[str, AgentTrace]],
    compared: Sequence[tuple[int, DiffReport]],
    distances: Sequence[float],
) -> list[NearestRun]:
    """The same rows from comparisons already made: (baseline index, report) per candidate run."""
    return [
        _row(run_id, baseline[j][0], distance, report)
        for (run_id, _), (j, report), distance in zip(candidate, compared, distances, strict=True)
    ]


def gate_failures(
    baseline: Sequence[tuple[str, AgentTrace]],
    nearest_other: Sequence[int | None],
    options: CompareOptions,
) -> int:
    """Baseline runs failing the gate against their nearest other baseline run."""
    failed = 0
    for (_, trace), j in zip(baseline, nearest_other, strict=True):
        if j is not None:
            failed += not compare(baseline[j][1], trace, options=options).passed
    return failed


def _row(run_id: str, base_id: str, distance: float, report: DiffReport) -> NearestRun:
    ops = [entry.op for entry in report.alignment]
    first = report.first_divergence
    where = None
    if first is not None:
        step = first.candidate or first.baseline
        where = f"{first.op.value} {step.name}" if step is not None else first.op.value
    return NearestRun(
        candidate_run=run_id,
        baseline_run=base_id,
        route_distance=distance,
        divergence=report.divergence,
        first_divergence=where,
        inserted=ops.count(Op.INSERT),
        deleted=ops.count(Op.DELETE),
        changed=ops.count(Op.CHANGE),
        cost_change_pct=report.deltas.cost_usd.pct,
        gate_passed=report.passed,
        violations=[v.message for v in report.gate.violations],
    )
