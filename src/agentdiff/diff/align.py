"""Alignment: two step sequences → an edit script that pairs as many steps as possible.

Each step has two interned integer signatures (`signatures.Signer`):

- **base** — step type and name (plus the sorted input keys with strict tool signatures): two
  steps with equal base signatures are the same action;
- **exact** — base plus failed-or-not and, for tool calls, the normalized arguments: two steps
  with equal exact signatures also behaved the same.

Pairs come from a longest common subsequence over base signatures (rapidfuzz's bit-parallel
`Indel`), so the number of pairs, inserts and deletes is the same whichever side is the baseline.
A repair pass then moves each pair whose steps behave differently onto an unpaired neighbour that
behaves the same (a failed call followed by its successful retry pairs the retry with the
baseline's call; the failure is the insert). When both sequences are too long for the LCS table
(`LCS_CELLS`), rapidfuzz's banded `Levenshtein` with a `score_hint` finds the common runs in
near-linear time and only its gaps get the LCS treatment. Never a Python O(N·M) table, never
difflib.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import repeat
from typing import NamedTuple

from rapidfuzz.distance import Indel, Levenshtein

__all__ = ["LCS_CELLS", "REPAIR_WINDOW", "Pair", "align"]

LCS_CELLS = 400_000_000
"""Largest len(baseline) × len(candidate) solved by exact LCS (its table is cells/8 bytes)."""
REPAIR_WINDOW = 64
"""How far the repair pass looks for a better partner on each side of a pair."""


class Pair(NamedTuple):
    """One entry of the edit script: indexes into the baseline and candidate sequences."""

    baseline: int | None
    candidate: int | None


def align(
    b_exact: list[int], c_exact: list[int], b_base: list[int], c_base: list[int]
) -> list[Pair]:
    """The edit script in execution order (in each gap, deletes before inserts)."""
    matched = list(_matches(b_base, c_base, 0, len(b_base), 0, len(c_base)))
    _repair(matched, b_exact, c_exact, len(b_exact), len(c_exact))
    return _emit(matched, len(b_exact), len(c_exact))


def _matches(
    b: list[int], c: list[int], b0: int, b1: int, c0: int, c1: int
) -> Iterator[tuple[int, int]]:
    """Pairs of equal elements of b[b0:b1] and c[c0:c1] forming a common subsequence."""
    n, m = b1 - b0, c1 - c0
    if n == 0 or m == 0:
        return
    if n * m <= LCS_CELLS:
        ops = Indel.opcodes(b[b0:b1], c[c0:c1])
    else:
        ops = Levenshtein.opcodes(b[b0:b1], c[c0:c1], score_hint=max(64, abs(n - m) * 2))
    gap: list[int] | None = None
    for op in ops:
        if op.tag == "equal":
            if gap is not None:
                yield from _matches(b, c, gap[0], gap[1], gap[2], gap[3])
                gap = None
            yield from zip(
                range(b0 + op.src_start, b0 + op.src_end),
                range(c0 + op.dest_start, c0 + op.dest_end),
                strict=True,
            )
        elif n * m > LCS_CELLS:
            span = [b0 + op.src_start, b0 + op.src_end, c0 + op.dest_start, c0 + op.dest_end]
            gap = span if gap is None else [gap[0], span[1], gap[2], span[3]]
    if gap is not None and (gap[1] - gap[0]) * (gap[3] - gap[2]) <= LCS_CELLS:
        yield from _matches(b, c, gap[0], gap[1], gap[2], gap[3])


def _repair(
    matched: list[tuple[int, int]], b_exact: list[int], c_exact: list[int], n: int, m: int
) -> None:
    """Move pairs whose steps behave differently onto an unpaired twin in the same gap."""
    for i, (b, c) in enumerate(matched):
        if b_exact[b] == c_exact[c]:
            continue
        prev_b, prev_c = matched[i - 1] if i else (-1, -1)
        next_b, next_c = matched[i + 1] if i + 1 < len(matched) else (n, m)
        twin = _nearest(
            c_exact,
            b_exact[b],
            c,
            max(prev_c + 1, c - REPAIR_WINDOW),
            min(next_c, c + REPAIR_WINDOW + 1),
        )
        if twin is not None:
            matched[i] = (b, twin)
            continue
        twin = _nearest(
            b_exact,
            c_exact[c],
            b,
            max(prev_b + 1, b - REPAIR_WINDOW),
            min(next_b, b + REPAIR_WINDOW + 1),
        )
        if twin is not None:
            matched[i] = (twin, c)


def _nearest(exact: list[int], want: int, at: int, lo: int, hi: int) -> int | None:
    for distance in range(1, max(at - lo, hi - at) + 1):
        for index in (at + distance, at - distance):
            if lo <= index < hi and index != at and exact[index] == want:
                return index
    return None


def _emit(matched: list[tuple[int, int]], n: int, m: int) -> list[Pair]:
    pairs: list[Pair] = []
    extend, append, make = pairs.extend, pairs.append, Pair._make
    b_next = c_next = 0
    for b, c in [*matched, (n, m)]:
        if b > b_next:
            extend(map(make, zip(range(b_next, b), repeat(None))))
        if c > c_next:
            extend(map(make, zip(repeat(None), range(c_next, c))))
        if b < n and c < m:
            append(Pair(b, c))
        b_next, c_next = b + 1, c + 1
    return pairs
