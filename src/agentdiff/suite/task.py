"""The suite's unit of work: a pure module-level function over a batch of whole scenarios.

`run_batch(batch)` loads every run of its scenarios, compares each candidate run with its
nearest baseline run (by route distance; with one run per side that is the single pair), and
returns one `ScenarioRow` per scenario. The same function runs in-process, in a process pool or
on a Dask worker, and depends on nothing else, so results never depend on the backend. With a
results folder the batch also writes its rows of the `runs`, `pairs` and `steps` tables as part
files there itself (the client never holds step rows).
"""

from __future__ import annotations

import gc
import math
import time
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Literal, NamedTuple

from agentdiff.diff import CompareOptions
from agentdiff.errors import AgentDiffError
from agentdiff.gate import GateThresholds
from agentdiff.gcpause import no_gc_pauses
from agentdiff.limits import Limits
from agentdiff.models.report import DiffReport, Op, Summary
from agentdiff.models.trace import AgentTrace
from agentdiff.scenario.analyze import analyze_profiles
from agentdiff.scenario.judge import scenario_p
from agentdiff.scenario.pairs import PairComparer
from agentdiff.scenario.profile import RunProfile
from agentdiff.stats_options import StatsOptions
from agentdiff.suite.load import load_runs
from agentdiff.suite.refs import RunRef, join_source
from agentdiff.suite.routes import (
    route_distance,
    route_id,
    side_route,
)
from agentdiff.suite.rows import (
    FirstDivergence,
    OpCounts,
    PairSummary,
    RunError,
    RunLocation,
    ScenarioRow,
    StepName,
    Verdict,
    row_json,
)
from agentdiff.suite.tables import TableWriter

__all__ = [
    "Batch",
    "BatchResult",
    "RowOut",
    "ScenarioJob",
    "TaskContext",
    "job_options",
    "run_batch",
]

Side = Literal["baseline", "candidate"]
_OP = attrgetter("op")
_DELTAS = ("steps", "tool_calls", "errors", "total_tokens", "cost_usd", "latency_ms")


@dataclass(frozen=True, slots=True)
class ScenarioJob:
    """One scenario: its runs on each side and the gate it is judged by."""

    scenario: str
    baseline: tuple[RunRef, ...]
    candidate: tuple[RunRef, ...]
    gate: GateThresholds | None = None
    """This scenario's own thresholds (a manifest override), else the suite's."""
    stats: StatsOptions | None = None
    """This scenario's own `[stats]` settings (a manifest override), else the suite's."""
    overrides: tuple[tuple[str, Any], ...] = ()
    sources: tuple[tuple[str, str], ...] = ()
    """Where each setting of its own `gate` came from (its `[[scenario]]` table)."""


@dataclass(frozen=True, slots=True)
class TaskContext:
    """What every batch of one suite shares."""

    baseline_root: str
    candidate_root: str
    options: CompareOptions
    allow_missing: bool = False
    results: str | None = None
    """Folder (path or URL) where batches write their table parts; `None`: no tables."""
    stats: StatsOptions = field(default_factory=StatsOptions)
    """How scenarios with several runs on a side are tested (the verdict is settled across
    scenarios by `run_suite`)."""
    fail_fast: bool = False
    """A batch stops at its first scenario that errors or regresses (`fails_fast`)."""
    decisive_p: float = 0.0
    """With `fail_fast`: the largest p at which an N-vs-M scenario's regression stops the suite
    (`fails_fast`)."""
    limits: Limits = field(default_factory=Limits.resolve)
    """The input limits, resolved once where the context is made (the client, from its
    environment): a worker never reads its own `AGENTDIFF_MAX_*`, so the verdict is the same
    wherever a batch runs."""


@dataclass(frozen=True, slots=True)
class Batch:
    """Consecutive scenarios (in key order) handled by one task."""

    index: int
    jobs: tuple[ScenarioJob, ...]
    context: TaskContext


class RowOut(NamedTuple):
    """One scenario's row as a task sends it back: its JSON, with what the client sorts by."""

    scenario: str
    verdict: str
    multi_run: bool
    """The row carries an N-vs-M draft (`stats`), settled across scenarios by the client."""
    json: bytes
    runs: tuple[int, int] = (0, 0)
    """The runs loaded on each side (a file of several traces holds several runs)."""
    unloaded: int = 0
    """Runs that could not be loaded (listed in the row's `errors`)."""
    draft_p: float = math.inf
    """An N-vs-M row's draft p in the worse direction (`judge.scenario_p`; inf: none)."""


