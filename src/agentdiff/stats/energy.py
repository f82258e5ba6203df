"""Route shift: a permutation test of the energy statistic on a route-distance matrix.

E = mean cross distance − ½ (mean distance within the baseline + mean within the candidate):
0 when both sides take the same mix of routes, larger when the candidate's routes sit apart.
It needs no clustering threshold. Runs are grouped by distinct route first (distance 0 within a
route), so a split is a vector of how many of each route's runs fall on the candidate side:

- when there are at most `EXACT_SPLITS` such vectors, the p-value is exact: each vector weighted
  by its number of splits ∏ C(n_route, c_route);
- otherwise `PERMUTATIONS` seeded random splits, p = (1 + #splits with E ≥ observed) / (1 + P).

With r_u = Σ_v n_v d_uv (precomputed), a split's candidate counts c give the within-candidate sum
W_C = cᵀDc, the cross sum X = cᵀr − W_C and the within-baseline sum W_B = T − W_C − 2X.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["EXACT_SPLITS", "PERMUTATIONS", "EnergyTest", "energy_test"]

PERMUTATIONS = 999
EXACT_SPLITS = 5000
_EPSILON = 1e-12


@dataclass(frozen=True)
class EnergyTest:
    """The observed energy statistic and its one-sided permutation p-value."""

    statistic: float
    p: float
    exact: bool


def energy_test(
    distances: Sequence[Sequence[float]],
    baseline: Sequence[int],
    candidate: Sequence[int],
    *,
    seed: int = 0,
    permutations: int = PERMUTATIONS,
) -> EnergyTest:
    """Test whether candidate runs take other routes than baseline runs.

    `distances` is the matrix between distinct routes; `baseline` and `candidate` give each
    run's route index into it.
    """
    n, m = len(baseline), len(candidate)
    pooled = Counter([*baseline, *candidate])
    if not n or not m or len(pooled) < 2:  # noqa: PLR2004 - one route: nothing can shift
        return EnergyTest(0.0, 1.0, exact=True)
    routes = sorted(pooled)
    index = {route: i for i, route in enumerate(routes)}
    sizes = [pooled[r] for r in routes]
    matrix = [[distances[u][v] for v in routes] for u in routes]
    stat = _Statistic(matrix, sizes, n, m)
    counts = [0] * len(routes)
    for route in candidate:
        counts[index[route]] += 1
    observed = stat(counts)
    if _splits(tuple(sizes), m) <= EXACT_SPLITS:
        return EnergyTest(observed, _exact_p(stat, sizes, m, observed), exact=True)
    runs = [i for i, size in enumerate(sizes) for _ in range(size)]
    hits = 0
    for drawn in _draws(n + m, m, seed, permutations):
        split = [0] * len(routes)
        for position in drawn:
            split[runs[position]] += 1
        hits += stat(split) >= observed - _EPSILON
    return EnergyTest(observed, (1 + hits) / (1 + permutations), exact=False)


class _Statistic:
    """E for a vector of candidate counts per route."""

    def __init__(self, matrix: list[list[float]], sizes: list[int], n: int, m: int) -> None:
        self.matrix = matrix
        self.row_sums = [sum(d * s for d, s in zip(row, sizes, strict=True)) for row in matrix]
        self.total = sum(r * s for r, s in zip(self.row_sums, sizes, strict=True))
        self.cross_pairs = n * m
        self.base_pairs = n * (n - 1)
        self.cand_pairs = m * (m - 1)

    def __call__(self, counts: list[int]) -> float:
        within_c = 0.0
        toward = 0.0
        for u, c in enumerate(counts):
            if c:
                row = self.matrix[u]
                within_c += c * sum(row[v] * counts[v] for v in range(len(counts)) if counts[v])
                toward += c * self.row_sums[u]
        cross = toward - within_c
        within_b = self.total - within_c - 2 * cross
        mean_b = within_b / self.base_pairs if self.base_pairs else 0.0
        mean_c = within_c / self.cand_pairs if self.cand_pairs else 0.0
        return cross / self.cross_pairs - (mean_b + mean_c) / 2


def _splits(sizes: tuple[int, ...], m: int) -> int:
    """How many candidate-count vectors exist (0 ≤ c_u ≤ n_u, Σ c = m), stopping early."""
    ways = [1] + [0] * m
    for size in sizes:
        ways = [sum(ways[t - c] for c in range(min(size, t) + 1)) for t in range(m + 1)]
        if ways[m] > EXACT_SPLITS * 4:
            return ways[m]
    return ways[m]


def _exact_p(stat: _Statistic, sizes: list[int], m: int, observed: float) -> float:
    total = math.comb(sum(sizes), m)
    hits = 0
    for counts in _vectors(sizes, m):
        if stat(counts) >= observed - _EPSILON:
            hits += math.prod(math.comb(s, c) for s, c in zip(sizes, counts, strict=True))
    return hits / total


def _vectors(sizes: list[int], m: int) -> Iterator[list[int]]:
    """Every candidate-count vector with Σ = m."""
    if len(sizes) == 1:
        if m <= sizes[0]:
            yield [m]
        return
    rest = sum(sizes[1:])
    for c in range(max(0, m - rest), min(sizes[0], m) + 1):
        for tail in _vectors(sizes[1:], m - c):
            yield [c, *tail]


@lru_cache(maxsize=64)
def _draws(total: int, m: int, seed: int, permutations: int) -> tuple[tuple[int, ...], ...]:
    """Seeded random candidate sets (positions among the pooled runs), reused per size."""
    rng = random.Random(f"energy:{seed}:{total}:{m}")  # noqa: S311 - seeded statistics, not secrets
    positions = range(total)
    return tuple(tuple(rng.sample(positions, m)) for _ in range(permutations))
