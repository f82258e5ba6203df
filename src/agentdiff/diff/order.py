"""Execution order: a trace's DAG linearized, with its concurrent groups made canonical.

Parents come before children (a depth-first pre-order over the parent links); siblings are
ordered by `metadata.started_at` when every step has one, else by `step_index`. A step whose
parent is unknown is a root. Steps that ran concurrently — consecutive tool-call siblings (the
calls of one LLM turn) or siblings whose `[started_at, ended_at]` intervals overlap — are put in a
canonical order (by a caller-supplied key) so that a different finishing order does not read as
a divergence; `Linear.rank` remembers each step's original position in its group.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from datetime import datetime

from agentdiff.adapters.timestamps import parse_iso
from agentdiff.models.trace import AgentTrace, StepType, TraceStep

__all__ = ["Linear", "linearize"]


@dataclass
class Linear:
    """A trace in execution order."""

    steps: list[TraceStep]
    rank: dict[str, int] = field(default_factory=dict)
    """step_id → original position inside its concurrent group (only for grouped steps)."""


def _times(trace: AgentTrace) -> dict[str, tuple[float, float]] | None:
    out: dict[str, tuple[float, float]] = {}
    for step in trace.steps:
        meta = step.metadata
        started = meta.get("started_at") if meta else None
        start = parse_iso(started) if isinstance(started, str) else None
        if start is None:
            return None
        ended = meta.get("ended_at") if meta else None
        end = parse_iso(ended) if isinstance(ended, str) else None
        out[step.step_id] = (_epoch(start), _epoch(end) if end else _epoch(start))
    return out


def _epoch(moment: datetime) -> float:
    return moment.timestamp()


def linearize(
    trace: AgentTrace, group_key: Callable[[TraceStep], Hashable] | None = None
) -> Linear:
    """The steps of `trace` in execution order; concurrent groups sorted by `group_key`."""
    steps = trace.steps
    times = _times(trace)
    ids = {s.step_id for s in steps}
    children: dict[str | None, list[TraceStep]] = {}
    for step in steps:
        parent = step.parent_id if step.parent_id in ids else None
        children.setdefault(parent, []).append(step)
    if times is None:

        def order(s: TraceStep) -> tuple[float, int]:
            return (0.0, s.step_index)
    else:

        def order(s: TraceStep) -> tuple[float, int]:
            return (times[s.step_id][0], s.step_index)

    linear = Linear(steps=[])
    for kids in children.values():
        kids.sort(key=order)
        if group_key is not None:
            _canonicalize(kids, times, group_key, linear.rank)
    stack = list(reversed(children.get(None, [])))
    while stack:
        step = stack.pop()
        linear.steps.append(step)
        stack.extend(reversed(children.get(step.step_id, ())))
    return linear


def _canonicalize(
    kids: list[TraceStep],
    times: dict[str, tuple[float, float]] | None,
    key: Callable[[TraceStep], Hashable],
    rank: dict[str, int],
) -> None:
    start = 0
    while start < len(kids):
        end = start + 1
        while end < len(kids) and _concurrent(kids[end - 1], kids[end], times):
            end += 1
        if end - start > 1:
            group = kids[start:end]
            for position, step in enumerate(group):
                rank[step.step_id] = position
            group.sort(key=lambda s: repr(key(s)))
            kids[start:end] = group
        start = end


def _concurrent(a: TraceStep, b: TraceStep, times: dict[str, tuple[float, float]] | None) -> bool:
    if a.step_type is StepType.TOOL_CALL and b.step_type is StepType.TOOL_CALL:
        return True  # consecutive tool-call siblings: the calls of one LLM turn
    if times is None:
        return False
    return times[b.step_id][0] < times[a.step_id][1]
