"""Doubled mid-ranks: ranks of pooled values, ties sharing their mean rank, times two (integers).

A tie group filling 1-based positions `i+1 .. i+t` gets mid-rank `i + (t+1)/2`, so twice it is the
integer `2i + t + 1`; rank sums stay exact integers and index a dynamic-programming table.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["doubled_ranks", "tie_sizes"]


def doubled_ranks(values: Sequence[float]) -> list[int]:
    """Twice the mid-rank of each value (same order as `values`)."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0] * len(values)
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and values[order[end]] == values[order[start]]:
            end += 1
        doubled = 2 * start + (end - start) + 1
        for position in range(start, end):
            ranks[order[position]] = doubled
        start = end
    return ranks


def tie_sizes(values: Sequence[float]) -> tuple[int, ...]:
    """The sizes of the groups of equal values, in sorted-value order (which fixes the ranks)."""
    ordered = sorted(values)
    sizes: list[int] = []
    for position, value in enumerate(ordered):
        if position and value == ordered[position - 1]:
            sizes[-1] += 1
        else:
            sizes.append(1)
    return tuple(sizes)
