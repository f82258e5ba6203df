"""What the statistics read of one run: its totals, loops, route and outcome, read once.

The trace is prepared once as the engine prepares a side (canonical order, call keys), so the
route, the loops and the totals agree with what `compare` reports for the same run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agentdiff.diff.loops import side_loops
from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.options import CompareOptions
from agentdiff.diff.order import Side, places_in, prepare
from agentdiff.diff.signatures import Signer
from agentdiff.diff.totals import memoized_totals, with_folded
from agentdiff.models.report import Summary
from agentdiff.models.trace import AgentTrace
from agentdiff.routes.route import RouteShape, side_route

__all__ = ["METRICS", "LoopSeen", "RunProfile", "profile_run"]

METRICS = ("steps", "tool_calls", "model_turns", "total_tokens", "cost_usd", "latency_ms")
"""The continuous per-run metrics, in report order.

`model_turns`, not `llm_calls`: a LangGraph or CrewAI run's model turns are routing and
response steps, so its `llm_call` steps are none in every run and would test nothing.
"""

_OUTCOME_KEYS = ("success", "passed", "outcome")


@dataclass(frozen=True)
class LoopSeen:
    """A loop in one run: the calls repeated (name + normalized arguments) and how often."""

    key: tuple[str, ...]
    names: tuple[str, ...]
    repetitions: int
    kind: str


@dataclass(frozen=True)
class RunProfile:
    """One run's per-run metrics (None: unknown), loops, route and outcome."""

    run_id: str
    steps: int
    tool_calls: int
    llm_calls: int
    """Steps typed `llm_call` (the report's run rows give it; not tested)."""
    model_turns: int
    """Every model turn, whatever step type it maps to (`Summary.model_turns`): the tested one."""
    errors: int
    retries: int
    total_tokens: int | None
    cost_usd: float | None
    latency_ms: float | None
    loops: tuple[LoopSeen, ...]
    route: tuple[str, ...]
    outcome: bool | None
    """The trace's own verdict (`metadata.success` / `passed` / `outcome`), when it has one."""
    partly: tuple[str, ...] = ()
    """The metrics the run reports for only some of its model turns (`total_tokens` when a
    turn gives no tokens, `cost_usd` when one cannot be priced): unknown as totals (None), as
    `compare` does not judge them, since the sum of the turns that report is not the run's."""
    folded_framework_steps: int | None = None
    """Framework steps folded before it was read (`fold_framework_steps`; None: folding off):
    `steps`, `route` and the other counts are of the steps kept (`Summary` of the same name)."""
    shape: RouteShape | None = field(default=None, compare=False, repr=False)
    """Which steps of `route` are one concurrent group (read only for a skeleton printed)."""
    places: tuple[int, ...] | None = field(default=None, compare=False, repr=False)
    """Of a folded run: each `route` position's place (1-based) in the run as given, in the
    order it ran, then one past its last step (None: the route's positions are the run's own).
    A route position shown to the user (a departure) is this place, as `compare` shows one."""

    def metric(self, name: str) -> float | None:
        """A continuous metric by name (see `METRICS`)."""
        value = getattr(self, name)
        return None if value is None else float(value)


def profile_run(
    trace: AgentTrace,
    run_id: str,
    options: CompareOptions | None = None,
    side: Side | None = None,
    route: Sequence[str] | None = None,
    *,
    given: AgentTrace | None = None,
) -> RunProfile:
    """Read `trace` once into a `RunProfile`.

    `side` is the trace prepared already, `route` its `side_route` when the caller has it.
    `given`: the run as given when `trace` is its folded copy (`fold_framework_steps(given)`);
    the profile then says how many steps folding removed, and where each route step is in
    `given` (`places`). A caller reading many runs of one scenario profiles them through its
    `PairComparer` (`PairComparer.profile`), which folds.
    """
    options = options or CompareOptions()
    strict = options.strict_tool_signatures
    if side is None:
        side = prepare(trace, Signer(Normalizer(options.ignore), strict=strict))
    summary = memoized_totals(trace, side, options.prices)[0]  # what compare() reports
    if given is not None:
        summary = with_folded(summary, given, trace)
    loops = side_loops(side) if options.detect_loops else []
    partly = _partly(summary)
    return RunProfile(
        run_id=run_id,
        steps=summary.steps,
        tool_calls=summary.tool_calls,
        llm_calls=summary.llm_calls,
        model_turns=summary.model_turns,
        errors=summary.errors,
        retries=summary.retries,
        total_tokens=None if "total_tokens" in partly else summary.total_tokens,
        cost_usd=None if "cost_usd" in partly else summary.cost_usd,
        latency_ms=summary.latency_ms,
        loops=tuple(LoopSeen(lp.key, tuple(lp.names), lp.repetitions, lp.kind) for lp in loops),
        route=tuple(side_route(side, strict=strict) if route is None else route),
        outcome=_outcome(trace),
        partly=partly,
        folded_framework_steps=summary.folded_framework_steps,
        shape=RouteShape.of(side),
        places=None if given is None else _places(given, side),
    )


def _places(given: AgentTrace, side: Side) -> tuple[int, ...]:
    """Each route position of `side` (of `given` folded): its 1-based place in `given`."""
    place = places_in(given, side)
    order = range(len(side.steps)) if side.canon is None else side.canon
    return (*(place(k) + 1 for k in order), len(given.steps) + 1)


def _partly(summary: Summary) -> tuple[str, ...]:
    """The totals of `summary` that cover only some of its model turns (see `partly`)."""
    tokens, cost = summary.token_coverage, summary.cost_coverage
    return tuple(
        name
        for name, coverage in (("total_tokens", tokens), ("cost_usd", cost))
        if coverage is not None and coverage.partial
    )


def _outcome(trace: AgentTrace) -> bool | None:
    meta = trace.metadata or {}
    for key in _OUTCOME_KEYS:
        value = meta.get(key)
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in {
            "success",
            "pass",
            "passed",
            "fail",
            "failed",
        }:
            return value.lower() in {"success", "pass", "passed"}
    return None
