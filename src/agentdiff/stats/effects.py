"""Effect sizes of a shift between two samples, each with a seeded 95 % bootstrap interval.

- **Hodges–Lehmann shift**: the median of all pairwise differences candidate − baseline (in the
  metric's unit; robust to skew and outliers, the estimate that goes with the rank-sum test).
- **median ratio**: median(candidate) / median(baseline), the relative change compared with the
  practical thresholds (`[stats] min_cost_effect` ...); none when the baseline median is 0.

Both intervals come from the same resamples (a percentile bootstrap, both sides resampled with
replacement, `resamples` draws seeded by `seed`), drawn as sorted positions once per (sample
size, resamples, seed) and reused by every metric and scenario of that size:

- a resample's median is fixed by which sorted positions land in its middle;
- a resample's Hodges–Lehmann shift is the weighted median of the sorted pairwise differences,
  difference (i, j) weighing (times baseline position i was drawn) × (times candidate position
  j was drawn). Every resample is one fixed-width lane of a Python integer, so walking the
  sorted distinct differences once, with a few whole-integer additions per value, finds the
  median of all resamples at once (about 0.4 ms CPU for 10 v 10 runs and 1,000 resamples, less
  with ties; resampling and sorting the differences one resample at a time takes about 15 ms).
"""

from __future__ import annotations

import random
import sys
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby
from operator import add, mul, truediv
from statistics import median

__all__ = ["BOOTSTRAP", "Effect", "hodges_lehmann", "median_ratio", "resamples", "shift_effect"]

BOOTSTRAP = 1000
LEVEL = 0.95
_TAIL = (1 - LEVEL) / 2
_LANE_CODES = {8: "B", 16: "H", 32: "I", 64: "Q"}
"""Lane width in bits → the `array` type code that unpacks it (native little-endian)."""
_CACHED_PAIRS = 4096
"""Pair weights are cached per (N, M, resamples, seed) up to this many pairs (N × M)."""


@dataclass(frozen=True)
class Effect:
    """The shift of a candidate sample against a baseline sample, with 95 % intervals."""

    shift: float
    shift_low: float
    shift_high: float
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
    """Both effects with their intervals (needs at least one value per side).

    The baseline is resampled with `seed`, the candidate with `seed + 1`.
    """
    b, c = sorted(baseline), sorted(candidate)
    shifts = _bootstrap_shifts(b, c, seed, resamples)
    shift_low, shift_high = _percentiles(shifts)
    shift = hodges_lehmann(b, c)
    ratio = median_ratio(b, c)
    if ratio is None:
        return Effect(shift, shift_low, shift_high, None, None, None)
    ratios = _bootstrap_ratios(b, c, seed, resamples)
    ratio_low, ratio_high = _percentiles(ratios) if ratios else (None, None)
    return Effect(shift, shift_low, shift_high, ratio, ratio_low, ratio_high)


@lru_cache(maxsize=256)
def resamples(n: int, count: int, seed: int) -> tuple[tuple[int, ...], ...]:
    """`count` resamples of n sorted positions, each drawn with replacement and sorted."""
    rng = random.Random(f"{seed}:{n}")  # noqa: S311 - seeded statistics, not secrets
    return tuple(tuple(sorted(rng.choices(range(n), k=n))) for _ in range(count))


def _bootstrap_ratios(b: list[float], c: list[float], seed: int, count: int) -> list[float]:
    """The median ratio of each resample (resamples whose baseline median is 0 are skipped)."""
    lows_b, highs_b = _middles(len(b), count, seed)
    lows_c, highs_c = _middles(len(c), count, seed + 1)
    # twice each resample's median, at C speed (the halves cancel in the ratio)
    base = list(map(add, map(b.__getitem__, lows_b), map(b.__getitem__, highs_b)))
    cand = list(map(add, map(c.__getitem__, lows_c), map(c.__getitem__, highs_c)))
    if 0 in base:
        return [x / y for x, y in zip(cand, base, strict=True) if y]
    return list(map(truediv, cand, base))


@lru_cache(maxsize=256)
def _middles(n: int, count: int, seed: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For each resample of n sorted positions: the positions of its two middle values."""
    drawn = resamples(n, count, seed)
    return tuple(d[(n - 1) // 2] for d in drawn), tuple(d[n // 2] for d in drawn)


def _bootstrap_shifts(b: list[float], c: list[float], seed: int, count: int) -> list[float]:
    """The Hodges–Lehmann shift of each resample (see the module's docstring)."""
    n, m = len(b), len(c)
    pairs = n * m
    lanes = _pair_lanes if pairs <= _CACHED_PAIRS else _pair_lanes.__wrapped__
    width, weights, one = lanes(n, m, count, seed)
    order = sorted(range(pairs), key=lambda k: c[k % m] - b[k // m])
    # the ranks (1-based) of the median: one rank when N × M is odd, the two middle ones else
    low_rank, high_rank = (pairs + 1) // 2, pairs // 2 + 1
    guard = 1 << (width - 1)
    high_bits = one * guard
    low_offset, high_offset = one * (guard - low_rank), one * (guard - high_rank)
    shift = width - 1
    total = below_low = below_high = 0
    values = []
    # each lane: total = weight of the differences so far; below_* counts the distinct values
    # whose running weight is still under the rank, i.e. the index of the rank's value
    for value, group in groupby(order, key=lambda k: c[k % m] - b[k // m]):
        for k in group:
            total += weights[k]
        values.append(value)
        below_low += (high_bits ^ ((total + low_offset) & high_bits)) >> shift
        if high_rank != low_rank:
            below_high += (high_bits ^ ((total + high_offset) & high_bits)) >> shift
    low = _unpack(below_low, width, count)
    high = low if high_rank == low_rank else _unpack(below_high, width, count)
    return [(values[x] + values[y]) / 2 for x, y in zip(low, high, strict=True)]


@lru_cache(maxsize=16)
def _pair_lanes(n: int, m: int, count: int, seed: int) -> tuple[int, list[int], int]:
    """Lane width, each pair's weights (one lane per resample) and the integer of lanes = 1."""
    width = next(w for w in _LANE_CODES if n * m < 1 << (w - 1))
    code = _LANE_CODES[width]
    drawn_b, drawn_c = _drawn_counts(n, count, seed), _drawn_counts(m, count, seed + 1)
    weights = [
        int.from_bytes(array(code, map(mul, drawn_b[i], drawn_c[j])).tobytes(), sys.byteorder)
        for i in range(n)
        for j in range(m)
    ]
    one = int.from_bytes(array(code, [1] * count).tobytes(), sys.byteorder)
    return width, weights, one


def _drawn_counts(n: int, count: int, seed: int) -> list[list[int]]:
    """[i][r]: how many times sorted position i is drawn in resample r."""
    out = [[0] * count for _ in range(n)]
    for r, drawn in enumerate(resamples(n, count, seed)):
        for position in drawn:
            out[position][r] += 1
    return out


def _unpack(lanes: int, width: int, count: int) -> array[int]:
    return array(_LANE_CODES[width], lanes.to_bytes(count * width // 8, sys.byteorder))


def _percentiles(values: list[float]) -> tuple[float, float]:
    """The central `LEVEL` interval of `values` (nearest-rank percentiles)."""
    ordered = sorted(values)
    last = len(ordered) - 1
    return ordered[round(_TAIL * last)], ordered[round((1 - _TAIL) * last)]
