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
from agentdiff.diff.order import Side, prepare
from agentdiff.diff.signatures import Signer
from agentdiff.diff.totals import memoized_totals
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
    shape: RouteShape | None = field(default=None, compare=False, repr=False)
    """Which steps of `route` are one concurrent group (read only for a skeleton printed)."""

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
) -> RunProfile:
    """Read `trace` once into a `RunProfile`.

    `side` is the trace prepared already, `route` its `side_route` when the caller has it.
    """
    options = options or CompareOptions()
    strict = options.strict_tool_signatures
    if side is None:
        side = prepare(trace, Signer(Normalizer(options.ignore), strict=strict))
    summary = memoized_totals(trace, side, options.prices)[0]  # what compare() reports
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
        shape=RouteShape.of(side),
    )


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
