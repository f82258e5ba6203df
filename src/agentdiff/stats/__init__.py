"""Exact small-sample statistics for comparing N baseline runs with M candidate runs.

Pure Python on integers where it matters: the exact rank-sum distribution by dynamic programming,
Fisher's exact test, Holm and Benjamini–Hochberg (with Tarone's exclusion), the energy
permutation test on route distances, effect sizes with intervals. Everything seeded.
"""

from __future__ import annotations

from agentdiff.stats.conformal import beyond_range, conformal_p, runs_for_conformal
from agentdiff.stats.effects import Effect, hodges_lehmann, median_ratio, shift_effect
from agentdiff.stats.energy import EnergyTest, energy_test
from agentdiff.stats.mannwhitney import RankTest, mann_whitney, min_p
from agentdiff.stats.multiplicity import FdrResult, benjamini_hochberg, holm, tarone_bh
from agentdiff.stats.noise import NoiseFloor, noise_floor
from agentdiff.stats.rates import RateTest, fisher_greater, fisher_less, fisher_rates, wilson

__all__ = [
    "Effect",
    "EnergyTest",
    "FdrResult",
    "NoiseFloor",
    "RankTest",
    "RateTest",
    "benjamini_hochberg",
    "beyond_range",
    "conformal_p",
    "energy_test",
    "fisher_greater",
    "fisher_less",
    "fisher_rates",
    "hodges_lehmann",
    "holm",
    "mann_whitney",
    "median_ratio",
    "min_p",
    "noise_floor",
    "runs_for_conformal",
    "shift_effect",
    "tarone_bh",
    "wilson",
]
