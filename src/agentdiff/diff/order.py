"""One side of a comparison prepared once: execution order, signatures, call keys, wall clock.

Execution order: parents before children (a depth-first pre-order over the parent links);
siblings by `metadata.started_at` when every step has one, else by `step_index`. A step whose
parent is unknown is a root. Steps that ran concurrently — consecutive tool-call siblings (the
calls of one LLM turn) or siblings whose `[started_at, ended_at]` intervals overlap — are put in
a canonical order (by signature and call key) so that a different finishing order does not read
as a divergence; `Side.rank` remembers each step's original position in its group.

Every timestamp is parsed once and every tool call's arguments normalized once, here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from operator import attrgetter
from typing import Any

from agentdiff.adapters.timestamps import parse_iso
from agentdiff.diff.signatures import Signer
from agentdiff.models.trace import AgentTrace, StepType, TraceStep

__all__ = ["Side", "prepare"]

_TOOL = StepType.TOOL_CALL
_STEP_INDEX = attrgetter("step.step_index")
_START = attrgetter("start")
_END = attrgetter("end")


@dataclass
class Side:
    """A trace in execution order with its per-step keys (lists index-aligned with `steps`)."""

    steps: list[TraceStep] = field(default_factory=list)
    base: list[int] = field(default_factory=list)
    exact: list[int] = field(default_factory=list)
    call: dict[int, str] = field(default_factory=dict)
    """Position of each tool call → its call key."""
    rank: dict[str, int] = field(default_factory=dict)
    """step_id → original position inside its concurrent group (grouped steps only)."""
    wall_clock: tuple[float, float] | None = None
    """Earliest start and latest end over the steps that have them (epoch seconds)."""


@dataclass(slots=True)
class _Node:
    step: TraceStep
    base: int
    call: str | None
    # One kind per trace: ISO UTC strings of one layout (ordered as text), else epoch floats.
    start: Any
    end: Any


def prepare(trace: AgentTrace, signer: Signer) -> Side:
    """Parse, sign and order `trace` once."""
    nodes = [_node(step, signer) for step in trace.steps]
    timed = bool(nodes) and all(n.start is not None for n in nodes)
    if not _uniform_utc(nodes):
        for node in nodes:
            node.start, node.end = _epoch(node.start), _epoch(node.end)
    children = _children(nodes, timed=timed)
    side = Side(wall_clock=_wall_clock(nodes))
    for kids in children.values():
        _canonicalize(kids, side.rank, timed=timed)
    ordered = list(_preorder(children))
    side.steps = [node.step for node in ordered]
    side.base = [node.base for node in ordered]
    side.exact = [signer.exact(node.base, node.step, node.call) for node in ordered]
    side.call = {i: node.call for i, node in enumerate(ordered) if node.call is not None}
    return side


def _preorder(children: dict[str | None, list[_Node]]) -> Iterator[_Node]:
    """Depth-first pre-order from the roots: every parent before its children."""
    stack = list(reversed(children.get(None, [])))
    pop, extend, kids_of = stack.pop, stack.extend, children.get
    while stack:
        node = pop()
        yield node
        kids = kids_of(node.step.step_id)
        if kids:
            extend(reversed(kids))


def _node(step: TraceStep, signer: Signer) -> _Node:
    meta = step.metadata
    if meta:
        start, end = meta.get("started_at"), meta.get("ended_at")
    else:
        start = end = None
    call = signer.call_key(step) if step.step_type is _TOOL else None
    return _Node(step, signer.base(step), call, start, start if end is None else end)


def _uniform_utc(nodes: list[_Node]) -> bool:
    """Every timestamp is an ISO UTC string of one fixed layout (what adapters write).

    Such strings order exactly like the instants they name, so they are compared as they are
    and only the earliest and latest are parsed.
    """
    values = [v for v in map(_START, nodes) if v is not None]
    values += [v for v in map(_END, nodes) if v is not None]
    if not all(isinstance(v, str) for v in values):
        return False
    return len(set(map(len, values))) <= 1 and {v[10:11] + v[-1:] for v in values} <= {"TZ"}


def _epoch(value: object) -> float | None:
    if isinstance(value, float):
        return value
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)  # the common case, at C speed
    except ValueError:
        parsed = parse_iso(value)  # "Z" on Python 3.10, compact forms
        if parsed is None:
            return None
        moment = parsed
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def _children(nodes: list[_Node], *, timed: bool) -> dict[str | None, list[_Node]]:
    """Children of each step (None = roots), by start time when timed, then `step_index`."""
    ids = {n.step.step_id for n in nodes}
    children: dict[str | None, list[_Node]] = {}
    for node in sorted(nodes, key=_STEP_INDEX):
        parent = node.step.parent_id
        children.setdefault(parent if parent in ids else None, []).append(node)
    if timed:
        for kids in children.values():
            kids.sort(key=_START)  # stable: equal starts keep step_index order
    return children


def _wall_clock(nodes: list[_Node]) -> tuple[float, float] | None:
    starts = [n.start for n in nodes if n.start is not None]
    ends = [n.end for n in nodes if n.end is not None]
    if not (starts and ends):
        return None
    first, last = _epoch(min(starts)), _epoch(max(ends))
    return (first, last) if first is not None and last is not None else None


def _canonicalize(kids: list[_Node], rank: dict[str, int], *, timed: bool) -> None:
    start = 0
    while start < len(kids):
        end = start + 1
        while end < len(kids) and _concurrent(kids[end - 1], kids[end], timed=timed):
            end += 1
        if end - start > 1:
            group = kids[start:end]
            for position, node in enumerate(group):
                rank[node.step.step_id] = position
            # an intrinsic key (not interning order), so both sides sort alike whichever is first
            group.sort(key=lambda n: (n.step.step_type.value, n.step.name, n.call or ""))
            kids[start:end] = group
        start = end


def _concurrent(a: _Node, b: _Node, *, timed: bool) -> bool:
    if a.step.step_type is _TOOL and b.step.step_type is _TOOL:
        return True  # consecutive tool-call siblings: the calls of one LLM turn
    return timed and b.start is not None and a.end is not None and b.start < a.end
