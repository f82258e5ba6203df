"""One side of a comparison prepared once: execution order, concurrency, signatures, call keys.

**Execution order**: parents before children (a depth-first pre-order over the parent links);
siblings by `metadata.started_at` when every sibling of the group has one, else by
`step_index`. A step whose parent is unknown is a root. `Side` lists every step in this order:
each side is reported in the order it actually ran.

**Concurrency, from evidence**: consecutive siblings are one concurrent group when

- an adapter put them in the same turn (equal `metadata.turn_id`; different turn ids are
  different turns, whatever the timing), or
- both are tool calls whose parent is an `llm_call` (the calls one model message issued);
- otherwise only when both have times and their `[started_at, ended_at]` windows overlap
  (decided per pair: an untimed step is sequential with its neighbours, and never switches
  timing off for the rest of the trace). Parentless roots of a flat trace are not one turn.

The alignment reads each concurrent group in a **canonical order** (stably by step type and
name, then — between equal-named wrappers of calls one model message issued — by the types and
names of the steps they wrap; never by arguments) so that the same calls issued in another
order still pair up;
`Side.canon` lists the steps' positions in that order (None when it is the execution order).

Every timestamp is parsed once and every tool call's arguments normalized once, here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from itertools import compress, islice
from operator import attrgetter, is_not, le, lt
from typing import TYPE_CHECKING, Any

import msgspec

from agentdiff.diff.signatures import Signer
from agentdiff.models.report import StepRef, Summary, step_fields
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TraceStep
from agentdiff.timeparse import parse_iso

if TYPE_CHECKING:
    from agentdiff.diff.loops import Loop
    from agentdiff.diff.pricing import ModelPrice

__all__ = ["MAX_DEPTH", "Side", "prepare"]

MAX_DEPTH = 63
"""Depths past this are recorded as this (the alignment packs a key and a depth in one int)."""

_TOOL = StepType.TOOL_CALL
_LLM = StepType.LLM_CALL
_ERROR, _RETRY = StepStatus.ERROR, StepStatus.RETRY
"""The `FAILED` statuses, compared by identity (an enum's hash runs Python code)."""
_INDEX = attrgetter("ref.step_index")
_START = attrgetter("start")
_END = attrgetter("end")
_CALL = attrgetter("call")
_FAILED = attrgetter("failed")
_STEP = attrgetter("step")
_REF = attrgetter("ref")
_BASE = attrgetter("base")
_DEPTH = attrgetter("depth")
_GROUP = attrgetter("group")
_TURN = attrgetter("turn")
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
    depth: list[int] = field(default_factory=list)
    """Each step's depth in the tree (roots: 0; at most `MAX_DEPTH`)."""
    group: list[int] = field(default_factory=list)
    """Each step's concurrent group (-1: not in one); ids are unique within the side."""
    failed: list[int] = field(default_factory=list)
    """Positions of the failed attempts (status `error` or `retry`), in order."""
    canon: list[int] | None = None
    """The positions in canonical order (concurrent groups sorted by type and name); None when
    that is the execution order."""
    wall_clock: tuple[float, float] | None = None
    """Earliest start and latest end over the steps that have them (epoch seconds)."""
    totals: (
        tuple[AgentTrace, Mapping[str, ModelPrice], Summary, Mapping[int, int | None]] | None
    ) = None
    """The side's totals once a compare computed them (`totals.memoized_totals`), for a side
    compared in many pairs."""
    loops: list[Loop] | None = None
    """The loops of the side's tool calls once found (`loops.side_loops`), likewise."""


class _Node(msgspec.Struct, gc=False):
    """What ordering needs of one step, read off the step once.

    A `msgspec.Struct` (built in C, not tracked by the cyclic collector: nodes never form
    cycles), since one is built per step.
    """

    step: TraceStep
    ref: StepRef
    base: int
    call: str | None
    failed: bool
    # One kind per trace: ISO UTC strings of one layout (ordered as text), else epoch floats.
    start: Any
    end: Any
    turn: Any
    """`metadata.turn_id` (None: not given)."""
    kids: list[_Node] | None = None
    """Its children, in execution order (None: a leaf)."""
    canon_kids: list[_Node] | None = None
    """Its children in canonical order, when that differs from `kids`."""
    group: int = -1
    depth: int = 0
    position: int = 0


def prepare(trace: AgentTrace, signer: Signer) -> Side:
    """Parse, sign and order `trace` once."""
    nodes = _nodes(trace.steps, signer)
    starts, ends = list(map(_START, nodes)), list(map(_END, nodes))
    if not (_epochs(starts, ends) or _uniform_utc(starts, ends)):
        for node in nodes:
            node.start, node.end = _epoch(node.start), _epoch(node.end)
        starts, ends = list(map(_START, nodes)), list(map(_END, nodes))
    roots, families = _children(nodes)
    side = Side(wall_clock=_wall_clock(starts, ends))
    groups, sorted_any = 0, False
    canon_roots: list[_Node] | None = None
    for parent, kids in families:
        if len(kids) > 1:
            groups, canonical = _group(parent, kids, groups)
            if canonical is None:
                continue
            sorted_any = True
            if parent is None:
                canon_roots = canonical
            else:
                parent.canon_kids = canonical
    order = _preorder(roots, side, signer)
    if sorted_any:
        side.canon = _canonical_positions(roots if canon_roots is None else canon_roots, order)
    return side


def _nodes(steps: list[TraceStep], signer: Signer) -> list[_Node]:
    """One pass over the steps: everything later passes need, so they never touch a step."""
    base_of, call_of, ref_of = signer.base, signer.call_key, StepRef.of_fields
    base_of_kind = signer.base_of_kind
    nodes = []
    for step, held in zip(steps, map(step_fields, steps), strict=True):
        meta = held["metadata"]
        if meta:
            start, end, turn = meta.get("started_at"), meta.get("ended_at"), meta.get("turn_id")
            if turn is not None and not isinstance(turn, (str, int)):
                turn = str(turn)
        else:
            start = end = turn = None
        ref = ref_of(held)
        nodes.append(
            _Node(
                step,
                ref,
                base_of(step)
                if base_of_kind is None
                else base_of_kind((ref.step_type._value_, ref.name)),
                call_of(ref.name, held["input_payload"]) if ref.step_type is _TOOL else None,
                ref.status is _ERROR or ref.status is _RETRY,
                start,
                start if end is None else end,
                turn,
            )
        )
    return nodes


def _preorder(roots: list[_Node], side: Side, signer: Signer) -> list[_Node]:
    """Depth-first pre-order from the roots (every parent before its children) into `side`.

    The walk only lists the nodes (and passes depths down); the side's lists are then read off
    that list at C speed.
    """
    order: list[_Node] = []
    append = order.append
    stack = list(reversed(roots))
    pop, extend = stack.pop, stack.extend
    while stack:
        node = pop()
        append(node)
        kids = node.kids
        if kids:
            depth = node.depth
            below = depth + 1 if depth < MAX_DEPTH else MAX_DEPTH
            for kid in kids:
                kid.depth = below
            extend(reversed(kids))
    calls = list(map(_CALL, order))
    failed = list(map(_FAILED, order))
    side.steps = list(map(_STEP, order))
    side.refs = list(map(_REF, order))
    side.base = list(map(_BASE, order))
    side.call = {i: key for i, key in enumerate(calls) if key is not None}
    side.exact = signer.exacts(side.base, failed, side.call)
    side.depth = list(map(_DEPTH, order))
    side.group = list(map(_GROUP, order))
    side.failed = list(compress(range(len(order)), failed))
    return order


def _canonical_positions(roots: list[_Node], order: list[_Node]) -> list[int]:
    """Execution positions in the canonical pre-order (canonical children where they differ)."""
    for position, node in enumerate(order):
        node.position = position
    out: list[int] = []
    append = out.append
    stack = list(reversed(roots))
    pop, extend = stack.pop, stack.extend
    while stack:
        node = pop()
        append(node.position)
        kids = node.canon_kids or node.kids
        if kids:
            extend(reversed(kids))
    return out


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


def _epochs(starts: list[Any], ends: list[Any]) -> bool:
    """Every timestamp is an epoch float already (`_epoch` would keep them all as they are)."""
    return _FLOAT_OR_NONE.issuperset(map(type, starts)) and _FLOAT_OR_NONE.issuperset(
        map(type, ends)
    )


_FLOAT_OR_NONE = frozenset((float, type(None)))


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


def _children(nodes: list[_Node]) -> tuple[list[_Node], list[tuple[_Node | None, list[_Node]]]]:
    """The roots and every sibling group with its parent (None for the roots).

    A step whose parent is unknown is a root. Each group is ordered by `step_index`, then by
    start time when every step of the group has one, and is also the `kids` of its parent.
    """
    by_id = dict(zip(map(attrgetter("ref.step_id"), nodes), nodes, strict=True))
    indexes = list(map(_INDEX, nodes))
    if not all(map(le, indexes, islice(indexes, 1, None))):
        nodes = sorted(nodes, key=_INDEX)
    roots: list[_Node] = []
    families: list[tuple[_Node | None, list[_Node]]] = [(None, roots)]
    parent_of = by_id.get
    for node in nodes:
        parent = parent_of(node.ref.parent_id)  # None for a root
        if parent is None:
            roots.append(node)
        elif parent.kids is None:
            parent.kids = [node]
            families.append((parent, parent.kids))
        else:
            parent.kids.append(node)
    for _, kids in families:
        if len(kids) > 1 and None not in map(_START, kids):
            kids.sort(key=_START)  # stable: equal starts keep step_index order
    return roots, families


def _wall_clock(starts: list[Any], ends: list[Any]) -> tuple[float, float] | None:
    known_starts, known_ends = list(filter(_KNOWN, starts)), list(filter(_KNOWN, ends))
    if not (known_starts and known_ends):
        return None
    first, last = _epoch(min(known_starts)), _epoch(max(known_ends))
    return (first, last) if first is not None and last is not None else None


def _group(parent: _Node | None, kids: list[_Node], groups: int) -> tuple[int, list[_Node] | None]:
    """Mark the concurrent runs of `kids` (ids from `groups` on).

    Returns the next free group id and the canonical order of `kids` (None: unchanged).
    """
    llm_parent = parent is not None and parent.ref.step_type is _LLM
    if not any(map(_KNOWN, map(_TURN, kids))):
        if llm_parent and None not in map(_CALL, kids):
            return groups + 1, _mark(kids, groups)  # the calls of one model message: one turn
        if not llm_parent and not _any_overlap(kids):
            return groups, None  # no evidence of concurrency anywhere (the common case)
    canonical: list[_Node] | None = None
    start = 0
    while start < len(kids):
        end = start + 1
        while end < len(kids) and _concurrent(kids[end - 1], kids[end], llm_parent=llm_parent):
            end += 1
        if end - start > 1:
            ordered = _mark(kids[start:end], groups)
            groups += 1
            if ordered is not None:
                canonical = canonical or list(kids)
                canonical[start:end] = ordered
        start = end
    return groups, canonical


def _any_overlap(kids: list[_Node]) -> bool:
    """Some two consecutive siblings may have overlapping windows (checked at C speed).

    Fully timed siblings are in start order, so a window overlaps the next one only if the
    next starts before it ends; untimed siblings never overlap; a mix is left to `_concurrent`.
    """
    starts = list(map(_START, kids))
    if None in starts:
        return any(map(_KNOWN, starts))
    return any(map(lt, islice(starts, 1, None), map(_END, kids)))


def _mark(run: list[_Node], group: int) -> list[_Node] | None:
    """Put `run` in concurrent group `group`; its canonical order (None: already canonical)."""
    for node in run:
        node.group = group
    keys: list[Any] = list(map(_canonical_key, run))
    if len(set(keys)) < len(keys):
        keys = _wrapper_keys(run, keys)
    if all(map(le, keys, islice(keys, 1, None))):
        return None
    order = sorted(range(len(run)), key=keys.__getitem__)
    return [run[i] for i in order]


def _canonical_key(node: _Node) -> tuple[str, str]:
    """Type and name: an intrinsic key, so both sides sort alike (never the arguments)."""
    return (node.ref.step_type._value_, node.ref.name)


def _wrapper_keys(run: list[_Node], keys: list[Any]) -> list[Any]:
    """Keys that tell equal-named wrappers of one fan-out apart by what they wrap.

    LangGraph runs each call of a fan-out in its own `tools` node: when the wrappers hold tool
    calls that one model message issued (a `turn_id` they all share), they are ordered by the
    types and names of the steps under them, so two runs that issued the same calls in another
    order pair wrapper with wrapper and call with call. Without that evidence (equal-named
    steps that merely overlap in time) execution order stays.
    """
    below = [_below(node) for node in run]
    turns = [found_turns for _, found_turns in below]
    if not all(turns) or not frozenset.intersection(*turns):
        return keys
    return [(*key, steps) for key, (steps, _) in zip(keys, below, strict=True)]


def _below(node: _Node) -> tuple[tuple[tuple[str, str], ...], frozenset[Any]]:
    """The sorted types and names of the steps under `node` (at most `BELOW_STEPS`).

    Also the turn ids of the tool calls among them.
    """
    found: list[tuple[str, str]] = []
    turns: set[Any] = set()
    stack = list(node.kids or ())
    while stack and len(found) < BELOW_STEPS:
        below = stack.pop()
        found.append(_canonical_key(below))
        if below.call is not None and below.turn is not None:
            turns.add(below.turn)
        stack.extend(below.kids or ())
    return tuple(sorted(found)), frozenset(turns)


BELOW_STEPS = 64
"""Steps of a wrapper's subtree read to order equal-named wrappers (bounds the cost)."""


def _concurrent(a: _Node, b: _Node, *, llm_parent: bool) -> bool:
    """Consecutive siblings `a`, `b` ran concurrently: same turn, one model message, or overlap."""
    if a.turn is not None and b.turn is not None:
        return bool(a.turn == b.turn)
    if llm_parent and a.call is not None and b.call is not None:
        return True  # the tool calls one model message issued
    a_start, b_start = a.start, b.start
    if a_start is None or b_start is None or a.end == a_start or b.end == b_start:
        return False  # untimed (a step without an end has no window)
    return bool(a_start < b.end and b_start < a.end)
