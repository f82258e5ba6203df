"""A trace's totals (steps, tokens, cost, latency) exactly as `compare()` computes them.

`agentdiff inspect` and `agentdiff compare` show the same numbers for the same trace because
both come from `metrics.summarize` over the same prepared side (wall clock included).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from agentdiff.diff.metrics import summarize
from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.order import Side, prepare
from agentdiff.diff.pricing import DEFAULT_PRICES, ModelPrice
from agentdiff.diff.recovery import later_attempts
from agentdiff.diff.signatures import Signer
from agentdiff.models.report import Summary
from agentdiff.models.trace import AgentTrace

__all__ = ["side_totals", "trace_totals"]


def trace_totals(trace: AgentTrace, prices: Mapping[str, ModelPrice] = DEFAULT_PRICES) -> Summary:
    """The `Summary` `compare()` would report for `trace` as either side."""
    side = prepare(trace, Signer(Normalizer(), strict=False))
    return side_totals(trace, side, prices, later_attempts(side))


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
        tool_counts=dict(Counter(refs[i].name for i in side.call)),
    )
