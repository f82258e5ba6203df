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

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from itertools import compress, islice
from operator import attrgetter, is_not, itemgetter, le, lt
from typing import TYPE_CHECKING, Any

from agentdiff.diff.metrics import is_model_turn, names_model
from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.signatures import Signer
from agentdiff.models.report import StepRef, Summary, cut_error, new_step_ref, step_fields
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TraceStep
from agentdiff.timeparse import parse_iso

if TYPE_CHECKING:
    from agentdiff.diff.loops import Loop
    from agentdiff.diff.pricing import ModelPrice

__all__ = ["MAX_DEPTH", "Side", "execution_order", "places_in", "prepare", "prepare_ordered"]

MAX_DEPTH = 63
"""Depths past this are recorded as this (the alignment packs a key and a depth in one int)."""

_TOOL = StepType.TOOL_CALL
_LLM_VALUE = StepType.LLM_CALL.value
"""An LLM step's type as `_Columns.kinds` holds it (the plain string)."""
_ERROR, _RETRY = StepStatus.ERROR, StepStatus.RETRY
"""The `FAILED` statuses, compared by identity (an enum's hash runs Python code)."""
_KNOWN = partial(is_not, None)
"""`_KNOWN(v)`: v is not None, at C speed (in `filter`)."""
_VALUE = attrgetter("_value_")
"""An enum member's plain string (its hash and `.value` run Python code)."""


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
    turn: list[Any] = field(default_factory=list)
    """Each step's `metadata.turn_id`, the model message that issued it (None: not given)."""
    model_turns: list[dict[str, Any]] = field(default_factory=list)
    """The field dicts of the steps that are calls to a model, in the order the trace lists
    them (what `metrics.summarize` counts as its turns)."""
    names_models: bool = False
    """Some model turn names its model in its metadata (`metrics.names_model`): without
    one, paired steps (one name) called the same model."""
    failed: list[int] = field(default_factory=list)
    """Positions of the failed attempts (status `error` or `retry`), in order."""
    succeeded: dict[int, int | None] = field(default_factory=dict)
    """Each failed attempt's position → the exact key of the same step (same arguments, for a
    tool call) that did not fail (None: no such step was signed)."""
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

    def issued_together(self, i: int, j: int) -> bool:
        """Steps `i` and `j` were issued together: one concurrent turn, or one model message.

        One model message: the same `turn_id`, also when each call runs in a wrapper of its own.
        """
        group, turn = self.group[i], self.turn[i]
        return (group >= 0 and self.group[j] == group) or (
            turn is not None and self.turn[j] == turn
        )