@dataclass
class BatchResult:
    """What one task sends back: small rows only, as JSON."""

    index: int
    rows: list[RowOut]
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    """CPU time of the task's process (wall minus waiting for a core, on a busy machine)."""
    pairs: int = 0


@dataclass
class _Run:
    location: RunLocation
    trace: AgentTrace
    route: list[str] | None = None
    """Canonical order (`agentdiff.routes.route`): read off the side the scenario's
    `PairComparer` prepared (`route_of`), of the folded run with `fold_framework_steps`."""
    summary: Summary | None = None
    variant: int | None = None
    """Which of the scenario's distinct routes it takes (set with `route` for the pairs)."""

    def route_of(self, comparer: PairComparer) -> list[str]:
        """The run's route, read off the side `comparer` prepared (of the folded run, folding)."""
        if self.route is None:
            strict = comparer.options.strict_tool_signatures
            self.route = side_route(comparer.side(self.trace), strict=strict)
        return self.route


def job_options(job: ScenarioJob, options: CompareOptions) -> CompareOptions:
    """The options `job`'s pairs are compared with: the suite's, with the job's own gate.

    Its settings' sources come along (its `[[scenario]]` table), for the pair reports to name.
    """
    if job.gate is None:
        return options
    sources = {**options.sources, **dict(job.sources)}
    return options.model_copy(update={"gate": job.gate, "sources": sources})


FAILING = frozenset({"error", "regressed"})
"""The verdicts `--fail-fast` stops at (and a run that could not be loaded: `fails_fast`)."""


def fails_fast(row: RowOut, decisive_p: float = 0.0) -> bool:
    """Whether `--fail-fast` stops at `row`: an error, a regression or a run not loaded.

    An N-vs-M scenario's verdict is a draft until every scenario is in (Tarone and
    Benjamini–Hochberg across them, `scenario.judge`): its regression stops the suite only when
    its p is at most `decisive_p`, the false discovery rate over every scenario planned
    (Bonferroni). Such a p is regressed whatever the other scenarios find; a weaker one, or a
    regression by a hard finding, is settled with the rest. Stopping never changes a verdict.
    """
    if row.unloaded > 0 or row.verdict == "error":
        return True
    if row.verdict not in FAILING:
        return False
    return not row.multi_run or row.draft_p <= decisive_p


def run_batch(batch: Batch) -> BatchResult:
    """Judge every scenario of `batch` (never raises for a bad input: that is an error row)."""
    start, cpu = time.perf_counter(), time.process_time()
    ctx = batch.context
    writer = TableWriter(ctx.results, batch.index) if ctx.results else None
    result = BatchResult(index=batch.index, rows=[])
    # The cyclic collector is paused for the batch (as the CLI pauses it for its whole process,
    # and forked workers inherit that): loading and comparing allocate many small acyclic
    # records, and a collection in the middle only rescans them. Cyclic garbage is freed once
    # per batch instead: nothing is promoted while the collector is paused, so what this batch
    # allocated is in the young generations, and collecting those frees its cycles without
    # rescanning the whole process (a full collection costs 12 ms or more per batch).
    with no_gc_pauses():
        for job in batch.jobs:
            row, reports = _scenario(job, ctx, writer)
            runs = (row.baseline_runs, row.candidate_runs)
            multi = row.stats is not None
            drafted = scenario_p(row.stats, worse=True) if row.stats is not None else None
            out = RowOut(
                row.scenario,
                row.verdict,
                multi,
                row_json(row),
                runs,
                len(row.errors),
                math.inf if drafted is None else drafted,
            )
            result.rows.append(out)
            result.pairs += len(reports)
            if ctx.fail_fast and fails_fast(out, ctx.decisive_p):
                break
        if writer is not None:
            writer.close()
    gc.collect(1)
    result.seconds = time.perf_counter() - start
    result.cpu_seconds = time.process_time() - cpu
    return result


