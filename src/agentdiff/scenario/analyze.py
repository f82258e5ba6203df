"""`analyze_scenario`: N baseline runs and M candidate runs of one scenario in, a draft out.

The draft holds every test (raw p-values, Holm-adjusted within the scenario), the invariants,
routes, nearest pairs and runs. Its verdict is settled by `judge`, which corrects across
scenarios; `compare_runs` does both for a single scenario.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentdiff.diff.options import CompareOptions
from agentdiff.models.report import DiffReport
from agentdiff.models.trace import AgentTrace
from agentdiff.scenario.checks import Draft, metric_test, rate_band, rate_test, threshold_for
from agentdiff.scenario.invariants import new_loops, runs_with_new_loops
from agentdiff.scenario.pairs import PairComparer, gate_failures, nearest_rows, nearest_runs
from agentdiff.scenario.profile import METRICS, RunProfile
from agentdiff.scenario.report import NearestRun, RunRow, ScenarioReport, StatTest, Verdict
from agentdiff.scenario.routing import route_scenario
from agentdiff.stats import beyond_range, holm, min_p
from agentdiff.stats_options import StatsOptions

__all__ = ["Run", "analyze_profiles", "analyze_scenario", "named_runs"]

Run = tuple[str, AgentTrace]
"""(run id, trace)."""


def named_runs(runs: Sequence[AgentTrace | Run]) -> list[Run]:
    """(run id, trace) pairs; a bare trace is named by its trace id (made unique)."""
    out: list[Run] = []
    seen: set[str] = set()
    for run in runs:
        run_id, trace = (run.trace_id, run) if isinstance(run, AgentTrace) else run
        name, k = run_id, 1
        while name in seen:
            k += 1
            name = f"{run_id}#{k}"
        seen.add(name)
        out.append((name, trace))
    return out


def analyze_scenario(
    scenario: str,
    baseline: Sequence[Run],
    candidate: Sequence[Run],
    options: CompareOptions,
    stats: StatsOptions,
) -> ScenarioReport:
    """Tests, invariants, routes and pairs of one scenario (verdict: see `judge`)."""
    comparer = PairComparer(options)  # each run prepared once, for its profile and its pairs
    b_prof = [comparer.profile(t, rid) for rid, t in baseline]  # of folded runs when folding
    c_prof = [comparer.profile(t, rid) for rid, t in candidate]
    traces = (baseline, candidate)
    return analyze_profiles(scenario, b_prof, c_prof, options, stats, traces, comparer=comparer)


def analyze_profiles(
    scenario: str,
    b_prof: Sequence[RunProfile],
    c_prof: Sequence[RunProfile],
    options: CompareOptions,
    stats: StatsOptions,
    traces: tuple[Sequence[Run], Sequence[Run]] | None = None,
    compared: Sequence[tuple[int, DiffReport]] | None = None,
    *,
    comparer: PairComparer | None = None,
) -> ScenarioReport:
    """`analyze_scenario` on runs already profiled; without `traces` no pair is compared.

    Without traces (profiles alone, e.g. from stored results) the per-pair gate is not run:
    there is no nearest-pair table and no gate-failure rate. `compared` holds comparisons
    already made (the nearest baseline run's index and the report, per candidate run), which
    are used instead of comparing again; `comparer` compares the others (one per scenario).
    """
    comparer = comparer or PairComparer(options)
    n, m = len(b_prof), len(c_prof)
    routing = route_scenario(b_prof, c_prof, stats)
    nearest: list[NearestRun] = []
    drafts, untested = _metric_drafts(b_prof, c_prof, stats)
    drafts += _rate_drafts(b_prof, c_prof, stats)
    if traces is not None and n:
        baseline, candidate = traces
        distances = routing.distance_to_nearest
        nearest = (
            nearest_rows(baseline, candidate, compared, distances)
            if compared is not None
            else nearest_runs(baseline, candidate, routing.nearest, distances, comparer)
        )
        if n > 1:
            gate = _gate_rate(baseline, nearest, routing.baseline_nearest, comparer)
            if gate is not None:
                drafts.append(gate)
    drafts += routing.tests
    if all(d.p == d.p_better == 1.0 and d.name == _GATE for d in drafts):
        drafts = []  # every run agrees on everything: there is nothing to test
    tests = _corrected(drafts, stats)
    invariants = new_loops(b_prof, c_prof) if stats.loops == "invariant" else []
    findings = [i.message for i in invariants] if not options.gate.allow_loops else []
    if m == 1 and nearest and not nearest[0].gate_passed:
        findings += [
            f"per-pair gate vs {nearest[0].baseline_run}: {v}" for v in nearest[0].violations
        ]
    if m == 1 and n:
        findings += _beyond_range(b_prof, c_prof[0], stats)
    gate_clean = all(row.gate_passed for row in nearest)
    clean = all(not r.errors and not r.loops for r in c_prof) and gate_clean
    cluster_of = routing.routes.cluster_of
    names = [c.name for c in routing.routes.clusters]
    return ScenarioReport(
        scenario=scenario,
        n_baseline=n,
        n_candidate=m,
        verdict=Verdict.PASS,
        reasons=findings,
        min_p=min(1.0, len(tests) * min((t.min_p for t in tests), default=1.0)),
        tests=tests,
        untested=untested,
        invariants=invariants,
        all_clean=clean,
        routes=routing.section,
        noise_floor=routing.noise,
        nearest=nearest,
        runs=[
            _run_row("baseline" if i < n else "candidate", r, names[cluster_of[i]])
            for i, r in enumerate([*b_prof, *c_prof])
        ],
    )


_GATE = "runs failing the per-pair gate"


def _gate_rate(
    baseline: Sequence[Run],
    nearest: Sequence[NearestRun],
    baseline_nearest: Sequence[int | None],
    comparer: PairComparer,
) -> Draft | None:
    """Runs failing the per-pair gate: candidate vs nearest baseline run, baseline vs nearest other.

    The baseline's own pairs are compared only when a candidate run fails: otherwise the
    candidate cannot be worse (p = 1), and the test is kept with p = 1 both ways (conservative:
    the family Holm corrects for does not depend on the outcome).
    """
    n, m = len(baseline), len(nearest)
    failing = sum(not row.gate_passed for row in nearest)
    name = _GATE
    if failing:
        base = gate_failures(baseline, baseline_nearest, comparer)
        return rate_test(name, base, n, failing, m)
    note = "no candidate run fails the gate (the baseline's own pairs were not compared)"
    return Draft(
        name=name,
        method="fisher exact",
        p=1.0,
        p_better=1.0,
        min_p=min_p(n, m),
        candidate=rate_band(0, m),
        worse_enough=False,
        better_enough=False,
        note=note,
    )


def _metric_drafts(
    base: Sequence[RunProfile], cand: Sequence[RunProfile], stats: StatsOptions
) -> tuple[list[Draft], list[str]]:
    """The metrics' tests, and why a metric some runs know was not tested (see `_untested`)."""
    drafts, untested = [], []
    for name in METRICS:
        b = [v for v in (r.metric(name) for r in base) if v is not None]
        c = [v for v in (r.metric(name) for r in cand) if v is not None]
        if len(b) != len(base) or len(c) != len(cand):  # not comparable as a distribution
            note = _untested(name, base, cand)
            if note is not None:
                untested.append(note)
            continue
        draft = metric_test(name, b, c, stats)
        if draft is not None:
            drafts.append(draft)
    return drafts, untested


def _untested(name: str, base: Sequence[RunProfile], cand: Sequence[RunProfile]) -> str | None:
    """`cost_usd not tested: 6 of 6 candidate runs price only some of their model turns`.

    None when no run knows the metric even in part (a trace format without it says nothing).
    """
    if all(r.metric(name) is None and name not in r.partly for r in (*base, *cand)):
        return None
    partly = "report tokens for" if name == "total_tokens" else "price"
    parts = []
    for side, runs in (("baseline", base), ("candidate", cand)):
        some = sum(name in r.partly for r in runs)
        unknown = sum(r.metric(name) is None for r in runs) - some
        if some:
            parts.append(f"{some} of {len(runs)} {side} runs {partly} only some model turns")
        if unknown:
            parts.append(f"{unknown} of {len(runs)} {side} runs do not report it")
    return f"{name} not tested: {'; '.join(parts)}"


def _rate_drafts(
    base: Sequence[RunProfile], cand: Sequence[RunProfile], stats: StatsOptions
) -> list[Draft]:
    n, m = len(base), len(cand)
    rates = [
        ("runs with errors", sum(bool(r.errors) for r in base), sum(bool(r.errors) for r in cand)),
    ]
    if stats.loops == "rate":
        rates.append(("runs with loops", *runs_with_new_loops(base, cand)))
    b_known = [r.outcome for r in base if r.outcome is not None]
    c_known = [r.outcome for r in cand if r.outcome is not None]
    drafts = [d for name, kb, kc in rates if (d := rate_test(name, kb, n, kc, m)) is not None]
    if b_known and c_known:
        failed = rate_test(
            "failed outcomes",
            b_known.count(False),
            len(b_known),
            c_known.count(False),
            len(c_known),
        )
        if failed is not None:
            drafts.append(failed)
    return drafts


def _corrected(drafts: list[Draft], stats: StatsOptions) -> list[StatTest]:
    """Holm across the scenario's tests; each test's verdict at the scenario's level.

    A test that could not reach `alpha` after Holm whatever its runs showed (its smallest p
    times the number of tests is above it) is `inconclusive`, not `pass`: "0/6 → 3/6 runs
    fail, pass" read as if the candidate's failures had been weighed and found normal.
    """
    worse = holm([d.p for d in drafts])
    better = holm([d.p_better for d in drafts])
    tests = []
    for draft, adjusted, adjusted_better in zip(drafts, worse, better, strict=True):
        if adjusted <= stats.alpha and draft.worse_enough:
            verdict = Verdict.REGRESSED
        elif adjusted_better <= stats.alpha and draft.better_enough:
            verdict = Verdict.IMPROVED
        elif draft.min_p * len(drafts) > stats.alpha:
            verdict = Verdict.INCONCLUSIVE
        else:
            verdict = Verdict.PASS
        tests.append(
            StatTest(
                name=draft.name,
                method=draft.method,
                baseline=draft.baseline,
                candidate=draft.candidate,
                shift=draft.effect.get("shift"),
                shift_low=draft.effect.get("shift_low"),
                shift_high=draft.effect.get("shift_high"),
                change_pct=draft.effect.get("change_pct"),
                change_low=draft.effect.get("change_low"),
                change_high=draft.effect.get("change_high"),
                statistic=draft.statistic,
                p=draft.p,
                p_better=draft.p_better,
                adjusted_p=adjusted,
                adjusted_p_better=adjusted_better,
                min_p=draft.min_p,
                threshold_pct=draft.threshold_pct,
                effect_worse=draft.worse_enough,
                effect_better=draft.better_enough,
                verdict=verdict,
                note=_note(draft),
            )
        )
    return tests


def _note(draft: Draft) -> str | None:
    if draft.note:
        return draft.note
    if draft.threshold_pct is not None and not draft.worse_enough and not draft.better_enough:
        return f"median moved less than the practical threshold ({draft.threshold_pct:g} %)"
    return None


def _beyond_range(base: Sequence[RunProfile], cand: RunProfile, stats: StatsOptions) -> list[str]:
    """One candidate run: metrics beyond the whole baseline range by more than the threshold."""
    out = []
    for name in METRICS:
        value = cand.metric(name)
        values = [v for v in (r.metric(name) for r in base) if v is not None]
        threshold = threshold_for(name, stats)
        if value is None or len(values) != len(base) or threshold is None:
            continue
        if beyond_range(values, value, threshold):
            out.append(
                f"{name} {_plain(value)} is beyond every baseline run "
                f"(max {_plain(max(values))}) by more "
                f"than {threshold:g} % (one run: false-alarm rate up to 1/{len(base) + 1})"
            )
    return out


def _run_row(side: str, run: RunProfile, route: str) -> RunRow:
    return RunRow(
        side=side,
        run_id=run.run_id,
        route=route,
        steps=run.steps,
        tool_calls=run.tool_calls,
        llm_calls=run.llm_calls,
        model_turns=run.model_turns,
        errors=run.errors,
        total_tokens=run.total_tokens,
        cost_usd=run.cost_usd,
        latency_ms=run.latency_ms,
        loops=len(run.loops),
        outcome=run.outcome,
        folded_framework_steps=run.folded_framework_steps,
    )


def _plain(value: float) -> str:
    """`1,600,000`, `0.0000195`: a metric's value as the tables show it, not `1.6e+06`."""
    return f"{value:,.9f}".rstrip("0").rstrip(".")