class _Columns:
    """What ordering and the side need of every step, read off the steps in one pass.

    Index-aligned lists in the order the trace lists its steps (positions are list positions):
    no object per step. `prepare` then finds the execution order and takes the side's lists
    in it.
    """

    __slots__ = (
        "base",
        "calls",
        "ends",
        "failed",
        "indexes",
        "kinds",
        "model_turns",
        "names_models",
        "parents",
        "refs",
        "starts",
        "steps",
        "turns",
    )

    def __init__(self, steps: list[TraceStep], signer: Signer) -> None:
        self.steps = steps
        self.refs: list[StepRef] = []
        self.kinds: list[tuple[str, str]] = []
        """Each step's type (its plain string) and name: its canonical key."""
        self.calls: dict[int, str] = {}
        """Position of each tool call → its call key."""
        self.failed: list[bool] = []
        self.starts: list[Any] = []
        """`metadata.started_at` (one kind per trace once `prepare` read them all: ISO UTC
        strings of one layout, ordered as text, else epoch floats)."""
        self.ends: list[Any] = []
        """`metadata.ended_at` (the start when missing)."""
        self.turns: list[Any] = []
        """`metadata.turn_id` (None: not given)."""
        self.model_turns: list[dict[str, Any]] = []
        """The field dicts of the steps that are calls to a model (`metrics.is_model_turn`)."""
        self.names_models = False
        """Some model turn names its model in its metadata (`metrics.names_model`)."""
        self.indexes: list[int] = []
        """`step_index`."""
        parent_ids: list[Any] = []  # str or None (`ids.get` of None is None)
        ids = self._read(steps, signer, parent_ids)
        self.parents: list[int | None] = list(map(ids.get, parent_ids))
        """Each step's parent's position (None: a root, or a parent unknown in the trace)."""
        kind_ids = signer.base_of_kind
        self.base = (
            list(map(signer.base, steps)) if kind_ids is None else list(map(kind_ids, self.kinds))
        )

    def _read(
        self, steps: list[TraceStep], signer: Signer, parent_ids: list[Any]
    ) -> dict[str, int]:
        """Read the steps' field dicts in one pass; each step id's position (the last wins).

        A plain loop: Python calls made from a loop cost less than calls made from `map`. The
        model turns are picked here too (`metrics.is_model_turn`), so the totals need no pass
        of their own over every step, and whether one names its model (`metrics.names_model`)
        is asked as each is picked. Each field is read once: the reference is built from the
        values read here (`new_step_ref`, not `StepRef.of_fields`, which read four of them
        again), and the parent ids and step indexes are listed as they are read, not read back
        off the 100,000 references in passes of their own.
        """
        ref, kind, call, failed, model = (
            self.refs.append,
            self.kinds.append,
            self.calls,
            self.failed.append,
            self.model_turns.append,
        )
        start_of, end_of, turn_of = self.starts.append, self.ends.append, self.turns.append
        parent_of, index_of = parent_ids.append, self.indexes.append
        call_key = signer.call_key
        ids: dict[str, int] = {}
        named = False
        for i, held in enumerate(map(step_fields, steps)):
            step_id, parent, index = held["step_id"], held["parent_id"], held["step_index"]
            step_type, name, status = held["step_type"], held["name"], held["status"]
            error = held["error_message"]
            ids[step_id] = i
            parent_of(parent)
            index_of(index)
            if error is not None:
                error = cut_error(error)
            ref(new_step_ref(step_id, parent, index, step_type, name, status, error))
            kind((step_type._value_, name))
            failed(status is _ERROR or status is _RETRY)
            meta = held["metadata"]
            if step_type is _TOOL:
                call[i] = call_key(name, held["input_payload"])
            elif is_model_turn(held):
                model(held)
                if not named:
                    named = names_model(meta)
            if meta:
                start, end, turn = meta.get("started_at"), meta.get("ended_at"), meta.get("turn_id")
                if turn is not None and not isinstance(turn, (str, int)):
                    turn = str(turn)
                start_of(start)
                end_of(start if end is None else end)
                turn_of(turn)
            else:
                start_of(None)
                end_of(None)
                turn_of(None)
        self.names_models = named
        return ids


def _taker(order: list[int]) -> Callable[[list[Any]], list[Any]]:
    """`take(column)`: the column's items at the positions `order` lists, as a list."""
    if len(order) < 2:  # noqa: PLR2004 - itemgetter of one index gives an item, not a tuple
        return lambda column: [column[i] for i in order]
    pick = itemgetter(*order)  # all the items at C speed, in one call per column
    return lambda column: list(pick(column))


def prepare(trace: AgentTrace, signer: Signer) -> Side:
    """Parse, sign and order `trace` once."""
    return prepare_ordered(trace, signer)[0]


def prepare_ordered(trace: AgentTrace, signer: Signer) -> tuple[Side, list[int] | None]:
    """`prepare`, and the execution order it put the steps in (positions; None: as listed)."""
    cols = _columns(trace, signer)
    order, depth, families = _execution_order(cols)
    group = [-1] * len(depth)
    canon = _Groups(cols, families, group).mark()
    side = Side(
        wall_clock=_wall_clock(cols.starts, cols.ends),
        model_turns=cols.model_turns,
        names_models=cols.names_models,
    )
    if order is None:
        side.steps, side.refs, side.base, side.call = cols.steps, cols.refs, cols.base, cols.calls
        side.depth, side.group, side.turn, failed = depth, group, cols.turns, cols.failed
    else:  # every list in execution order, once
        take = _taker(order)
        side.steps, side.refs, side.base = take(cols.steps), take(cols.refs), take(cols.base)
        side.depth, side.group, failed = take(depth), take(group), take(cols.failed)
        side.turn = take(cols.turns)
        calls = cols.calls
        side.call = {new: calls[old] for new, old in enumerate(order) if old in calls}
    if canon:
        side.canon = _canonical(families, canon, order, len(depth))
    side.exact = signer.exacts(side.base, failed, side.call)
    side.failed = list(compress(range(len(failed)), failed))
    side.succeeded = signer.succeeded(side.base, side.failed, side.call)
    return side, order


