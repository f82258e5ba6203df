"""What a route looks like to a person: step names with repeats folded, and where it departs.

`lookup_order, lookup_order, lookup_order` reads `lookup_order ×3`. The first departure of a
route from the main route is the first step of the edit script (LCS) that is not shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Indel

from agentdiff.routes.encode import RouteCodec, label_name

__all__ = ["Departure", "first_departure", "fold", "skeleton"]

ARROW = " → "


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


def skeleton(labels: Sequence[str]) -> str:
    """`plan → lookup_order ×3 → answer`."""
    return ARROW.join(name if n == 1 else f"{name} ×{n}" for name, n in fold(labels))


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
            return Departure(op.dest_start + 1, there, here, len(route) - len(main))
    return None  # pragma: no cover - different strings always have a non-equal opcode
