"""Rates of runs with a property (errors, loops, gate failures, new routes, failed outcomes).

- one-sided **Fisher exact** test on the 2×2 table (baseline k of N runs, candidate j of M),
  computed exactly from the hypergeometric distribution with integer binomials;
- **Wilson** score intervals (95 %) for display;
- **all clean**: whether every candidate run is free of the property (pass^k style).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["RateTest", "fisher_greater", "fisher_less", "fisher_rates", "wilson"]

_Z95 = 1.959963984540054


@dataclass(frozen=True)
class RateTest:
    """Fisher's one-sided p-values for candidate rate > baseline rate and <."""

    p_greater: float
    p_less: float


def fisher_greater(k_base: int, n_base: int, k_cand: int, n_cand: int) -> float:
    """P(candidate has ≥ k_cand of the k_base + k_cand flagged runs | margins, no difference)."""
    flagged, total = k_base + k_cand, n_base + n_cand
    top = min(flagged, n_cand)
    ways = sum(_ways(j, flagged, n_cand, total) for j in range(k_cand, top + 1))
    return min(1.0, ways / math.comb(total, n_cand)) if total else 1.0


def fisher_less(k_base: int, n_base: int, k_cand: int, n_cand: int) -> float:
    """P(candidate has ≤ k_cand of the flagged runs | margins, no difference)."""
    flagged, total = k_base + k_cand, n_base + n_cand
    bottom = max(0, flagged - n_base)
    ways = sum(_ways(j, flagged, n_cand, total) for j in range(bottom, k_cand + 1))
    return min(1.0, ways / math.comb(total, n_cand)) if total else 1.0


def fisher_rates(k_base: int, n_base: int, k_cand: int, n_cand: int) -> RateTest:
    """Both one-sided p-values."""
    return RateTest(
        fisher_greater(k_base, n_base, k_cand, n_cand),
        fisher_less(k_base, n_base, k_cand, n_cand),
    )


def _ways(j: int, flagged: int, drawn: int, total: int) -> int:
    return math.comb(flagged, j) * math.comb(total - flagged, drawn - j)


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of the rate k/n ((0, 1) when n = 0)."""
    if n == 0:
        return 0.0, 1.0
    p, z2 = k / n, _Z95 * _Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = _Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)
