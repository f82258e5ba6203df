"""Effect sizes of a shift between two samples, each with a 95 % interval.

- **Hodges–Lehmann shift**: the median of all pairwise differences candidate − baseline (in the
  metric's unit; robust to skew and outliers, the estimate that goes with the rank-sum test).
  Interval: the distribution-free (Moses) interval, the k-th smallest and largest pairwise
  differences with k from the exact rank-sum distribution (unbounded when N and M are too small
  for 95 %).
- **median ratio**: median(candidate) / median(baseline), the relative change compared with the
  practical thresholds (`[stats] min_cost_effect` ...); none when the baseline median is 0.
  Interval: seeded 95 % percentile bootstrap, both sides resampled with replacement.

The bootstrap resamples only index positions: for values sorted ascending, a resample's median
is fixed by which sorted positions land in its middle, so those positions are drawn once per
(sample size, resamples, seed) and reused by every metric and scenario of that size.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import add, truediv
from statistics import median

from agentdiff.stats.mannwhitney import shift_rank

__all__ = ["BOOTSTRAP", "Effect", "hodges_lehmann", "median_ratio", "shift_effect"]

BOOTSTRAP = 1000
LEVEL = 0.95
_TAIL = (1 - LEVEL) / 2


@dataclass(frozen=True)
class Effect:
    """The shift of a candidate sample against a baseline sample, with 95 % intervals."""

    shift: float
    shift_low: float | None
    """None: N and M are too small for a 95 % distribution-free interval."""
    shift_high: float | None
    ratio: float | None
    """median(candidate) / median(baseline); None when the baseline median is 0."""
    ratio_low: float | None
    ratio_high: float | None


def hodges_lehmann(baseline: Sequence[float], candidate: Sequence[float]) -> float:
    """The median of all pairwise differences candidate − baseline."""
    return median([c - b for c in candidate for b in baseline])


def median_ratio(baseline: Sequence[float], candidate: Sequence[float]) -> float | None:
    """median(candidate) / median(baseline), or None when the baseline median is 0."""
    base = median(baseline)
    return median(candidate) / base if base else None


def shift_effect(
    baseline: Sequence[float],
    candidate: Sequence[float],
    *,
    seed: int = 0,
    resamples: int = BOOTSTRAP,
) -> Effect:
    """Both effects with their intervals (needs at least one value per side)."""
    diffs = sorted(c - b for c in candidate for b in baseline)
    shift = median(diffs)
    k = shift_rank(len(baseline), len(candidate), _TAIL)
    low, high = (diffs[k - 1], diffs[-k]) if k else (None, None)
    ratio = median_ratio(baseline, candidate)
    if ratio is None:
        return Effect(shift, low, high, None, None, None)
    ratios = _bootstrap_ratios(sorted(baseline), sorted(candidate), seed, resamples)
    ratio_low, ratio_high = _percentiles(ratios) if ratios else (None, None)
    return Effect(shift, low, high, ratio, ratio_low, ratio_high)


def _bootstrap_ratios(b: list[float], c: list[float], seed: int, resamples: int) -> list[float]:
    """The median ratio of each resample (resamples whose baseline median is 0 are skipped)."""
    lows_b, highs_b = _middles(len(b), resamples, seed)
    lows_c, highs_c = _middles(len(c), resamples, seed + 1)
    # twice each resample's median, at C speed (the halves cancel in the ratio)
    base = list(map(add, map(b.__getitem__, lows_b), map(b.__getitem__, highs_b)))
    cand = list(map(add, map(c.__getitem__, lows_c), map(c.__getitem__, highs_c)))
    if 0 in base:
        return [x / y for x, y in zip(cand, base, strict=True) if y]
    return list(map(truediv, cand, base))


@lru_cache(maxsize=256)
def _middles(n: int, resamples: int, seed: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For each resample of n sorted positions: the positions of its two middle values."""
    rng = random.Random(f"{seed}:{n}")  # noqa: S311 - seeded statistics, not secrets
    lows, highs = [], []
    for _ in range(resamples):
        drawn = sorted(rng.choices(range(n), k=n))
        lows.append(drawn[(n - 1) // 2])
        highs.append(drawn[n // 2])
    return tuple(lows), tuple(highs)


def _percentiles(values: list[float]) -> tuple[float, float]:
    """The central `LEVEL` interval of `values` (nearest-rank percentiles)."""
    ordered = sorted(values)
    last = len(ordered) - 1
    return ordered[round(_TAIL * last)], ordered[round((1 - _TAIL) * last)]
