"""The effect intervals: a seeded percentile bootstrap of the Hodges–Lehmann shift and of the
median ratio, checked against a straightforward reference (resample, take every pairwise
difference, sort, take the median; one resample at a time) on the same seeded draws, and for
coverage by simulation."""

from __future__ import annotations

import random
from statistics import median

import pytest

from agentdiff.stats import shift_effect
from agentdiff.stats.effects import _CACHED_PAIRS, hodges_lehmann, resamples


def _reference(
    base: list[float], cand: list[float], seed: int, count: int
) -> tuple[float, float, float | None, float | None]:
    """Shift and ratio intervals the slow, obvious way (nearest-rank 2.5 % and 97.5 %)."""
    b, c = sorted(base), sorted(cand)
    shifts, ratios = [], []
    for drawn_b, drawn_c in zip(
        resamples(len(b), count, seed), resamples(len(c), count, seed + 1), strict=True
    ):
        rb, rc = [b[i] for i in drawn_b], [c[j] for j in drawn_c]
        shifts.append(median(sorted(y - x for y in rc for x in rb)))
        if median(rb):
            ratios.append(median(rc) / median(rb))

    def interval(values: list[float]) -> tuple[float, float]:
        ordered, last = sorted(values), len(values) - 1
        return ordered[round(0.025 * last)], ordered[round(0.975 * last)]

    ratio_low, ratio_high = interval(ratios) if median(b) else (None, None)
    return (*interval(shifts), ratio_low, ratio_high)


def _sample(rng: random.Random, n: int, shift: float, ties: bool) -> list[float]:
    if ties:  # steps, tool calls: small integers, many ties
        return [float(rng.randint(3, 7) + round(shift)) for _ in range(n)]
    return [rng.lognormvariate(shift, 0.5) for _ in range(n)]


@pytest.mark.parametrize(
    ("n", "m", "ties"),
    [
        (10, 10, False),
        (10, 10, True),
        (5, 7, False),
        (7, 5, True),
        (9, 1, False),
        (1, 1, False),
        (2, 2, False),
        (3, 4, True),
        (40, 40, False),
        (20, 3, True),
    ],
)
def test_the_intervals_are_the_reference_bootstraps(n: int, m: int, ties: bool) -> None:
    rng = random.Random(n * 100 + m)
    base, cand = _sample(rng, n, 0.0, ties), _sample(rng, m, 0.4, ties)
    for seed in (0, 3):
        effect = shift_effect(base, cand, seed=seed, resamples=400)
        low, high, ratio_low, ratio_high = _reference(base, cand, seed, 400)
        assert (effect.shift_low, effect.shift_high) == (low, high)
        assert (effect.ratio_low, effect.ratio_high) == (ratio_low, ratio_high)
        assert effect.shift == hodges_lehmann(base, cand)
        assert effect.shift_low <= effect.shift <= effect.shift_high


def test_a_large_scenario_beyond_the_weight_cache_agrees_too() -> None:
    rng = random.Random(11)
    base, cand = _sample(rng, 70, 0.0, False), _sample(rng, 60, 0.2, False)
    assert len(base) * len(cand) > _CACHED_PAIRS
    effect = shift_effect(base, cand, seed=2, resamples=100)
    low, high, _, _ = _reference(base, cand, 2, 100)
    assert (effect.shift_low, effect.shift_high) == (low, high)


def test_the_draws_are_seeded_resamples_with_replacement() -> None:
    drawn = resamples(10, 2000, 5)
    assert drawn == resamples(10, 2000, 5) != resamples(10, 2000, 6)
    assert all(len(d) == 10 and list(d) == sorted(d) for d in drawn)
    # each position is drawn once per resample on average, and some resamples repeat one
    counts = [sum(d.count(i) for d in drawn) / len(drawn) for i in range(10)]
    assert all(0.9 < c < 1.1 for c in counts)
    assert sum(len(set(d)) < 10 for d in drawn) > 1900  # P(no repeat) = 10!/10^10


def test_the_same_seed_gives_the_same_intervals() -> None:
    base, cand = [1.0, 1.2, 0.9, 1.1, 1.05, 0.95], [1.5, 1.8, 1.4, 1.6, 1.55, 1.7]
    one = shift_effect(base, cand, seed=1)
    assert one == shift_effect(base, cand, seed=1)
    assert one != shift_effect(base, cand, seed=2)


@pytest.mark.parametrize("n", [10, 20])
def test_the_shift_interval_covers_the_true_shift_about_95_percent(n: int) -> None:
    rng = random.Random(7)
    trials, covered = 300, 0
    for i in range(trials):
        base = [rng.gauss(0, 1) for _ in range(n)]
        cand = [rng.gauss(1.0, 1) for _ in range(n)]
        effect = shift_effect(base, cand, seed=i)
        covered += effect.shift_low <= 1.0 <= effect.shift_high
    # the percentile bootstrap is known to cover a little under its level at small N
    assert 0.88 <= covered / trials <= 0.985


def test_resamples_whose_baseline_median_is_zero_are_left_out_of_the_ratio() -> None:
    base = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 2.5, 3.0, 4.0]  # median 0.5, resamples often 0
    cand = [0.0, 1.0, 1.5, 2.0, 2.0, 3.0, 3.5, 4.0, 5.0, 6.0]
    for seed in (0, 1, 4):
        effect = shift_effect(base, cand, seed=seed, resamples=400)
        low, high, ratio_low, ratio_high = _reference(base, cand, seed, 400)
        assert (effect.shift_low, effect.shift_high) == (low, high)
        assert (effect.ratio_low, effect.ratio_high) == (ratio_low, ratio_high)
    drawn = resamples(len(base), 400, 0)
    assert any(median(base[i] for i in d) == 0 for d in drawn)


def test_more_than_32768_pairs_use_the_widest_lanes_and_agree() -> None:
    rng = random.Random(13)
    base, cand = _sample(rng, 190, 0.0, True), _sample(rng, 175, 0.4, False)
    assert len(base) * len(cand) >= 1 << 15  # lanes of 32 bits, pairs of lanes in 64
    effect = shift_effect(base, cand, seed=1, resamples=100)
    low, high, ratio_low, ratio_high = _reference(base, cand, 1, 100)
    assert (effect.shift_low, effect.shift_high) == (low, high)
    assert (effect.ratio_low, effect.ratio_high) == (ratio_low, ratio_high)
