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

from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from itertools import islice
from operator import attrgetter, is_not, le
from typing import Any

from agentdiff.diff.signatures import Signer
from agentdiff.models.report import StepRef
from agentdiff.models.trace import FAILED, AgentTrace, StepType, TraceStep
from agentdiff.timeparse import parse_iso

__all__ = ["Side", "prepare"]

_TOOL = StepType.TOOL_CALL
_INDEX = attrgetter("ref.step_index")
_START = attrgetter("start")
_END = attrgetter("end")
_KNOWN = partial(is_not, None)
"""`_KNOWN(v)`: v is not None, at C speed (in `filter`)."""


@dataclass
class Side:
    """A trace in execution order with its per-step keys (lists index-aligned with `steps`)."""

    steps: list[TraceStep] = field(default_factory=list)
    refs: list[StepRef] = field(default_factory=list)
    """`StepRef.of(step)` of each step (built while the step was being read anyway)."""
    base: list[int] = field(default_factory=list)
    exact: list[int] = field(default_factory=list)
    call: dict[int, str] = field(default_factory=dict)
    """Position of each tool call → its call key."""
    rank: list[int | None] = field(default_factory=list)
    """Each step's original position inside its concurrent group (None: not grouped)."""
    wall_clock: tuple[float, float] | None = None
    """Earliest start and latest end over the steps that have them (epoch seconds)."""


@dataclass(slots=True)
class _Node:
    """What ordering needs of one step, read off the step once."""

    step: TraceStep
    ref: StepRef
    base: int
    call: str | None
    failed: bool
    # One kind per trace: ISO UTC strings of one layout (ordered as text), else epoch floats.
    start: Any
    end: Any
    kids: list[_Node] | None = None
    """Its children, in order (None: a leaf)."""
    rank: int | None = None
    """Its original position inside its concurrent group (None: not grouped)."""


def prepare(trace: AgentTrace, signer: Signer) -> Side:
    """Parse, sign and order `trace` once."""
    nodes = _nodes(trace.steps, signer)
    starts, ends = list(map(_START, nodes)), list(map(_END, nodes))
    timed = bool(nodes) and None not in starts
    if not _uniform_utc(starts, ends):
        for node in nodes:
            node.start, node.end = _epoch(node.start), _epoch(node.end)
        starts, ends = list(map(_START, nodes)), list(map(_END, nodes))
    groups = _children(nodes, timed=timed)
    side = Side(wall_clock=_wall_clock(starts, ends))
    for kids in groups:
        if len(kids) > 1:
            _canonicalize(kids, timed=timed)
    _preorder(groups[0], side, signer)
    return side


def _nodes(steps: list[TraceStep], signer: Signer) -> list[_Node]:
    """One pass over the steps: everything later passes need, so they never touch a step."""
    base_of, call_of, ref_of = signer.base, signer.call_key, StepRef.of
    nodes = []
    for step in steps:
        meta = step.metadata
        if meta:
            start, end = meta.get("started_at"), meta.get("ended_at")
        else:
            start = end = None
        ref = ref_of(step)
        nodes.append(
            _Node(
                step,
                ref,
                base_of(step),
                call_of(step) if ref.step_type is _TOOL else None,
                ref.status in FAILED,
                start,
                start if end is None else end,
            )
        )
    return nodes


def _preorder(roots: list[_Node], side: Side, signer: Signer) -> None:
    """Depth-first pre-order from the roots (every parent before its children) into `side`."""
    steps, refs, base, exact, call = side.steps, side.refs, side.base, side.exact, side.call
    rank = side.rank
    exact_of = signer.exact
    stack = list(reversed(roots))
    pop, extend = stack.pop, stack.extend
    while stack:
        node = pop()
        key = node.call
        if key is not None:
            call[len(steps)] = key
        steps.append(node.step)
        refs.append(node.ref)
        rank.append(node.rank)
        base.append(node.base)
        exact.append(exact_of(node.base, node.failed, key))
        kids = node.kids
        if kids:
            extend(reversed(kids))


def _uniform_utc(starts: list[Any], ends: list[Any]) -> bool:
    """Every timestamp is an ISO UTC string of one fixed layout (what adapters write).

    Such strings order exactly like the instants they name, so they are compared as they are
    and only the earliest and latest are parsed.
    """
    values = [*filter(_KNOWN, starts), *filter(_KNOWN, ends)]
    if not values:
        return True
    try:
        text = "".join(values)  # every value is a string, or TypeError
    except TypeError:
        return False
    lengths = set(map(len, values))
    size = lengths.pop()
    if lengths or size < _ISO_MIN:
        return False
    # the 11th and the last character of every value, read off the joined text at C speed
    n = len(values)
    return text[10::size].count("T") == n and text[size - 1 :: size].count("Z") == n


_ISO_MIN = 11
"""From this length on every value has an 11th character (which must be the "T")."""


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


def _children(nodes: list[_Node], *, timed: bool) -> list[list[_Node]]:
    """Every sibling group, the roots first (a step whose parent is unknown is a root).

    Each group is ordered by start time when timed, then by `step_index`, and is also the
    `kids` of its parent node.
    """
    by_id = dict(zip(map(attrgetter("ref.step_id"), nodes), nodes, strict=True))
    indexes = list(map(_INDEX, nodes))
    if not all(map(le, indexes, islice(indexes, 1, None))):
        nodes = sorted(nodes, key=_INDEX)
    roots: list[_Node] = []
    groups = [roots]
    parent_of = by_id.get
    for node in nodes:
        parent = parent_of(node.ref.parent_id)  # None for a root
        if parent is None:
            roots.append(node)
        elif parent.kids is None:
            parent.kids = [node]
            groups.append(parent.kids)
        else:
            parent.kids.append(node)
    if timed:
        for kids in groups:
            if len(kids) > 1:
                kids.sort(key=_START)  # stable: equal starts keep step_index order
    return groups


def _wall_clock(starts: list[Any], ends: list[Any]) -> tuple[float, float] | None:
    known_starts, known_ends = list(filter(_KNOWN, starts)), list(filter(_KNOWN, ends))
    if not (known_starts and known_ends):
        return None
    first, last = _epoch(min(known_starts)), _epoch(max(known_ends))
    return (first, last) if first is not None and last is not None else None


def _canonicalize(kids: list[_Node], *, timed: bool) -> None:
    start = 0
    while start < len(kids):
        end = start + 1
        while end < len(kids) and _concurrent(kids[end - 1], kids[end], timed=timed):
            end += 1
        if end - start > 1:
            group = kids[start:end]
            for position, node in enumerate(group):
                node.rank = position
            # an intrinsic key (not interning order), so both sides sort alike whichever is first
            group.sort(key=_canonical_key)
            kids[start:end] = group
        start = end


def _canonical_key(node: _Node) -> tuple[str, str, str]:
    return (node.ref.step_type._value_, node.ref.name, node.call or "")


def _concurrent(a: _Node, b: _Node, *, timed: bool) -> bool:
    if a.call is not None and b.call is not None:
        return True  # consecutive tool-call siblings: the calls of one LLM turn
    return timed and b.start is not None and a.end is not None and b.start < a.end