def execution_order(trace: AgentTrace) -> list[int]:
    """The positions in `trace.steps` of the steps in execution order, as `prepare` orders them.

    `prepare(trace, signer).steps` are the steps at these positions: the columns are read as
    `prepare` reads them. For a place in the trace as given where the engine compared a changed
    copy of it (folded framework steps).
    """
    cols = _columns(trace, Signer(Normalizer(), strict=False))
    order, _, _ = _execution_order(cols)
    return list(range(len(cols.steps))) if order is None else order


def places_in(run: AgentTrace, side: Side) -> Callable[[int], int]:
    """Execution position in `side` (of a folded copy of `run`) → the step's place in `run`.

    The place (0-based) is in the run a user reads (the file; `agentdiff inspect` of it), in
    the order it ran (`execution_order`). Folding drops steps and moves children up, so
    positions in the folded copy are not places the user can count; a kept step keeps its id
    (unique in a validated trace).
    """
    steps = run.steps
    place = {steps[at].step_id: k for k, at in enumerate(execution_order(run))}
    of_side = side.steps
    return lambda position: place.get(of_side[position].step_id, position)


def _columns(trace: AgentTrace, signer: Signer) -> _Columns:
    """`trace`'s columns, their times of one kind (ISO UTC strings of one layout, else epochs)."""
    cols = _Columns(trace.steps, signer)
    if not (_epochs(cols.starts, cols.ends) or _uniform_utc(cols.starts, cols.ends)):
        cols.starts, cols.ends = list(map(_epoch, cols.starts)), list(map(_epoch, cols.ends))
    return cols


def _execution_order(
    cols: _Columns,
) -> tuple[list[int] | None, list[int], dict[int | None, list[int]]]:
    """The execution order (list positions; None: the steps' own order), depths and families.

    Families map each parent (None for the roots) to its children in execution order. Most
    traces list their steps in execution order already: that is checked (one pass) before any
    walk.
    """
    indexes = cols.indexes
    listed = _ascending(indexes)
    tree = _tree(cols.parents) if listed else None
    if tree is not None:
        depth, families = tree
        moved = _resort(families, cols.starts)
        if not moved:
            return None, depth, families
        order = _rearranged(len(depth), families, moved)
        if order is None:
            order = _preorder(families.get(None, []), families)
        return order, depth, families
    by_index = (
        range(len(indexes)) if listed else sorted(range(len(indexes)), key=indexes.__getitem__)
    )
    families = _families(by_index, cols.parents)
    _resort(families, cols.starts)
    order = _preorder(families.get(None, []), families)
    return order, _depths(order, cols.parents), families


def _tree(parents: list[int | None]) -> tuple[list[int], dict[int | None, list[int]]] | None:
    """Depths and families (parent → children) when the positions are a pre-order, else None.

    Positions are a depth-first pre-order (every parent first, each subtree in one stretch)
    when each step's parent is on the path from a root to the step before it.
    """
    depth: list[int] = []
    push = depth.append
    families: dict[int | None, list[int]] = {}
    path: list[int] = []
    try:
        for i, parent in enumerate(parents):
            if parent is None:
                path = [i]
            else:
                while path[-1] != parent:
                    path.pop()  # empty path (not a pre-order): IndexError
                path.append(i)
            push(len(path) - 1)
            family = families.get(parent)
            if family is None:
                families[parent] = [i]
            else:
                family.append(i)
    except IndexError:
        return None
    if max(depth, default=0) > MAX_DEPTH:
        depth = [min(MAX_DEPTH, d) for d in depth]
    return depth, families


