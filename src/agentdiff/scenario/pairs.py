"""Each candidate run against its nearest baseline run, through the per-pair engine and gate.

The nearest baseline run is the one at the smallest route distance. Each baseline run is also
compared with its nearest *other* baseline run, so the rate of per-pair gate failures has a
baseline of its own (how often the gate fails when nothing changed). A `PairComparer` prepares
each run of a scenario once (one `Signer` for all of them), however many pairs it is in.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentdiff.diff.compare import compare_prepared, passes_gate_prepared
from agentdiff.diff.fold import fold_framework_steps
from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.options import CompareOptions
from agentdiff.diff.order import Side, prepare
from agentdiff.diff.signatures import Signer
from agentdiff.diff.totals import memoized_totals, with_folded
from agentdiff.models.report import DiffReport, Op, Summary
from agentdiff.models.trace import AgentTrace
from agentdiff.scenario.profile import RunProfile, profile_run
from agentdiff.scenario.report import NearestRun

__all__ = ["PairComparer", "gate_failures", "nearest_rows", "nearest_runs"]


class PairComparer:
    """`compare()` for the runs of one scenario, each run prepared once.

    With `fold_framework_steps` each run is folded once, and its side, profile, route and totals
    are of the folded copy, as `compare()` compares it; positions and folded counts are of the run
    as given (`compare_prepared`'s `given`).
    """

    def __init__(self, options: CompareOptions) -> None:
        self.options = options
        self._fold = options.fold_framework_steps
        self._signer = Signer(Normalizer(options.ignore), strict=options.strict_tool_signatures)
        self._sides: dict[int, tuple[AgentTrace, AgentTrace, Side]] = {}

    def _prepared(self, trace: AgentTrace) -> tuple[AgentTrace, Side]:
        """The run compared (`trace`, or its folded copy) and its side, made once per trace."""
        kept = self._sides.get(id(trace))
        if kept is None or kept[0] is not trace:
            run = fold_framework_steps(trace) if self._fold else trace
            kept = self._sides[id(trace)] = (trace, run, prepare(run, self._signer))
        return kept[1], kept[2]

    def side(self, trace: AgentTrace) -> Side:
        """`trace` prepared (once) as the engine prepares a side (folded first when folding)."""
        return self._prepared(trace)[1]

    def totals(self, trace: AgentTrace) -> Summary:
        """The `Summary` `compare()` reports for `trace` as a side (folded steps counted)."""
        run, side = self._prepared(trace)
        summary = memoized_totals(run, side, self.options.prices)[0]
        return with_folded(summary, trace, run) if self._fold else summary

    def profile(
        self, trace: AgentTrace, run_id: str, route: Sequence[str] | None = None
    ) -> RunProfile:
        """`trace`'s `RunProfile` off its prepared side (of its folded copy when folding)."""
        run, side = self._prepared(trace)
        given = trace if self._fold else None
        return profile_run(run, run_id, self.options, side, route, given=given)

    def compare(self, baseline: AgentTrace, candidate: AgentTrace, *, findings: bool) -> DiffReport:
        """What `compare(baseline, candidate, options=options)` returns.

        With `findings=False` the report's `findings` stay empty (not "nothing found": not
        looked for). Scenario pairs are read for their gate, alignment, first divergence and
        deltas; a pair's own rendered report compares again, with findings.
        """
        (b_run, b_side), (c_run, c_side) = self._prepared(baseline), self._prepared(candidate)
        given = (baseline, candidate) if self._fold else None
        sides = b_side, c_side
        return compare_prepared(b_run, c_run, sides, self.options, findings=findings, given=given)

    def passes_gate(self, baseline: AgentTrace, candidate: AgentTrace) -> bool:
        """Whether `compare(baseline, candidate, options=options)` passes the gate.

        Without the alignment's entries where the gate cannot fail on them
        (`passes_gate_prepared`): a baseline pair of the gate-failure rate is read for this
        alone.
        """
        (b_run, b_side), (c_run, c_side) = self._prepared(baseline), self._prepared(candidate)
        given = (baseline, candidate) if self._fold else None
        return passes_gate_prepared(b_run, c_run, (b_side, c_side), self.options, given=given)


def nearest_runs(
    baseline: Sequence[tuple[str, AgentTrace]],
    candidate: Sequence[tuple[str, AgentTrace]],
    nearest: Sequence[int],
    distances: Sequence[float],
    comparer: PairComparer,
) -> list[NearestRun]:
    """One row per candidate run (in input order)."""
    rows = []
    for (run_id, trace), j, distance in zip(candidate, nearest, distances, strict=True):
        base_id, base_trace = baseline[j]
        report = comparer.compare(base_trace, trace, findings=False)
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
    comparer: PairComparer,
) -> int:
    """Baseline runs failing the gate against their nearest other baseline run."""
    failed = 0
    for (_, trace), j in zip(baseline, nearest_other, strict=True):
        if j is not None:
            failed += not comparer.passes_gate(baseline[j][1], trace)
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
