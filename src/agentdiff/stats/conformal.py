"""One candidate run against N baseline runs: the conformal rank p-value.

Under no change the candidate's value is exchangeable with the N baseline values, so its rank
among them is uniform: p = (1 + #baseline ≥ x) / (N + 1) (ties counted against the candidate).
The smallest reachable p is 1/(N + 1): below N = 19 it cannot reach 0.05, and the scenario is
inconclusive unless the value lies beyond the whole baseline range by more than the practical
threshold (whose honest false-alarm rate is still 1/(N + 1)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["beyond_range", "conformal_p", "runs_for_conformal"]


def conformal_p(baseline: Sequence[float], value: float, *, larger: bool = True) -> float:
    """The rank p-value of `value` being this large (or, `larger=False`, this small)."""
    if larger:
        at_least = sum(1 for b in baseline if b >= value)
    else:
        at_least = sum(1 for b in baseline if b <= value)
    return (1 + at_least) / (len(baseline) + 1)


def runs_for_conformal(alpha: float) -> int:
    """The fewest baseline runs that let one candidate run reach p ≤ alpha: ⌈1/α⌉ − 1."""
    return max(1, math.ceil(1 / alpha - 1e-9) - 1)


def beyond_range(baseline: Sequence[float], value: float, min_effect: float) -> bool:
    """`value` exceeds the largest baseline value by more than `min_effect` percent of it."""
    top = max(baseline)
    if top <= 0:
        return value > top and min_effect <= 0
    return value > top * (1 + min_effect / 100)