def _resort(families: dict[int | None, list[int]], starts: list[Any]) -> list[list[int]]:
    """Sort each fully timed group of siblings by start (stably); the groups that moved."""
    moved = []
    for kids in families.values():
        if len(kids) > 1:
            times = list(map(starts.__getitem__, kids))
            try:
                if _ascending(times):
                    continue  # in start order (no None: it would have been compared)
            except TypeError:
                continue  # an untimed sibling (None): not fully timed
            if None not in times:
                kids.sort(key=starts.__getitem__)
                moved.append(kids)
    return moved


def _rearranged(
    size: int,
    families: dict[int | None, list[int]],
    changed: list[list[int]],
    position: Callable[[int], int] | None = None,
) -> list[int] | None:
    """A pre-order with sibling groups rearranged, when every step they move is a leaf.

    Each of `changed` lists a group's steps in their new order; `position` gives a step's
    place in the pre-order (default: the step itself). A leaf moves alone, so the groups'
    steps just trade places and nothing else moves: no walk. None when a moved step has
    children of its own (then walk the tree).
    """
    out = list(range(size))
    for kids in changed:
        if any(map(families.__contains__, kids)):
            return None
        places = kids if position is None else list(map(position, kids))
        for slot, place in zip(sorted(places), places, strict=True):
            out[slot] = place
    return out


def _families(by_index: Iterable[int], parents: list[int | None]) -> dict[int | None, list[int]]:
    """Each parent's children (None: the roots), the parents in first-seen order.

    The steps are read in `by_index` order (by `step_index`). A step whose parent is unknown is
    a root.
    """
    families: dict[int | None, list[int]] = {None: []}
    for i in by_index:
        parent = parents[i]
        if parent in families:
            families[parent].append(i)
        else:
            families[parent] = [i]
    return families


def _ascending(values: list[Any]) -> bool:
    """Each value is at most the next one (checked at C speed)."""
    return all(map(le, values, islice(values, 1, None)))


def _depths(order: list[int], parents: list[int | None]) -> list[int]:
    """Each step's depth (at most `MAX_DEPTH`; 0 for a step `order` leaves out)."""
    depth = [0] * len(parents)
    for i in order:  # parents come first
        parent = parents[i]
        if parent is not None:
            below = depth[parent] + 1
            depth[i] = min(MAX_DEPTH, below)
    return depth


def _preorder(roots: list[int], kids_of: Mapping[int | None, list[int]]) -> list[int]:
    """Depth-first pre-order from `roots` over `kids_of`."""
    out: list[int] = []
    append = out.append
    stack = list(reversed(roots))
    pop, extend, kids = stack.pop, stack.extend, kids_of.get
    while stack:
        node = pop()
        append(node)
        below = kids(node)
        if below:
            extend(reversed(below))
    return out


def _canonical(
    families: dict[int | None, list[int]],
    canon: dict[int | None, list[int]],
    order: list[int] | None,
    size: int,
) -> list[int]:
    """Execution positions in the canonical pre-order (`canon`: the groups' canonical orders).

    `families` and `canon` hold list positions, `order` the execution order of the `size`
    listed steps (None: the listed order).
    """
    if order is None:
        moved = _rearranged(size, families, list(canon.values()))
        return _canonical_walk(families, canon) if moved is None else moved
    execution = dict(zip(order, range(len(order)), strict=True)).__getitem__
    if len(order) == size:  # every step reached (else canonical groups may hold others)
        moved = _rearranged(size, families, list(canon.values()), execution)
        if moved is not None:
            return moved
    return list(map(execution, _canonical_walk(families, canon)))


def _canonical_walk(
    families: dict[int | None, list[int]], canon: dict[int | None, list[int]]
) -> list[int]:
    """List positions in the canonical pre-order (canonical children where they differ)."""
    kids_of = {**families, **canon}
    return _preorder(kids_of.pop(None), kids_of)


