"""Exact tests by brute force and by simulation; conformal p; Tarone; intervals."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentdiff.stats import (
    beyond_range,
    conformal_p,
    energy_test,
    fisher_greater,
    mann_whitney,
    min_p,
    noise_floor,
    runs_for_conformal,
    shift_effect,
    tarone_bh,
)
from agentdiff.stats.mannwhitney import PERMUTATIONS, exact_for
from agentdiff.stats.ranks import doubled_ranks


def _brute_force_p(base: list[float], cand: list[float]) -> float:
    pooled = base + cand
    ranks = doubled_ranks(pooled)
    observed = sum(ranks[len(base) :])
    splits = list(itertools.combinations(range(len(pooled)), len(cand)))
    return sum(sum(ranks[i] for i in s) >= observed for s in splits) / len(splits)


small = st.lists(st.integers(0, 5), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(small, small)
def test_exact_rank_sum_equals_enumeration(base: list[int], cand: list[int]) -> None:
    result = mann_whitney(base, cand)
    assert result.p_greater == pytest.approx(_brute_force_p(base, cand))
    assert result.p_less == pytest.approx(_brute_force_p([-v for v in base], [-v for v in cand]))


def test_smallest_reachable_p_matches_the_published_table() -> None:
    # many-runs.md §4.6: 3v1 0.25, 5v1 0.167, 19v1 0.05, 3v3 0.05, 5v3 0.018, 5v5 0.0040
    assert min_p(3, 1) == pytest.approx(0.25)
    assert min_p(5, 1) == pytest.approx(1 / 6)
    assert min_p(19, 1) == pytest.approx(0.05)
    assert min_p(3, 3) == pytest.approx(0.05)
    assert min_p(5, 3) == pytest.approx(1 / 56)
    assert min_p(5, 5) == pytest.approx(1 / 252)
    assert mann_whitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]).p_greater == pytest.approx(1 / 252)


def test_identical_values_give_p_one() -> None:
    result = mann_whitney([3.0] * 5, [3.0] * 5)
    assert result.p_greater == 1.0
    assert result.p_less == 1.0


def test_sampled_p_is_close_to_exact_and_seeded() -> None:
    rng = random.Random(3)
    base = [rng.gauss(0, 1) for _ in range(60)]
    cand = [rng.gauss(0.4, 1) for _ in range(60)]
    assert not exact_for(60, 60)
    sampled = mann_whitney(base, cand, seed=1)
    again = mann_whitney(base, cand, seed=1)
    assert sampled == again
    assert not sampled.exact
    assert sampled.p_greater >= 1 / (1 + PERMUTATIONS)
    # the normal approximation with continuity correction as a yardstick
    n = m = 60
    z = (sampled.u - n * m / 2 - 0.5) / math.sqrt(n * m * (n + m + 1) / 12)
    normal = 0.5 * math.erfc(z / math.sqrt(2))
    assert sampled.p_greater == pytest.approx(normal, abs=0.01)


@pytest.mark.parametrize("n", [5, 10])
def test_false_alarm_rate_of_rank_test_on_identical_distributions(n: int) -> None:
    rng = random.Random(n)
    trials, alarms = 4000, 0
    for _ in range(trials):
        base = [rng.lognormvariate(0, 0.5) for _ in range(n)]
        cand = [rng.lognormvariate(0, 0.5) for _ in range(n)]
        alarms += mann_whitney(base, cand).p_greater <= 0.05
    assert alarms / trials <= 0.05 + 0.01


@pytest.mark.parametrize("n", [5, 10])
def test_false_alarm_rate_of_fisher_on_identical_rates(n: int) -> None:
    rng = random.Random(n)
    trials, alarms = 4000, 0
    for _ in range(trials):
        kb = sum(rng.random() < 0.3 for _ in range(n))
        kc = sum(rng.random() < 0.3 for _ in range(n))
        alarms += fisher_greater(kb, n, kc, n) <= 0.05
    assert alarms / trials <= 0.05 + 0.01


def test_fisher_published_values() -> None:
    # many-runs.md §4.6: baseline 0/N, candidate k/M
    assert fisher_greater(0, 5, 3, 5) == pytest.approx(0.083, abs=5e-4)
    assert fisher_greater(0, 5, 4, 5) == pytest.approx(0.024, abs=5e-4)
    assert fisher_greater(0, 10, 4, 10) == pytest.approx(0.043, abs=5e-4)
    assert fisher_greater(0, 20, 5, 20) == pytest.approx(0.024, abs=5e-4)


def test_conformal_rank_p() -> None:
    base = [1.0, 2.0, 3.0, 4.0]
    assert conformal_p(base, 5.0) == pytest.approx(1 / 5)
    assert conformal_p(base, 2.0) == pytest.approx(4 / 5)
    assert conformal_p(base, 0.0, larger=False) == pytest.approx(1 / 5)
    assert runs_for_conformal(0.05) == 19
    assert runs_for_conformal(0.01) == 99
    assert beyond_range(base, 4.5, 10)
    assert not beyond_range(base, 4.3, 10)


def test_tarone_leaves_out_scenarios_that_cannot_reach_significance() -> None:
    # two scenarios with 10 v 10 runs (can reach 5e-6) and eight with 3 v 1 (cannot go below 0.25)
    pvalues = [1e-4, 0.3] + [0.25] * 8
    reachable = [min_p(10, 10)] * 2 + [min_p(3, 1)] * 8
    result = tarone_bh(pvalues, reachable, 0.05)
    assert result.adjusted[2:] == [None] * 8
    assert result.adjusted[0] == pytest.approx(2e-4)
    assert result.threshold == pytest.approx(0.025)


def _tarone_k(reachable: list[float], q: float) -> int:
    """The smallest K with #{reachable p ≤ q/K} ≤ K, by counting every time (the definition)."""
    k = 1
    while k < len(reachable) and sum(1 for p in reachable if p <= q / k) > k:
        k += 1
    return k


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 400), st.integers(0, 10_000))
def test_tarone_threshold_is_the_definitions(scenarios: int, seed: int) -> None:
    rng = random.Random(seed)
    shapes = [(10, 10), (5, 5), (3, 1), (20, 20), (4, 2), (1, 1)]  # ties of reachable p
    reachable = [min_p(*rng.choice(shapes)) for _ in range(scenarios)]
    reachable += [0.05 / k for k in range(1, 4) if rng.random() < 0.5]  # on a boundary q/K
    pvalues = [max(r, rng.random()) for r in reachable]
    result = tarone_bh(pvalues, reachable, 0.05)
    assert result.threshold == 0.05 / _tarone_k(reachable, 0.05)
    assert [a is None for a in result.adjusted] == [r > result.threshold for r in reachable]


