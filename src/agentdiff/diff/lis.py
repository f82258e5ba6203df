"""Longest increasing subsequence, by patience sorting in O(n log n)."""

from __future__ import annotations

from bisect import bisect_left

__all__ = ["increasing_run"]


def increasing_run(values: list[int]) -> set[int]:
    """Indexes of one longest strictly increasing subsequence of `values` (patience sorting)."""
    tails: list[int] = []
    tail_at: list[int] = []
    back: list[int] = [-1] * len(values)
    for k, value in enumerate(values):
        slot = bisect_left(tails, value)
        if slot == len(tails):
            tails.append(value)
            tail_at.append(k)
        else:
            tails[slot] = value
            tail_at[slot] = k
        back[k] = tail_at[slot - 1] if slot else -1
    keep: set[int] = set()
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        keep.add(k)
        k = back[k]
    return keep
