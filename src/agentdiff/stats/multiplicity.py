"""Corrections for many tests: Holm within a scenario, Benjamini–Hochberg across scenarios.

Across scenarios the discrete tests of small run sets often cannot reach significance at all
(5 v 1 runs: no p below 1/6). Counting them in Benjamini–Hochberg only makes every threshold
stricter, so Tarone's exclusion (in Gilbert's form for the FDR) leaves them out: the smallest K
whose testable count m(K) = #{scenarios whose smallest reachable p ≤ q/K} is ≤ K fixes the
testable set, and BH runs over those m(K) scenarios alone. The others are reported with the
threshold q/K they would have had to reach.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["FdrResult", "benjamini_hochberg", "holm", "tarone_bh"]


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (same order as given; each ≤ 1, monotone)."""
    m = len(pvalues)
    order = sorted(range(m), key=pvalues.__getitem__)
    adjusted = [1.0] * m
    running = 0.0
    for position, index in enumerate(order):
        running = max(running, min(1.0, (m - position) * pvalues[index]))
        adjusted[index] = running
    return adjusted


def benjamini_hochberg(pvalues: Sequence[float]) -> list[float]:
    """BH adjusted p-values (q-values), same order as given."""
    m = len(pvalues)
    order = sorted(range(m), key=pvalues.__getitem__, reverse=True)
    adjusted = [1.0] * m
    running = 1.0
    for position, index in enumerate(order):
        rank = m - position
        running = min(running, pvalues[index] * m / rank)
        adjusted[index] = min(1.0, running)
    return adjusted


@dataclass(frozen=True)
class FdrResult:
    """BH over the testable scenarios; `None` marks one left out by Tarone's rule."""

    adjusted: list[float | None]
    threshold: float
    """q/K: the smallest reachable p a scenario needed to be tested."""


def tarone_bh(pvalues: Sequence[float], min_pvalues: Sequence[float], q: float) -> FdrResult:
    """Benjamini–Hochberg over the scenarios that can reach significance (Gilbert–Tarone)."""
    m = len(pvalues)
    if not m:
        return FdrResult([], q)
    reachable = sorted(min_pvalues)
    k = 1
    while k < m and bisect_right(reachable, q / k) > k:  # m(K): the reachable p ≤ q/K, counted
        k += 1
    threshold = q / k
    kept = [i for i in range(m) if min_pvalues[i] <= threshold]
    adjusted: list[float | None] = [None] * m
    for index, value in zip(kept, benjamini_hochberg([pvalues[i] for i in kept]), strict=True):
        adjusted[index] = value
    return FdrResult(adjusted, threshold)
