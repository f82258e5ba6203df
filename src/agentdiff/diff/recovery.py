"""Errors and recovery: for each failed candidate step, how many steps until it is back on path."""

from __future__ import annotations

from agentdiff.diff.align import Pair
from agentdiff.models.report import Op, Recovery
from agentdiff.models.trace import StepStatus, TraceStep

__all__ = ["recoveries"]

_ON_PATH = (Op.MATCH, Op.REORDER)


def recoveries(pairs: list[Pair], ops: list[Op], candidate: list[TraceStep]) -> list[Recovery]:
    """One `Recovery` per candidate error step, in candidate order."""
    out = []
    next_on_path = _next_on_path(pairs, ops)
    for i, pair in enumerate(pairs):
        if pair.candidate is None:
            continue
        step = candidate[pair.candidate]
        if step.status is not StepStatus.ERROR:
            continue
        target = next_on_path[i] if ops[i] not in _ON_PATH else i
        steps = None
        if target is not None:
            steps = sum(1 for p in pairs[i:target] if p.candidate is not None)
        out.append(
            Recovery(
                error_step_id=step.step_id,
                steps_to_recover=steps,
                recovered=target is not None,
                retry=_retried(step, candidate, pair.candidate),
            )
        )
    return out


def _next_on_path(pairs: list[Pair], ops: list[Op]) -> list[int | None]:
    out: list[int | None] = [None] * len(pairs)
    upcoming: int | None = None
    for i in range(len(pairs) - 1, -1, -1):
        out[i] = upcoming
        if ops[i] in _ON_PATH and pairs[i].candidate is not None:
            upcoming = i
    return out


def _retried(step: TraceStep, candidate: list[TraceStep], index: int) -> bool:
    for later in candidate[index + 1 :]:
        if later.step_type is step.step_type:
            return later.name == step.name and later.input_payload == step.input_payload
    return False
