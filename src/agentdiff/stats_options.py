"""`StatsOptions`: how N baseline runs are compared with M candidate runs (`[stats]`).

Practical thresholds are in percent of the baseline median: a metric regresses only when its
adjusted p-value is at most `alpha` **and** its median moved by more than the threshold. They
are distinct from the per-pair `[gate]` keys (`max_cost_increase` ...), which still judge each
candidate run against its nearest baseline run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RouteThreshold", "StatsOptions", "inconclusive_fails", "judged_fdr"]


MAX_DRAWS = 100_000
"""The most permutations or bootstrap resamples a test may ask for (memory and time stay
bounded: each draw holds a resample of every run)."""


RouteThreshold = Annotated[float, Field(ge=0, le=1)]
"""A route distance that joins a cluster: 0 to 1 (NaN fails both bounds). `[stats]
route_threshold` and `cluster_routes(threshold=...)` both check it."""


class StatsOptions(BaseModel):
    """Settings of the N-vs-M statistics; every field is a `[stats]` key."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    alpha: float = Field(0.05, gt=0, lt=1)
    """Level of each scenario's tests after Holm's correction."""
    fdr: float = Field(0.05, gt=0, lt=1)
    """Benjamini–Hochberg false discovery rate across scenarios."""
    min_cost_effect: float = Field(10.0, ge=0)
    """Cost regresses only when its median rose more than this percent."""
    min_token_effect: float = Field(10.0, ge=0)
    min_latency_effect: float = Field(25.0, ge=0)
    min_step_effect: float = Field(20.0, ge=0)
    """For steps, tool calls and model turns."""
    loops: Literal["invariant", "rate"] = "invariant"
    """`invariant`: a loop no baseline run shows fails the scenario; `rate`: Fisher's test."""
    route_shift: bool = True
    """Count a significant route shift (energy test) as a regression."""
    route_threshold: RouteThreshold = 0.2
    """Route distance within which runs share a route cluster."""
    inconclusive: Literal["pass", "fail"] = "pass"
    """Whether an inconclusive scenario fails the run (exit 1)."""
    seed: int = Field(0, ge=0, le=2**63 - 1)
    """Seed of every permutation and bootstrap draw."""
    permutations: int = Field(999, ge=99, le=MAX_DRAWS)
    """Random splits of the route-shift test when exact enumeration is too large."""
    bootstrap: int = Field(1000, ge=100, le=MAX_DRAWS)
    """Bootstrap resamples of the effect intervals (Hodges–Lehmann shift, median ratio)."""


def inconclusive_fails(settings: Mapping[str, Any]) -> bool:
    """Whether an inconclusive scenario fails the run (exit 1), by a report's `[stats]` dump."""
    return settings.get("inconclusive") == "fail"


def judged_fdr(settings: Mapping[str, Any]) -> float:
    """The false discovery rate a report was judged at, by its `[stats]` dump."""
    return float(settings.get("fdr", _DEFAULT_FDR))


_DEFAULT_FDR: float = StatsOptions.model_fields["fdr"].default