class _Groups:
    """Marks the concurrent runs of each family of siblings (group ids unique in the side)."""

    def __init__(
        self, cols: _Columns, families: dict[int | None, list[int]], group: list[int]
    ) -> None:
        self._cols = cols
        self._families = families
        self._group = group
        self._next = 0

    def mark(self) -> dict[int | None, list[int]]:
        """Mark every family's runs; the families whose canonical order differs, in it."""
        canon: dict[int | None, list[int]] = {}
        turns = self._cols.turns
        told = turns.count(None) < len(turns)  # some step of the side has a turn id
        for parent, kids in self._families.items():
            if len(kids) > 1:
                canonical = self._family(parent, kids, told)
                if canonical is not None:
                    canon[parent] = canonical
        return canon

    def _family(self, parent: int | None, kids: list[int], told: bool) -> list[int] | None:
        """Mark the concurrent runs of `kids`; their canonical order (None: unchanged).

        `told`: some step of the side has a turn id (else no sibling's turn is looked up).
        """
        cols = self._cols
        llm_parent = parent is not None and cols.kinds[parent][0] == _LLM_VALUE
        if not (told and any(map(_KNOWN, map(cols.turns.__getitem__, kids)))):
            if llm_parent and all(map(cols.calls.__contains__, kids)):
                return self._mark(kids)  # the calls of one model message: one turn
            if not llm_parent and not _any_overlap(kids, cols):
                return None  # no evidence of concurrency anywhere (the common case)
        canonical: list[int] | None = None
        start = 0
        while start < len(kids):
            end = _run_end(kids, start, cols, llm_parent)
            if end - start > 1:
                ordered = self._mark(kids[start:end])
                if ordered is not None:
                    canonical = canonical or list(kids)
                    canonical[start:end] = ordered
            start = end
        return canonical

    def _mark(self, run: list[int]) -> list[int] | None:
        """Put `run` in the next concurrent group; its canonical order (None: already so)."""
        group, number = self._group, self._next
        self._next += 1
        for i in run:
            group[i] = number
        keys: list[Any] = list(map(self._cols.kinds.__getitem__, run))
        if len(set(keys)) < len(keys):
            keys = self._wrapper_keys(run, keys)
        if _ascending(keys):
            return None
        return [run[i] for i in sorted(range(len(run)), key=keys.__getitem__)]

    def _wrapper_keys(self, run: list[int], keys: list[Any]) -> list[Any]:
        """Keys that tell equal-named wrappers of one fan-out apart by what they wrap.

        LangGraph runs each call of a fan-out in its own `tools` node: when the wrappers hold
        tool calls that one model message issued (a `turn_id` they all share), they are ordered
        by the types and names of the steps under them, so two runs that issued the same calls
        in another order pair wrapper with wrapper and call with call. Without that evidence
        (equal-named steps that merely overlap in time) execution order stays.
        """
        below = [self._below(node) for node in run]
        turns = [found_turns for _, found_turns in below]
        if not all(turns) or not frozenset.intersection(*turns):
            return keys
        return [(*key, steps) for key, (steps, _) in zip(keys, below, strict=True)]

    def _below(self, node: int) -> tuple[tuple[tuple[str, str], ...], frozenset[Any]]:
        """The sorted types and names of the steps under `node` (at most `BELOW_STEPS`).

        Also the turn ids of the tool calls among them.
        """
        cols, families = self._cols, self._families
        found: list[tuple[str, str]] = []
        turns: set[Any] = set()
        stack = list(families.get(node, ()))
        while stack and len(found) < BELOW_STEPS:
            below = stack.pop()
            found.append(cols.kinds[below])
            turn = cols.turns[below]
            if below in cols.calls and turn is not None:
                turns.add(turn)
            stack.extend(families.get(below, ()))
        return tuple(sorted(found)), frozenset(turns)


BELOW_STEPS = 64
"""Steps of a wrapper's subtree read to order equal-named wrappers (bounds the cost)."""


def _any_overlap(kids: list[int], cols: _Columns) -> bool:
    """Some two consecutive siblings may have overlapping windows (checked at C speed).

    Fully timed siblings are in start order, so a window overlaps the next one only if the
    next starts before it ends; untimed siblings never overlap; a mix is left to `_concurrent`.
    """
    starts = list(map(cols.starts.__getitem__, kids))
    if None in starts:
        return any(map(_KNOWN, starts))
    return any(map(lt, islice(starts, 1, None), map(cols.ends.__getitem__, kids)))


