"""The tests of one scenario, before Holm's correction: metrics, rates, routes.

Every test gives a raw one-sided p in the worse direction (`p`) and in the better one
(`p_better`), the smallest p it could give with these pooled values (`min_p`, for Tarone), and
whether its effect is large enough to matter in each direction (`worse_enough`, `better_enough`).
A test whose pooled values are all equal (or a rate no run shows) cannot say anything and is
left out: the choice depends only on the pooled runs, never on which side a run is on, so Holm
and Benjamini–Hochberg stay valid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import median, quantiles

from agentdiff.scenario.report import Band, Rate
from agentdiff.stats import conformal_p, fisher_rates, mann_whitney, shift_effect, wilson
from agentdiff.stats.mannwhitney import exact_for
from agentdiff.stats_options import StatsOptions

__all__ = [
    "Draft",
    "band",
    "fisher_floor",
    "metric_test",
    "rate_band",
    "rate_test",
    "threshold_for",
]

_THRESHOLD_KEY = {
    "cost_usd": "min_cost_effect",
    "total_tokens": "min_token_effect",
    "latency_ms": "min_latency_effect",
    "steps": "min_step_effect",
    "tool_calls": "min_step_effect",
    "model_turns": "min_step_effect",
}


@dataclass
class Draft:
    """A test before correction (see the module doc)."""

    name: str
    method: str
    p: float
    p_better: float
    min_p: float
    worse_enough: bool = True
    better_enough: bool = True
    baseline: Band | Rate | None = None
    candidate: Band | Rate | None = None
    threshold_pct: float | None = None
    effect: dict[str, float | None] = field(default_factory=dict)
    statistic: float | None = None
    note: str | None = None


def threshold_for(metric: str, stats: StatsOptions) -> float | None:
    """The practical threshold (percent) of a metric, if one applies."""
    key = _THRESHOLD_KEY.get(metric)
    return None if key is None else float(getattr(stats, key))


def band(values: Sequence[float]) -> Band:
    """Median and quartiles (inclusive method; one value is its own quartiles)."""
    if len(values) == 1:
        return Band(median=values[0], q1=values[0], q3=values[0], runs=1)
    q1, _, q3 = quantiles(values, n=4, method="inclusive")
    return Band(median=median(values), q1=q1, q3=q3, runs=len(values))


def metric_test(
    name: str, base: list[float], cand: list[float], stats: StatsOptions
) -> Draft | None:
    """The rank-sum test (M ≥ 2) or the conformal rank p (M = 1) of one metric."""
    if not base or not cand or len(set(base + cand)) == 1:
        return None
    threshold = threshold_for(name, stats)
    effect = shift_effect(base, cand, seed=stats.seed, resamples=stats.bootstrap)
    change = None if effect.ratio is None else (effect.ratio - 1) * 100
    draft = Draft(
        name=name,
        method="",
        p=1.0,
        p_better=1.0,
        min_p=1.0,
        baseline=band(base),
        candidate=band(cand),
        threshold_pct=threshold,
        effect={
            "shift": effect.shift,
            "shift_low": effect.shift_low,
            "shift_high": effect.shift_high,
            "change_pct": change,
            "change_low": None if effect.ratio_low is None else (effect.ratio_low - 1) * 100,
            "change_high": None if effect.ratio_high is None else (effect.ratio_high - 1) * 100,
        },
    )
    draft.worse_enough = _beyond(change, effect.shift, threshold, worse=True)
    draft.better_enough = _beyond(change, effect.shift, threshold, worse=False)
    pooled = sorted(base + cand)
    if len(cand) == 1:
        draft.method = "conformal rank"
        draft.p = conformal_p(base, cand[0])
        draft.p_better = conformal_p(base, cand[0], larger=False)
        draft.min_p = conformal_p(pooled[:-1], pooled[-1])
        return draft
    result = mann_whitney(base, cand, seed=stats.seed)
    exact = "exact" if exact_for(len(base), len(cand)) else "9,999 seeded splits"
    draft.method = f"mann-whitney ({exact})"
    draft.p, draft.p_better, draft.statistic = result.p_greater, result.p_less, result.u
    extreme = mann_whitney(pooled[: len(base)], pooled[len(base) :], seed=stats.seed)
    draft.min_p = extreme.p_greater
    return draft


def _beyond(change: float | None, shift: float, threshold: float | None, *, worse: bool) -> bool:
    """Whether the effect passes the practical threshold in the given direction."""
    sign = 1 if worse else -1
    if threshold is None:
        return sign * shift > 0
    if change is None:  # the baseline median is 0: any move away from it is a full change
        return sign * shift > 0
    return sign * change > threshold


def rate_band(count: int, runs: int) -> Rate:
    """The rate: k of n runs with their Wilson interval."""
    low, high = wilson(count, runs)
    return Rate(count=count, runs=runs, low=low, high=high)


def fisher_floor(flagged: int, n_base: int, n_cand: int) -> float:
    """The smallest one-sided p Fisher's test can give when `flagged` runs in all show it.

    Its margins fixed, every flagged run a candidate run as far as they go; 1 when none or all.
    """
    if flagged <= 0 or flagged >= n_base + n_cand:
        return 1.0
    in_cand = min(flagged, n_cand)
    return fisher_rates(flagged - in_cand, n_base, in_cand, n_cand).p_greater


def rate_test(name: str, k_base: int, n_base: int, k_cand: int, n_cand: int) -> Draft | None:
    """Fisher's exact test of a rate of runs (None when no run on either side shows it)."""
    flagged = k_base + k_cand
    if not n_base or not n_cand or flagged == 0 or flagged == n_base + n_cand:
        return None
    result = fisher_rates(k_base, n_base, k_cand, n_cand)
    return Draft(
        name=name,
        method="fisher exact",
        p=result.p_greater,
        p_better=result.p_less,
        min_p=fisher_floor(flagged, n_base, n_cand),
        baseline=rate_band(k_base, n_base),
        candidate=rate_band(k_cand, n_cand),
        worse_enough=k_cand / n_cand > k_base / n_base,
        better_enough=k_cand / n_cand < k_base / n_base,
    )
