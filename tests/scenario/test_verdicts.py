"""Scenario verdicts on synthetic repeated runs (real traces through the whole pipeline)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from agentdiff.diff.options import CompareOptions
from agentdiff.scenario.analyze import analyze_profiles
from agentdiff.scenario.api import compare_runs, compare_scenarios
from agentdiff.scenario.judge import judge, runs_needed
from agentdiff.scenario.profile import RunProfile
from agentdiff.scenario.report import StatTest, Verdict
from agentdiff.stats import min_p
from agentdiff.stats_options import StatsOptions

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from runs_synthetic import Variant, make_runs


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_unchanged_agent_passes(seed: int) -> None:
    base = make_runs(seed, 10, prefix="b")
    cand = make_runs(seed + 100, 10, prefix="c")
    report = compare_runs(base, cand)
    assert report.verdict is Verdict.PASS, report.reasons
    assert report.routes is not None
    assert report.n_baseline == report.n_candidate == 10


def test_loop_regresses_with_its_frequency() -> None:
    base = make_runs(1, 10, prefix="b")
    cand = make_runs(7, 10, Variant(loop_share=0.3), prefix="c")

    def has_loop(trace: object) -> bool:
        names = [s.name for s in trace.steps if s.step_type.value == "tool_call"]
        return any(names[i] == names[i + 1] == names[i + 2] for i in range(len(names) - 2))

    looped = [t.trace_id for t in cand if has_loop(t)]
    assert looped
    report = compare_runs(base, cand)
    assert report.verdict is Verdict.REGRESSED
    runs = sorted({r for inv in report.invariants for r in inv.runs})
    assert runs == sorted(looped)
    total = sum(int(inv.frequency.split("/")[0]) for inv in report.invariants)
    assert total == len(looped)
    assert all(inv.frequency.endswith("/10 runs") for inv in report.invariants)
    assert any(row.new and row.runs_with_loops for row in report.routes.clusters)


def test_loops_as_a_rate_need_more_evidence() -> None:
    base = make_runs(1, 10, prefix="b")
    cand = make_runs(7, 10, Variant(loop_share=0.3), prefix="c")
    report = compare_runs(base, cand, stats=StatsOptions(loops="rate", route_shift=False))
    assert not report.invariants
    assert any(t.name == "runs with loops" for t in report.tests)


def test_cost_regresses_at_ten_runs_each() -> None:
    base = make_runs(1, 10, prefix="b")
    cand = make_runs(2, 10, Variant(cost_factor=1.5), prefix="c")
    report = compare_runs(base, cand)
    assert report.verdict is Verdict.REGRESSED
    cost = next(t for t in report.tests if t.name == "cost_usd")
    assert cost.verdict is Verdict.REGRESSED
    assert cost.change_pct is not None
    assert cost.change_pct > 10
    assert cost.change_low is not None
    assert cost.change_low > 0


def test_cost_below_the_practical_threshold_does_not_regress() -> None:
    base = make_runs(1, 10, prefix="b")
    cand = make_runs(2, 10, Variant(cost_factor=1.5), prefix="c")
    strict = StatsOptions(min_cost_effect=500, min_token_effect=500)
    report = compare_runs(base, cand, options=CompareOptions(), stats=strict)
    cost = next(t for t in report.tests if t.name == "cost_usd")
    assert cost.verdict is Verdict.PASS
    assert cost.note is not None


def test_cheaper_candidate_improves() -> None:
    base = make_runs(1, 10, prefix="b")
    cand = make_runs(2, 10, Variant(cost_factor=0.5), prefix="c")
    report = compare_runs(base, cand)
    assert report.verdict is Verdict.IMPROVED, report.reasons


def test_one_candidate_run_is_inconclusive_and_says_how_many_runs() -> None:
    base = make_runs(1, 5, prefix="b")
    report = compare_runs(base, [("again", base[2])])
    assert report.verdict is Verdict.INCONCLUSIVE
    assert report.needs is not None
    assert "add runs" in report.reasons[0]
    assert "baseline runs with one candidate run" in report.reasons[0]
    assert report.tests[0].method == "conformal rank"


def test_one_candidate_run_far_beyond_the_baseline_range_regresses() -> None:
    base = make_runs(1, 5, prefix="b")
    cand = make_runs(2, 1, Variant(cost_factor=4.0), prefix="c")
    report = compare_runs(base, cand)
    assert report.verdict is Verdict.REGRESSED
    assert any("beyond every baseline run" in r for r in report.reasons)


def test_identical_runs_pass_with_nothing_to_test() -> None:
    runs = make_runs(1, 1, Variant(p_plan_a=1.0), prefix="b")
    report = compare_runs([runs[0]] * 3, [runs[0]] * 3)
    assert report.verdict is Verdict.PASS
    assert "nothing to test" in report.reasons[0]


def _metric_test(n: int, m: int) -> StatTest:
    floor = min_p(n, m)
    return StatTest(
        name="cost_usd",
        method="mann-whitney (exact)",
        p=0.5,
        p_better=0.5,
        adjusted_p=1.0,
        adjusted_p_better=1.0,
        min_p=floor,
        effect_worse=True,
        effect_better=False,
        verdict=Verdict.INCONCLUSIVE,
    )


def test_runs_needed_reaches_the_threshold() -> None:
    needs = runs_needed(3, 1, [_metric_test(3, 1)] * 8, 0.05)
    assert needs.baseline >= 3
    assert needs.candidate >= 1
    assert 8 * min_p(needs.baseline, needs.candidate) <= 0.05
    assert runs_needed(10, 10, [_metric_test(10, 10)] * 8, 0.05).baseline == 10


def test_compare_scenarios_is_deterministic() -> None:
    scen = {
        "a": (make_runs(1, 6, prefix="b"), make_runs(2, 6, prefix="c")),
        "b": (make_runs(3, 6, prefix="b"), make_runs(4, 6, Variant(cost_factor=2.0), prefix="c")),
    }
    one = compare_scenarios(scen)
    two = compare_scenarios(scen)
    assert one.to_json() == two.to_json()
    assert [s.scenario for s in one.scenarios] == ["a", "b"]
    assert one.scenarios[1].verdict is Verdict.REGRESSED
    assert one.counts["regressed"] == 1


# -- simulations on per-run profiles (no traces: the statistics alone) ---------------------------

ROUTE_A = ("llm_call\x1fplan", "tool_call\x1flookup", "response\x1fanswer")
ROUTE_B = ("llm_call\x1fplan", "tool_call\x1fsearch", "tool_call\x1flookup", "response\x1fanswer")


def _profile(rng: random.Random, run_id: str, cost_factor: float = 1.0) -> RunProfile:
    route = ROUTE_A if rng.random() < 0.7 else ROUTE_B
    cost = cost_factor * rng.lognormvariate(-5, 0.3)
    return RunProfile(
        run_id=run_id,
        steps=len(route),
        tool_calls=len(route) - 2,
        llm_calls=1,
        model_turns=1,
        errors=int(rng.random() < 0.1),
        retries=0,
        total_tokens=int(cost * 1e6),
        cost_usd=cost,
        latency_ms=rng.lognormvariate(7, 0.4),
        loops=(),
        route=route,
        outcome=None,
    )


def _scenario(rng: random.Random, name: str, n: int, m: int, cost_factor: float = 1.0):
    base = [_profile(rng, f"b{i}") for i in range(n)]
    cand = [_profile(rng, f"c{i}", cost_factor) for i in range(m)]
    return analyze_profiles(name, base, cand, CompareOptions(), StatsOptions())


@pytest.mark.slow
@pytest.mark.parametrize("n", [5, 10])
def test_false_alarm_rate_of_scenario_verdicts_stays_below_alpha(n: int) -> None:
    rng = random.Random(n)
    trials = 400
    regressed = 0
    for k in range(trials):
        report = judge([_scenario(rng, f"s{k}", n, n)], StatsOptions())
        regressed += report.scenarios[0].verdict is Verdict.REGRESSED
    assert regressed / trials <= 0.05 + 0.02


@pytest.mark.slow
def test_one_planted_regression_among_a_thousand_scenarios_is_found_at_twenty_runs() -> None:
    rng = random.Random(1000)
    drafts = [
        _scenario(rng, f"scenario-{k:04d}", 20, 20, cost_factor=2.0 if k == 617 else 1.0)
        for k in range(1000)
    ]
    report = judge(drafts, StatsOptions())
    regressed = [s.scenario for s in report.scenarios if s.verdict is Verdict.REGRESSED]
    assert regressed == ["scenario-0617"]
    planted = report.scenarios[617]
    assert planted.q is not None
    assert planted.q <= 0.05
    assert report.tarone_threshold == pytest.approx(0.05 / 1000)  # every scenario testable
