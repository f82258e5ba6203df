"""What a route looks like to a person: step names with repeats folded, and where it departs.

`lookup_order, lookup_order, lookup_order` reads `lookup_order ×3`: one after another. Steps the
engine treats as one concurrent group (`Side.group`: the calls one model message issued, or
steps whose times overlap) read `{geocode ‖ web_search}`: the route lists them by name (its
canonical order), not in the order they ran, so they are not joined by "→" ("then"). A member
that wraps steps reads with them: `{tools → geocode ‖ tools → web_search}`; equal members
read once, `{lookup_order ‖×3}`. The first departure of a route from the main route is the
first step of the edit script (LCS) that is not shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from rapidfuzz.distance import Indel

from agentdiff.routes.encode import RouteCodec, label_name

__all__ = [
    "CONCURRENT",
    "Departure",
    "Part",
    "first_departure",
    "fold",
    "joined",
    "skeleton",
    "skeleton_parts",
    "skeleton_shown",
]

ARROW = " → "
CONCURRENT = " ‖ "
"""Between the members of a concurrent group (inside `{…}`)."""

Part = tuple[str, int]
"""A skeleton from one step boundary to the next, as shown, and the route's steps it holds:
`plan` (1), `lookup_order ×3` (3), or one whole concurrent group, `{geocode ‖ web_search}` (2)."""


def fold(labels: Sequence[str]) -> list[tuple[str, int]]:
    """Consecutive equal steps as (name, count)."""
    out: list[tuple[str, int]] = []
    for label in labels:
        name = label_name(label)
        if out and out[-1][0] == name:
            out[-1] = (name, out[-1][1] + 1)
        else:
            out.append((name, 1))
    return out


def skeleton(labels: Sequence[str], groups: Sequence[Sequence[int]] = ()) -> str:
    """`plan → lookup_order ×3 → answer`; with concurrent `groups`, `plan → {a ‖ b} → answer`.

    `groups` (`RouteShape.groups`): each group's branch starts in `labels`, then its end.
    """
    return skeleton_shown(labels, groups)[0]


def skeleton_shown(labels: Sequence[str], groups: Sequence[Sequence[int]] = ()) -> tuple[str, bool]:
    """`skeleton(labels, groups)`, and whether it shows a concurrent group (`{…}`)."""
    parts, concurrent = skeleton_parts(labels, groups)
    return joined(parts), concurrent


def skeleton_parts(
    labels: Sequence[str], groups: Sequence[Sequence[int]] = ()
) -> tuple[list[Part], bool]:
    """The skeleton's parts (`joined`, they read as `skeleton`); whether one is a group.

    A route shown in part is cut between two parts, so never inside a concurrent group.
    """
    if not groups:
        return _sequence(labels), False
    starting = {bounds[0]: bounds for bounds in groups}
    shown: list[bool] = []
    return _parts(labels, 0, len(labels), starting, shown), bool(shown)


def joined(parts: Sequence[Part]) -> str:
    """The skeleton `parts` read as: `plan → {geocode ‖ web_search} → answer`."""
    return ARROW.join(shown for shown, _ in parts)


def _sequence(labels: Sequence[str]) -> list[Part]:
    return [(name if n == 1 else f"{name} ×{n}", n) for name, n in fold(labels)]


def _parts(
    labels: Sequence[str],
    start: int,
    end: int,
    starting: dict[int, Sequence[int]],
    groups_shown: list[bool],
) -> list[Part]:
    """`labels[start:end]`, the groups that start (and end) within it shown concurrent.

    Each group shown appends to `groups_shown`.
    """
    parts: list[Part] = []
    plain = start
    at = start
    while at < end:
        bounds = starting.get(at)
        if bounds is None or bounds[-1] > end:
            at += 1
            continue
        parts += _sequence(labels[plain:at])
        parts.append((_group(labels, bounds, starting, groups_shown), bounds[-1] - at))
        groups_shown.append(True)
        at = plain = bounds[-1]
    return parts + _sequence(labels[plain:end])


def _group(
    labels: Sequence[str],
    bounds: Sequence[int],
    starting: dict[int, Sequence[int]],
    groups_shown: list[bool],
) -> str:
    """`{a ‖ b}`: the group whose branches start at `bounds` (then its end), equal ones once."""
    branches = [joined(_parts(labels, a, b, starting, groups_shown)) for a, b in pairwise(bounds)]
    shown: list[tuple[str, int]] = []
    for branch in branches:  # equal members are adjacent (canonical order)
        if shown and shown[-1][0] == branch:
            shown[-1] = (branch, shown[-1][1] + 1)
        else:
            shown.append((branch, 1))
    return "{" + CONCURRENT.join(b if n == 1 else f"{b} ‖×{n}" for b, n in shown) + "}"


@dataclass(frozen=True)
class Departure:
    """Where a route first leaves the main route."""

    step: int
    """1-based position in this route (or just past its end) where it departs."""
    main: str | None
    """The main route's step name there (None: the main route had ended)."""
    here: str | None
    """This route's step name there (None: this route ended, the main one went on)."""
    extra_steps: int
    """len(this route) − len(main route)."""
    main_step: int = 0
    """1-based position in the main route (or just past its end) of `main`."""


def first_departure(main: Sequence[str], route: Sequence[str]) -> Departure | None:
    """The first step where `route` leaves `main` (None when they are the same route)."""
    codec = RouteCodec()
    a, b = codec.encode(main), codec.encode(route)
    if a == b:
        return None
    for op in Indel.opcodes(a, b):
        if op.tag != "equal":
            here = label_name(route[op.dest_start]) if op.dest_start < len(route) else None
            there = label_name(main[op.src_start]) if op.src_start < len(main) else None
            extra = len(route) - len(main)
            return Departure(op.dest_start + 1, there, here, extra, op.src_start + 1)
    return None  # pragma: no cover - different strings always have a non-equal opcode