def _scenario(
    job: ScenarioJob, ctx: TaskContext, writer: TableWriter | None
) -> tuple[ScenarioRow, list[DiffReport]]:
    errors: list[RunError] = []
    base = _load_side(job.baseline, "baseline", ctx.baseline_root, ctx.limits, errors)
    cand = _load_side(job.candidate, "candidate", ctx.candidate_root, ctx.limits, errors)
    options = job_options(job, ctx.options)
    pairs: list[PairSummary] = []
    reports: list[DiffReport] = []
    comparer = PairComparer(options)  # each run prepared once, however many pairs it is in
    if base and cand:  # judged on the runs that loaded; the others are listed in `errors`
        variants: dict[tuple[str, ...], int] = {}
        for run in (*base, *cand):  # of the runs as compared (folded, with folding)
            run.variant = variants.setdefault(tuple(run.route_of(comparer)), len(variants))
        distances: _Distances = {}
        for run in cand:
            pick = base[_nearest(run, base, distances)]
            report = comparer.compare(pick.trace, run.trace, findings=False)
            pick.summary = pick.summary or report.baseline
            run.summary = report.candidate
            pairs.append(_pair(pick, run, report, distances))
            reports.append(report)
            if writer is not None:
                writer.pair(job.scenario, pairs[-1], report)
    verdict = _verdict(job, base, cand, pairs, ctx.allow_missing)
    stats = None
    several = max(len(base), len(cand), len(job.baseline), len(job.candidate)) > 1
    if verdict in ("pass", "regressed") and several:  # a run not loaded never changes the method
        own = job.stats or ctx.stats
        stats = _statistics(job.scenario, base, cand, own, pairs, reports, comparer)
    if not job.candidate and verdict == "error":
        message = "no candidate run (did the run crash?); --allow-missing to accept"
        errors.append(RunError(side="candidate", run=None, source=None, message=message))
    if writer is not None:
        _write_runs(writer, job, (base, cand), errors, comparer)
    row = ScenarioRow(
        scenario=job.scenario,
        verdict=verdict,
        baseline_runs=len(base),
        candidate_runs=len(cand),
        overrides=dict(job.overrides),
        pairs=pairs,
        deciding=_deciding(pairs),
        errors=errors,
        stats=stats,
    )
    return row, reports


def _write_runs(
    writer: TableWriter,
    job: ScenarioJob,
    sides: tuple[list[_Run], list[_Run]],
    errors: list[RunError],
    comparer: PairComparer,
) -> None:
    """The scenario's `runs` rows: each loaded run, then each run that could not be loaded.

    A lost run's row keeps the trace id its run asked for, if any (nothing was read from it).
    """
    scenario = job.scenario
    for side, runs in zip(("baseline", "candidate"), sides, strict=True):
        for run in runs:
            summary = run.summary or comparer.totals(run.trace)  # a run no pair compared
            route = run.route_of(comparer)
            writer.run(side, scenario, run.location, summary, route, route_id(route))
    asked = {
        (side, ref.run_id): ref.trace_id
        for side, refs in (("baseline", job.baseline), ("candidate", job.candidate))
        for ref in refs
    }
    for error in errors:
        if error.run is not None:  # a run that did not load (not a side without runs)
            writer.lost_run(scenario, error, asked.get((error.side, error.run)))


def _statistics(
    scenario: str,
    base: list[_Run],
    cand: list[_Run],
    stats: StatsOptions,
    pairs: list[PairSummary],
    reports: list[DiffReport],
    comparer: PairComparer,
) -> Any:
    """The N-vs-M draft of a scenario with several runs on a side (pairs already compared)."""
    options = comparer.options
    b_runs = [(r.location.run, r.trace) for r in base]
    c_runs = [(r.location.run, r.trace) for r in cand]
    b_prof = [_profile(r, comparer) for r in base]
    c_prof = [_profile(r, comparer) for r in cand]
    index = {r.location.run: i for i, r in enumerate(base)}
    done = [(index[p.baseline.run], report) for p, report in zip(pairs, reports, strict=True)]
    runs = (b_runs, c_runs)
    return analyze_profiles(scenario, b_prof, c_prof, options, stats, runs, done, comparer=comparer)


def _profile(run: _Run, comparer: PairComparer) -> RunProfile:
    """The run's profile, with the route already read off its prepared side."""
    return comparer.profile(run.trace, run.location.run, run.route_of(comparer))


_Distances = dict[tuple[int, int], float]
"""Route distance by (route variant, route variant) of one scenario's runs."""


