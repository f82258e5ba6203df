"""Divergence against the noise floor: do candidate runs stray further than baseline runs do?

Each candidate run's route distance to its nearest baseline run is compared with each baseline
run's leave-one-out nearest distance (how far the baseline strays from itself) by the one-sided
Mann–Whitney test. Needs at least two baseline runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

from agentdiff.stats.mannwhitney import RankTest, mann_whitney

__all__ = ["NoiseFloor", "noise_floor"]


@dataclass(frozen=True)
class NoiseFloor:
    """Nearest distances per side and the test that the candidate's are larger."""

    baseline: list[float]
    """Each baseline run's distance to its nearest other baseline run."""
    candidate: list[float]
    """Each candidate run's distance to its nearest baseline run."""
    nearest: list[int]
    """For each candidate run, the index of its nearest baseline run (first on ties)."""
    test: RankTest

    @property
    def baseline_median(self) -> float:
        """The baseline's median self-divergence."""
        return median(self.baseline) if self.baseline else 0.0


def noise_floor(
    distances: Sequence[Sequence[float]],
    baseline: Sequence[int],
    candidate: Sequence[int],
    *,
    seed: int = 0,
) -> NoiseFloor | None:
    """Nearest distances by route index into `distances`; None with fewer than 2 baseline runs."""
    if len(baseline) < 2 or not candidate:  # noqa: PLR2004
        return None
    own = []
    for i, route in enumerate(baseline):
        row = distances[route]
        own.append(min(row[other] for j, other in enumerate(baseline) if j != i))
    near: list[float] = []
    nearest: list[int] = []
    for route in candidate:
        row = distances[route]
        values = [row[b] for b in baseline]
        best = min(values)
        near.append(best)
        nearest.append(values.index(best))
    return NoiseFloor(own, near, nearest, mann_whitney(own, near, seed=seed))
