"""Errors and recovery: for each failed candidate step, how many steps until it is back on path."""

from __future__ import annotations

from agentdiff.diff.align import Pair
from agentdiff.diff.order import Side
from agentdiff.models.report import ON_PATH, Op, Recovery
from agentdiff.models.trace import StepStatus

__all__ = ["recoveries"]


def recoveries(pairs: list[Pair], ops: list[Op], candidate: Side) -> list[Recovery]:
    """One `Recovery` per candidate error step, in candidate order.

    `steps_to_recover` counts the candidate steps from the error up to the next step back on the
    baseline path (0 when the error itself is on it); `retry` says the next step of the same type
    is the identical call (same name, same normalized arguments).
    """
    out = []
    next_on_path = _next_on_path(pairs, ops)
    for i, pair in enumerate(pairs):
        position = pair.candidate
        if position is None or candidate.refs[position].status is not StepStatus.ERROR:
            continue
        target = i if ops[i] in ON_PATH else next_on_path[i]
        steps = None
        if target is not None:
            steps = sum(1 for p in pairs[i:target] if p.candidate is not None)
        out.append(
            Recovery(
                error_step_id=candidate.refs[position].step_id,
                steps_to_recover=steps,
                recovered=target is not None,
                retry=_retried(candidate, position),
            )
        )
    return out


def _next_on_path(pairs: list[Pair], ops: list[Op]) -> list[int | None]:
    out: list[int | None] = [None] * len(pairs)
    upcoming: int | None = None
    for i in range(len(pairs) - 1, -1, -1):
        out[i] = upcoming
        if ops[i] in ON_PATH and pairs[i].candidate is not None:
            upcoming = i
    return out


def _retried(side: Side, position: int) -> bool:
    failed = side.steps[position]
    for later in range(position + 1, len(side.steps)):
        step = side.steps[later]
        if step.step_type is failed.step_type:
            same_call = side.call.get(later) == side.call.get(position)
            return (
                step.name == failed.name
                and same_call
                and (position in side.call or step.input_payload == failed.input_payload)
            )
    return False