def _run_end(kids: list[int], start: int, cols: _Columns, llm_parent: bool) -> int:
    """Where the concurrent run of `kids` that begins at `start` ends (exclusive).

    Same turn or one model message join a sibling to the one before it (evidence the run
    shares). Timing alone joins it only if its window overlaps the window of every timed
    member so far: it starts before the earliest end among them (a runs 0–2 s, b 1–4 s,
    c 3–5 s: b joins a, but c starts a run of its own, since a and c ran one after the other;
    a swap of a and c is then a real divergence, not a reorder).
    """
    starts = cols.starts
    low = _window_end(kids[start], cols)
    end = start + 1
    while end < len(kids):
        kid = kids[end]
        how = _concurrent(kids[end - 1], kid, cols, llm_parent)
        if how is None or (how is _TIMED and low is not None and not starts[kid] < low):
            break
        kid_end = _window_end(kid, cols)
        if kid_end is not None and (low is None or kid_end < low):
            low = kid_end
        end += 1
    return end


def _window_end(step: int, cols: _Columns) -> Any:
    """The end of the step's time window (None: untimed, or no end given)."""
    start, end = cols.starts[step], cols.ends[step]
    return None if start is None or end == start else end


_TOLD, _TIMED = "told", "timed"
"""Why two siblings are concurrent: evidence (a turn id, one model message) or timing alone."""


def _concurrent(a: int, b: int, cols: _Columns, llm_parent: bool) -> str | None:
    """Why consecutive siblings `a`, `b` ran concurrently (`_TOLD`, `_TIMED`), or None.

    Same turn or one model message is evidence (`_TOLD`); else overlapping windows (`_TIMED`).
    """
    a_turn, b_turn = cols.turns[a], cols.turns[b]
    if a_turn is not None and b_turn is not None:
        return _TOLD if a_turn == b_turn else None
    if llm_parent and a in cols.calls and b in cols.calls:
        return _TOLD  # the tool calls one model message issued
    starts, ends = cols.starts, cols.ends
    a_start, b_start, a_end, b_end = starts[a], starts[b], ends[a], ends[b]
    if a_start is None or b_start is None or a_end == a_start or b_end == b_start:
        return None  # untimed (a step without an end has no window)
    return _TIMED if a_start < b_end and b_start < a_end else None


def _uniform_utc(starts: list[Any], ends: list[Any]) -> bool:
    """Every timestamp is an ISO UTC string of one fixed layout (what adapters write).

    Such strings order exactly like the instants they name, so they are compared as they are
    and only the earliest and latest are parsed.
    """
    try:  # a fully timed side (the common case) is joined without filtering out the Nones
        text = "".join(starts) + "".join(ends)
        values = [starts, ends]
    except TypeError:
        values = [list(filter(_KNOWN, starts)), list(filter(_KNOWN, ends))]
        try:
            text = "".join(values[0]) + "".join(values[1])  # every value is a string
        except TypeError:
            return False
    n = len(values[0]) + len(values[1])
    if not n:
        return True
    lengths = {*map(len, values[0]), *map(len, values[1])}
    size = lengths.pop()
    if lengths or size < _ISO_MIN:
        return False
    # the 11th and the last character of every value, read off the joined text at C speed
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


def _wall_clock(starts: list[Any], ends: list[Any]) -> tuple[float, float] | None:
    """(earliest start, latest end) in epoch seconds; `prepare` leaves the times of one kind."""
    earliest, latest = _known(min, starts), _known(max, ends)
    if earliest is None or latest is None:
        return None
    first, last = _epoch(earliest), _epoch(latest)
    return (first, last) if first is not None and last is not None else None


def _known(pick: Callable[..., Any], values: list[Any]) -> Any:
    """`pick` (min or max) of the values that are not None (None: there are none).

    Tried on all of them first: a None among two or more values is compared and raises
    TypeError (then the Nones are filtered out), so a fully timed side is not copied.
    """
    try:
        return pick(values, default=None)
    except TypeError:
        return pick(filter(_KNOWN, values), default=None)
