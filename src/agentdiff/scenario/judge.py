"""Verdicts across scenarios: Benjamini–Hochberg with Tarone's exclusion, then per scenario.

A scenario's p is the smallest Holm-adjusted p among its tests whose effect passes the practical
threshold. Scenarios whose tests cannot reach the corrected threshold with their N and M are
left out of Benjamini–Hochberg (Tarone) and are `inconclusive`, with the runs that would
suffice. In order: `error`; `regressed` by a hard finding (a new loop; with one candidate run,
the per-pair gate or a value beyond the whole baseline range); `inconclusive`; `regressed` when
q ≤ fdr; `improved` when the better-direction q ≤ fdr; else `pass`. A scenario with no test
(every run agrees on every metric and route) passes.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

from agentdiff.scenario.checks import fisher_floor
from agentdiff.scenario.report import (
    Needs,
    Rate,
    RunsReport,
    ScenarioReport,
    StatTest,
    Verdict,
)
from agentdiff.stats import min_p, tarone_bh
from agentdiff.stats_options import StatsOptions

__all__ = ["judge", "runs_needed", "scenario_p"]

_MAX_RUNS = 10_000


def judge(
    scenarios: Sequence[ScenarioReport],
    stats: StatsOptions,
    sources: Mapping[str, str] | None = None,
    own: Mapping[str, StatsOptions] | None = None,
) -> RunsReport:
    """Settle every scenario's verdict and count them.

    `own` holds the settings of scenarios that have their own (a suite manifest's
    `[[scenario]]` tables); the false discovery rate across scenarios is always `stats.fdr`.
    """
    own = own or {}
    testable = [i for i, s in enumerate(scenarios) if s.verdict is not Verdict.ERROR and s.tests]
    worse = [scenario_p(scenarios[i], worse=True) for i in testable]
    better = [scenario_p(scenarios[i], worse=False) for i in testable]
    floors = [scenarios[i].min_p for i in testable]
    fdr_worse = tarone_bh([p if p is not None else 1.0 for p in worse], floors, stats.fdr)
    fdr_better = tarone_bh([p if p is not None else 1.0 for p in better], floors, stats.fdr)
    out = list(scenarios)
    for k, i in enumerate(testable):
        q, q_better = fdr_worse.adjusted[k], fdr_better.adjusted[k]
        alpha = own.get(scenarios[i].scenario, stats).alpha
        p_pair, q_pair = (worse[k], q), (better[k], q_better)
        out[i] = _settle(scenarios[i], p_pair, q_pair, fdr_worse.threshold, stats.fdr, alpha)
    for i, s in enumerate(out):
        if i not in testable and s.verdict is not Verdict.ERROR:
            out[i] = _untested(s)
    counts = Counter(s.verdict.value for s in out)
    return RunsReport(
        settings=stats.model_dump(mode="json"),
        sources=dict(sources or {}),
        tarone_threshold=fdr_worse.threshold if testable else None,
        counts={v.value: counts.get(v.value, 0) for v in Verdict},
        scenarios=out,
    )


def scenario_p(scenario: ScenarioReport, *, worse: bool) -> float | None:
    """The scenario's p in one direction (None: no test whose effect passes the threshold).

    The smallest Holm-adjusted p of a test whose effect passes the practical threshold.
    """
    values = [
        t.adjusted_p if worse else t.adjusted_p_better
        for t in scenario.tests
        if (t.effect_worse if worse else t.effect_better)
    ]
    return min(values) if values else None


def _settle(
    s: ScenarioReport,
    worse: tuple[float | None, float | None],
    better: tuple[float | None, float | None],
    threshold: float,
    fdr: float,
    alpha: float,
) -> ScenarioReport:
    """`worse` and `better`: the scenario's p and its Benjamini–Hochberg q in each direction."""
    (p, q), (p_better, q_better) = worse, better
    update: dict[str, object] = {  # no p in a direction (no test's effect): no q either
        "p": p,
        "q": None if p is None else q,
        "p_better": p_better,
        "q_better": None if p_better is None else q_better,
    }
    if s.reasons:
        update["verdict"] = Verdict.REGRESSED
    elif q is None:
        needs = runs_needed(s.n_baseline, s.n_candidate, s.tests, threshold)
        update["verdict"] = Verdict.INCONCLUSIVE
        update["needs"] = needs
        update["reasons"] = [_inconclusive_reason(s, needs)]
    elif p is not None and q <= fdr:
        update["verdict"] = Verdict.REGRESSED
        update["reasons"] = _test_reasons(s, worse=True, level=max(alpha, fdr))
    elif p_better is not None and q_better is not None and q_better <= fdr:
        update["verdict"] = Verdict.IMPROVED
        update["reasons"] = _test_reasons(s, worse=False, level=max(alpha, fdr))
    else:
        update["verdict"] = Verdict.PASS
    upheld = {
        Verdict.REGRESSED: p is not None and q is not None and q <= fdr,
        Verdict.IMPROVED: p_better is not None and q_better is not None and q_better <= fdr,
    }
    update["tests"] = _settled_tests(s.tests, upheld, update["verdict"])
    return s.model_copy(update=update)