def test_bootstrap_is_seeded_and_brackets_the_ratio() -> None:
    base = [1.0, 1.2, 0.9, 1.1, 1.05, 0.95]
    cand = [1.5, 1.8, 1.4, 1.6, 1.55, 1.7]
    one = shift_effect(base, cand, seed=1)
    assert one == shift_effect(base, cand, seed=1)
    assert one.ratio_low is not None
    assert one.ratio_high is not None
    assert one.ratio_low <= one.ratio <= one.ratio_high


def _energy_brute(matrix: list[list[float]], labels: list[int], m: int) -> float:
    total = len(labels)

    def stat(cand: set[int]) -> float:
        c = sorted(cand)
        b = [i for i in range(total) if i not in cand]

        def mean(xs: list[int], ys: list[int], same: bool) -> float:
            pairs = [(i, j) for i in xs for j in ys if not (same and i == j)]
            return (
                sum(matrix[labels[i]][labels[j]] for i, j in pairs) / len(pairs) if pairs else 0.0
            )

        return mean(b, c, False) - (mean(b, b, True) + mean(c, c, True)) / 2

    observed = stat(set(range(total - m, total)))
    splits = list(itertools.combinations(range(total), m))
    return sum(stat(set(s)) >= observed - 1e-12 for s in splits) / len(splits)


def test_energy_exact_p_equals_enumeration_of_splits() -> None:
    matrix = [[0.0, 0.3, 0.8], [0.3, 0.0, 0.6], [0.8, 0.6, 0.0]]
    base = [0, 0, 0, 1, 0, 1]
    cand = [2, 2, 1, 0, 2]
    result = energy_test(matrix, base, cand)
    assert result.exact
    assert result.p == pytest.approx(_energy_brute(matrix, base + cand, len(cand)))
    assert result.statistic > 0


def test_energy_permutations_when_every_run_differs() -> None:
    rng = random.Random(2)
    size = 24
    points = [rng.random() + (0.5 if i >= 12 else 0) for i in range(size)]
    matrix = [[abs(a - b) for b in points] for a in points]
    result = energy_test(matrix, list(range(12)), list(range(12, 24)), seed=5)
    assert not result.exact
    assert result.p <= 0.01
    assert result == energy_test(matrix, list(range(12)), list(range(12, 24)), seed=5)
    same = energy_test(matrix, list(range(0, 24, 2)), list(range(1, 24, 2)), seed=5)
    assert same.p > 0.05


def test_energy_one_route_cannot_shift() -> None:
    assert energy_test([[0.0]], [0, 0, 0], [0, 0]).p == 1.0


def test_noise_floor_uses_leave_one_out_baseline_distances() -> None:
    matrix = [[0.0, 0.1, 0.9], [0.1, 0.0, 0.8], [0.9, 0.8, 0.0]]
    floor = noise_floor(matrix, [0, 1, 0, 1], [2, 2, 2, 0])
    assert floor is not None
    assert floor.baseline == [0.0, 0.0, 0.0, 0.0]
    assert floor.candidate == [0.8, 0.8, 0.8, 0.0]
    assert floor.nearest == [1, 1, 1, 0]
    assert floor.test.p_greater == pytest.approx(5 / 70)  # all three 0.8s among the candidate
    assert noise_floor(matrix, [0], [1]) is None
