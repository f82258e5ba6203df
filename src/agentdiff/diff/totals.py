"""A trace's totals (steps, tokens, cost, latency) exactly as `compare()` computes them.

`agentdiff inspect` and `agentdiff compare` show the same numbers for the same trace because
both come from `metrics.summarize` over the same prepared side (wall clock included).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from operator import attrgetter

from agentdiff.diff.metrics import summarize
from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.order import Side, prepare
from agentdiff.diff.pricing import DEFAULT_PRICES, ModelPrice
from agentdiff.diff.recovery import later_attempts
from agentdiff.diff.signatures import Signer
from agentdiff.models.report import Summary
from agentdiff.models.trace import AgentTrace

__all__ = ["memoized_totals", "side_totals", "trace_totals", "with_folded"]

_NAME = attrgetter("name")

Attempts = Mapping[int, int | None]
"""Position of each failed step → position of its later attempt (`recovery.later_attempts`)."""


def trace_totals(trace: AgentTrace, prices: Mapping[str, ModelPrice] = DEFAULT_PRICES) -> Summary:
    """The `Summary` `compare()` would report for `trace` as either side."""
    side = prepare(trace, Signer(Normalizer(), strict=False))
    return memoized_totals(trace, side, prices)[0]


def with_folded(summary: Summary, given: AgentTrace, folded: AgentTrace) -> Summary:
    """`summary` (of `folded`, `fold_framework_steps(given)`) saying how many steps folding removed.

    The count is of the steps actually removed (`given`'s minus `folded`'s, 0 when none was):
    `summary.steps` plus it is the step count of the run as given.
    """
    removed = len(given.steps) - len(folded.steps)
    return summary.model_copy(update={"folded_framework_steps": removed})


def memoized_totals(
    trace: AgentTrace, side: Side, prices: Mapping[str, ModelPrice]
) -> tuple[Summary, Attempts]:
    """`side_totals` and `later_attempts` of a prepared side, computed once per side.

    A side prepared once and compared in many pairs (a suite's N-vs-M scenario) is summarized
    on its first compare only; the memo holds for the same trace and price table. Both results
    are read-only (a `Summary` is frozen).
    """
    memo = side.totals
    if memo is not None and memo[0] is trace and memo[1] is prices:
        return memo[2], memo[3]
    attempts = later_attempts(side)
    summary = side_totals(trace, side, prices, attempts)
    side.totals = (trace, prices, summary, attempts)
    return summary, attempts


def side_totals(
    trace: AgentTrace,
    side: Side,
    prices: Mapping[str, ModelPrice],
    attempts: Mapping[int, int | None],
) -> Summary:
    """The `Summary` of one prepared side; `attempts` from `recovery.later_attempts(side)`."""
    refs = side.refs
    return summarize(
        trace,
        prices,
        side.wall_clock,
        refs,
        retries=sum(later is not None for later in attempts.values()),
        tool_counts=dict(Counter(map(_NAME, map(refs.__getitem__, side.call)))),
        # the side lists every tool call and every failed attempt: no count over the steps
        tool_calls=len(side.call),
        errors=len(side.failed),
        turns=side.model_turns,
    )
