"""A side prepared in another process: what `prepare` found, in plain data, and its adoption.

`portable_side(trace, options)` prepares a trace with a signer of its own and keeps what the
preparation found as plain lists (positions, base keys, call keys, depths, groups, turns), which
pickle cheaply; `adopted_side(trace, portable, signer)` makes of it the `Side` that
`prepare(trace, signer)` would make, for the same trace (loaded from the same bytes) and the
signer of the comparison: the base keys are interned in the order a preparation would intern
them, and the exact keys made by that signer, so ids are those of `prepare`. `agentdiff compare`
prepares a large candidate this way in a child process while it loads and prepares the
baseline (`cli.side_ahead`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, NamedTuple

from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.options import CompareOptions
from agentdiff.diff.order import Side, prepare_ordered
from agentdiff.diff.pricing import ModelPrice
from agentdiff.diff.signatures import Signer
from agentdiff.diff.totals import memoized_totals
from agentdiff.models.report import StepRef, Summary, step_fields
from agentdiff.models.trace import AgentTrace

__all__ = ["PortableSide", "adopted_side", "portable_side"]


class PortableSide(NamedTuple):
    """What `prepare` found of a trace of `size` steps, without a step or a signer's id."""

    size: int
    order: list[int] | None
    """The execution order (positions in the trace's steps; None: as listed)."""
    base_keys: list[Hashable]
    """The base keys the preparation interned, in the order it interned them."""
    base: list[int]
    """Each step's base key, as an index of `base_keys` (execution order, as every list)."""
    call: dict[int, str]
    depth: list[int]
    group: list[int]
    turn: list[Any]
    failed: list[int]
    canon: list[int] | None
    wall_clock: tuple[float, float] | None
    model_turns: list[int]
    """The positions in the trace's steps of its model turns (in the order listed)."""
    names_models: bool
    totals: tuple[Summary, dict[int, int | None]]
    """The side's totals and later attempts (`memoized_totals` with the options' prices)."""


def portable_side(trace: AgentTrace, options: CompareOptions) -> PortableSide:
    """`trace` prepared as a comparison with `options` prepares it, as plain data."""
    signer = Signer(Normalizer(options.ignore), strict=options.strict_tool_signatures)
    side, order = prepare_ordered(trace, signer)
    summary, attempts = memoized_totals(trace, side, options.prices)
    position = {id(held): i for i, held in enumerate(map(step_fields, trace.steps))}
    return PortableSide(
        size=len(trace.steps),
        order=order,
        base_keys=signer.base_keys(),
        base=side.base,
        call=side.call,
        depth=side.depth,
        group=side.group,
        turn=side.turn,
        failed=side.failed,
        canon=side.canon,
        wall_clock=side.wall_clock,
        model_turns=[position[id(held)] for held in side.model_turns],
        names_models=side.names_models,
        totals=(summary, dict(attempts)),
    )


def adopted_side(
    trace: AgentTrace,
    portable: PortableSide,
    signer: Signer,
    prices: Mapping[str, ModelPrice] | None = None,
) -> Side:
    """The `Side` `prepare(trace, signer)` makes, from `portable_side` of the same trace.

    With the comparison's `prices` (the options' table `portable_side` was made with), the side
    holds its totals already (`memoized_totals`). `ValueError` when `portable` is of a trace of
    another size (it is of another trace).
    """
    steps = trace.steps
    if portable.size != len(steps):
        msg = f"a side of {portable.size} steps is not of a trace of {len(steps)}"
        raise ValueError(msg)
    side = Side(
        wall_clock=portable.wall_clock,
        model_turns=[step_fields(steps[i]) for i in portable.model_turns],
        names_models=portable.names_models,
    )
    order = portable.order
    side.steps = steps if order is None else list(map(steps.__getitem__, order))
    side.refs = list(map(StepRef.of_fields, map(step_fields, side.steps)))
    side.base = list(map(signer.base_ids(portable.base_keys).__getitem__, portable.base))
    side.call, side.depth, side.group = portable.call, portable.depth, portable.group
    side.turn, side.canon, side.failed = portable.turn, portable.canon, portable.failed
    failed = [False] * len(steps)
    for i in portable.failed:
        failed[i] = True
    side.exact = signer.exacts(side.base, failed, side.call)
    side.succeeded = signer.succeeded(side.base, side.failed, side.call)
    if prices is not None:
        side.totals = (trace, prices, *portable.totals)
    return side