def _distance(a: _Run, b: _Run, known: _Distances) -> float:
    """`route_distance` of two runs whose routes are set, once per pair of distinct routes.

    A scenario's runs mostly take a few routes (the 10 + 10 runs of the benchmark's scenarios
    take 2 or 3): the nearest baseline run of each candidate run is found from those.
    """
    if a.route is None or b.route is None or a.variant is None or b.variant is None:
        msg = "route distances are read once every run's route and variant are set"
        raise AssertionError(msg)  # a bug: a `None` variant would share one cache entry
    key = (a.variant, b.variant)
    found = known.get(key)
    if found is None:
        found = known[key] = route_distance(a.route, b.route)
    return found


def _nearest(run: _Run, base: list[_Run], known: _Distances) -> int:
    """The index of `run`'s nearest baseline run (the first one on a tie), as `nearest_run`."""
    if len(base) == 1:
        return 0
    distances = [_distance(run, b, known) for b in base]
    return distances.index(min(distances))


def _load_side(
    refs: tuple[RunRef, ...], side: Side, root: str, limits: Limits, errors: list[RunError]
) -> list[_Run]:
    runs = []
    for ref in refs:
        try:
            loaded = load_runs(ref, root, limits)
        except AgentDiffError as exc:
            # the loader names the file by its full path: the row names it as the suite does
            # (relative to the root), so suite.json reads the same wherever the roots are
            message = str(exc).replace(join_source(root, ref.source), ref.source)
            errors.append(RunError(side=side, run=ref.run_id, source=ref.source, message=message))
            continue
        for run_id, trace_id, trace in loaded:
            location = RunLocation(run=run_id, source=ref.source, trace_id=trace_id)
            runs.append(_Run(location, trace))
    return runs


def _verdict(
    job: ScenarioJob,
    base: list[_Run],
    cand: list[_Run],
    pairs: list[PairSummary],
    allow_missing: bool,
) -> Verdict:
    """The scenario's verdict before its statistics (which settle multi-run ones).

    A side with runs listed and none loaded is an `error`; a run that could not be loaded
    beside others that did is in the row's `errors`, and the scenario is judged on the rest.
    """
    if not job.baseline:
        return "added" if cand else "error"
    if not job.candidate:
        return "removed" if allow_missing and base else "error"
    if not base or not cand:
        return "error"
    return "pass" if all(p.passed for p in pairs) else "regressed"


def _deciding(pairs: list[PairSummary]) -> int | None:
    if not pairs:
        return None
    failing = next((i for i, p in enumerate(pairs) if not p.passed), None)
    if failing is not None:
        return failing
    divergences = [p.divergence for p in pairs]
    return divergences.index(max(divergences))


def _pair(base: _Run, cand: _Run, report: DiffReport, known: _Distances) -> PairSummary:
    found = list(map(_OP, report.alignment))  # counted at C speed (`Op.value` is Python-level)
    ops = OpCounts(**{op.value: found.count(op) for op in Op})
    deltas = report.deltas
    return PairSummary(
        baseline=base.location,
        candidate=cand.location,
        route_distance=_distance(base, cand, known),
        divergence=report.divergence,
        passed=report.passed,
        first_divergence=_first_divergence(report),
        ops=ops,
        deltas={name: getattr(deltas, name) for name in _DELTAS},
        new_loops=[
            f"{' → '.join(loop.names)} ×{loop.repetitions}" for loop in report.loops if loop.new
        ],
        violations=list(report.gate.violations),
        warnings=list(report.gate.warnings),
        folded_framework_steps=_folded(report),
    )


def _folded(report: DiffReport) -> dict[str, int] | None:
    """Each side's folded framework steps (`Summary.folded_framework_steps`); None: not folded."""
    b, c = report.baseline.folded_framework_steps, report.candidate.folded_framework_steps
    return None if b is None or c is None else {"baseline": b, "candidate": c}


def _first_divergence(report: DiffReport) -> FirstDivergence | None:
    first = report.first_divergence
    if first is None:
        return None
    alignment = report.alignment
    # the entry itself (an earlier equal entry would be the first divergence); equality only
    # for a report whose entries are copies
    position = next((i for i, entry in enumerate(alignment) if entry is first), None)
    if position is None:
        position = alignment.index(first)
    return FirstDivergence(
        position=position,
        op=first.op.value,
        baseline=_name(first.baseline),
        candidate=_name(first.candidate),
    )


def _name(ref: Any) -> StepName | None:
    return None if ref is None else StepName(step_type=ref.step_type.value, name=ref.name)