def _settled_tests(
    tests: list[StatTest], upheld: dict[Verdict, bool], verdict: object
) -> list[StatTest]:
    """The tests with the verdicts the correction across scenarios upholds.

    A test is drafted `regressed` (or `improved`) at its scenario's own level; when that
    direction did not survive the correction across scenarios it reads as its scenario does
    (`inconclusive` when no test could reach the corrected threshold, else `pass`), so no test
    says `regressed` inside a scenario the statistics did not find regressed.
    """
    fallback = Verdict.INCONCLUSIVE if verdict is Verdict.INCONCLUSIVE else Verdict.PASS
    return [
        t if upheld.get(t.verdict, True) else t.model_copy(update={"verdict": fallback})
        for t in tests
    ]


def _untested(s: ScenarioReport) -> ScenarioReport:
    if s.reasons:
        return s.model_copy(update={"verdict": Verdict.REGRESSED})
    metrics = "every metric tested (see below)" if s.untested else "every metric"
    reason = f"every run agrees on {metrics} and on its route: nothing to test"
    return s.model_copy(update={"verdict": Verdict.PASS, "reasons": [reason]})


def runs_needed(n: int, m: int, tests: Sequence[StatTest], threshold: float) -> Needs:
    """The fewest runs per side (growing both to at least k) whose tests could reach it.

    With the runs there are, a test reaches no lower than its own `min_p` (a rate's Fisher
    floor is set by its counts: 3 of 6 candidate runs failing against none of 6 baseline runs
    cannot go below 0.091), so the N and M that did not suffice are never the answer. With more
    runs: a metric's or a route's smallest p without ties, a rate's if its rates stay as seen.
    """
    k = max(n, m, 1)
    while k < _MAX_RUNS and len(tests) * _floor(tests, n, m, k) > threshold:
        k += 1
    return Needs(baseline=max(n, k), candidate=max(m, k), threshold=threshold)


def _floor(tests: Sequence[StatTest], n: int, m: int, k: int) -> float:
    """The smallest p a test could give with `max(n, k)` baseline and `max(m, k)` runs."""
    nb, mc = max(n, k), max(m, k)
    if (nb, mc) == (n, m):
        return min((t.min_p for t in tests), default=1.0)
    return min((_projected(t, nb, mc) for t in tests), default=1.0)


def _projected(test: StatTest, nb: int, mc: int) -> float:
    """`test`'s smallest p with `nb` and `mc` runs (a rate's counts scaled to them)."""
    base, cand = test.baseline, test.candidate
    if not (isinstance(base, Rate) and isinstance(cand, Rate) and base.runs and cand.runs):
        return min_p(nb, mc)
    flagged = round(base.count * nb / base.runs) + round(cand.count * mc / cand.runs)
    return fisher_floor(flagged, nb, mc)


def _inconclusive_reason(s: ScenarioReport, needs: Needs) -> str:
    text = (
        f"inconclusive — add runs: with {s.n_baseline} baseline and {s.n_candidate} candidate "
        f"runs no test can reach p ≤ {needs.threshold:.3g} after correcting for "
        f"{len(s.tests)} test{'s' if len(s.tests) != 1 else ''} "
        f"(smallest possible {s.min_p:.3g}); "
        f"{needs.baseline} baseline and {needs.candidate} candidate runs would suffice"
    )
    if s.n_candidate == 1:
        alone = math.ceil(len(s.tests) / needs.threshold - 1e-9) - 1
        text += f" (or {alone} baseline runs with one candidate run)"
    return text


def _test_reasons(s: ScenarioReport, *, worse: bool, level: float) -> list[str]:
    out = []
    for t in s.tests:
        p = t.adjusted_p if worse else t.adjusted_p_better
        enough = t.effect_worse if worse else t.effect_better
        if not enough or p > level:
            continue
        change = f" {t.change_pct:+.0f} %" if t.change_pct is not None else ""
        if t.baseline is not None and t.candidate is not None and hasattr(t.baseline, "count"):
            change = (
                f" {getattr(t.baseline, 'count', 0)}/{getattr(t.baseline, 'runs', 0)} → "
                f"{getattr(t.candidate, 'count', 0)}/{getattr(t.candidate, 'runs', 0)}"
            )
        out.append(f"{t.name}{change} (adjusted p = {p:.2g}, {t.method})")
    return out or ["several tests together (no single test below alpha)"]
