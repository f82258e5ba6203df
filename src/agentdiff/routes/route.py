"""A run's route and the distance between routes: defined here once (suites, statistics, clusters).

A run's **route** is the sequence of its steps' base signatures (step type and name, plus the
sorted input keys with strict tool signatures: what the engine calls the same action), in the
engine's execution order (parents before children, concurrent calls in canonical order; see
`agentdiff.diff.order`). The distance between two routes is the normalized Indel distance,
``1 − 2·LCS(a, b) / (|a| + |b|)`` (0 = the same route, 1 = nothing in common), the same formula
as a report's divergence, computed by rapidfuzz at C speed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Indel

from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.order import Side, prepare
from agentdiff.diff.signatures import Signer
from agentdiff.models.report import StepRef
from agentdiff.models.trace import AgentTrace, TraceStep

__all__ = [
    "ROUTE_SEPARATOR",
    "RouteShape",
    "nearest_run",
    "route_bytes_id",
    "route_distance",
    "route_from_refs",
    "route_id",
    "route_of",
    "side_route",
]


def _labels(
    steps: Sequence[StepRef | TraceStep], inputs: Sequence[TraceStep | None] | None
) -> list[str]:
    """Each step's label: its type and name, with `inputs` (strict) also its inputs' sorted keys.

    One comprehension, no call per step: a suite reads the route of every run.
    """
    labels = [f"{step.step_type._value_}\x1f{step.name}" for step in steps]
    if inputs is None:
        return labels
    return [
        label if found is None else label + "\x1f" + ",".join(sorted(found.input_payload))
        for label, found in zip(labels, inputs, strict=True)
    ]


def route_of(trace: AgentTrace, *, strict: bool = False) -> list[str]:
    """The base signatures of `trace`'s steps in execution order, concurrent calls canonical."""
    return side_route(prepare(trace, Signer(Normalizer(()), strict=strict)), strict=strict)


def side_route(side: Side, *, strict: bool = False) -> list[str]:
    """The route of a run the engine has prepared already (e.g. by a `PairComparer`)."""
    steps = side.steps
    ordered = steps if side.canon is None else list(map(steps.__getitem__, side.canon))
    return _labels(ordered, ordered if strict else None)


@dataclass(frozen=True, eq=False)
class RouteShape:
    """Which steps of a run's route the engine treats as one concurrent group (for display).

    Holds the prepared side's own lists (no copy, nothing computed per step): the groups are
    read off only for the runs whose skeleton is printed (`groups`).
    """

    group: Sequence[int]
    """`Side.group`: each step's concurrent group (-1: none), in execution order."""
    depth: Sequence[int]
    """`Side.depth`, in execution order."""
    canon: Sequence[int] | None
    """`Side.canon`: the route's order (None: the execution order)."""

    @classmethod
    def of(cls, side: Side) -> RouteShape:
        """The shape of `side_route(side)`."""
        return cls(side.group, side.depth, side.canon)

    def groups(self) -> tuple[tuple[int, ...], ...]:
        """The route's concurrent groups: each its branches' starts, then its end.

        Route positions, the groups ascending by first position; the end is the position
        just past the last branch.

        A branch is a group member with the steps under it (a wrapper node and the call it
        wraps). A group whose members are not adjacent subtrees of the route (depths capped at
        `MAX_DEPTH`) is left out: its steps read as a sequence, as before.
        """
        group, depth = self.group, self.depth
        if not group or max(group) < 0:
            return ()
        if self.canon is not None:
            group = [group[i] for i in self.canon]
            depth = [depth[i] for i in self.canon]
        members: dict[int, list[int]] = {}
        for position, number in enumerate(group):
            if number >= 0:
                members.setdefault(number, []).append(position)
        found = [
            bounds
            for starts in members.values()
            if len(starts) > 1 and (bounds := _branches(starts, depth)) is not None
        ]
        return tuple(sorted(found))


def _branches(starts: list[int], depth: Sequence[int]) -> tuple[int, ...] | None:
    """`starts`, then the end of the last one's subtree; None unless subtrees adjoin.

    Each start's subtree must end where the next start is (siblings one after another).
    """
    level, size = depth[starts[0]], len(depth)
    end = starts[0]
    for start in starts:
        if start != end or depth[start] != level:
            return None
        end = start + 1
        while end < size and depth[end] > level:
            end += 1
    return (*starts, end)


def route_from_refs(
    refs: Iterable[StepRef], steps: Mapping[str, TraceStep] | None = None, *, strict: bool = False
) -> list[str]:
    """The route of steps already in execution order (e.g. one side of a report's alignment).

    With `strict`, `steps` (id → step) supplies the input keys.
    """
    found = steps or {}
    listed = list(refs)
    return _labels(listed, [found.get(ref.step_id) for ref in listed] if strict else None)


def route_distance(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """``1 − 2·LCS / (|a| + |b|)``; two empty routes are at distance 0."""
    return float(Indel.normalized_distance(a, b))


def nearest_run(route: Sequence[Hashable], others: Sequence[Sequence[Hashable]]) -> int:
    """The index of the route in `others` closest to `route` (the first one on a tie)."""
    if not others:
        msg = "nearest_run needs at least one route to choose from"
        raise ValueError(msg)
    distances = [route_distance(route, other) for other in others]
    return distances.index(min(distances))


ROUTE_SEPARATOR = "\x1e"
"""Joins a route's labels into the text its id is a hash of."""


def route_id(route: Sequence[str]) -> str:
    """A stable short id of a route (the same in every process and on every machine)."""
    return route_bytes_id(ROUTE_SEPARATOR.join(route).encode())


def route_bytes_id(joined: bytes) -> str:
    """`route_id` of a route given as its labels joined by `ROUTE_SEPARATOR`, UTF-8 encoded."""
    return hashlib.blake2b(joined, digest_size=8).hexdigest()
