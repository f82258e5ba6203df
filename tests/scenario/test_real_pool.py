"""N-vs-M statistics on real OpenAI Agents SDK runs (tests/fixtures/runs_pool, captured by
scripts/capture/runs_pool.py): seeded subsets of 40 runs per variant.

The scripted model picks plan A (lookup_order → refund_payment) in 70 % of runs and plan B
(search_kb → lookup_order → escalate) otherwise; `unchanged` is the same agent, `loop` repeats
lookup_order in 30 % of runs, `cost` reports 50 % more tokens. What each run did is in
`<variant>.facts.json`, recorded during the live run.
"""

from __future__ import annotations

import json
import random
from functools import cache

import pytest

from agentdiff.routes import cluster_routes
from agentdiff.scenario.analyze import Run
from agentdiff.scenario.api import compare_runs
from agentdiff.scenario.folders import runs_in
from agentdiff.scenario.profile import profile_run
from agentdiff.scenario.report import Verdict

from .pool import POOL

SEEDS = range(8)


@cache
def pool(variant: str) -> tuple[Run, ...]:
    return tuple(runs_in(POOL / variant))


@cache
def facts(variant: str) -> dict[str, dict]:
    document = json.loads((POOL / f"{variant}.facts.json").read_text())
    return {row["run"]: row for row in document["runs"]}


def subset(variant: str, seed: int, size: int = 10) -> list[Run]:
    return random.Random(f"{variant}:{seed}").sample(list(pool(variant)), size)


def test_pool_is_forty_real_sdk_runs_per_variant() -> None:
    for variant in ("baseline", "unchanged", "loop", "cost"):
        runs = pool(variant)
        assert len(runs) == 40
        assert {trace.metadata["source_format"] for _, trace in runs} == {"openai_agents"}
        for run_id, trace in runs:
            recorded = [c["name"] for c in facts(variant)[run_id]["tool_calls"]]
            seen = [s.name for s in trace.steps if s.step_type.value == "tool_call"]
            assert seen == recorded, run_id


@pytest.mark.parametrize("seed", SEEDS)
def test_unchanged_agent_raises_no_false_alarm(seed: int) -> None:
    report = compare_runs(subset("baseline", seed), subset("unchanged", seed))
    assert report.verdict is Verdict.PASS, report.reasons


@pytest.mark.parametrize("seed", SEEDS)
def test_loop_regresses_with_its_frequency(seed: int) -> None:
    cand = subset("loop", seed)
    looped = sorted(run_id for run_id, _ in cand if facts("loop")[run_id]["looped"])
    report = compare_runs(subset("baseline", seed), cand)
    if not looped:
        assert not report.invariants
        return
    assert report.verdict is Verdict.REGRESSED
    (finding,) = report.invariants
    assert finding.names == ["lookup_order"]
    assert finding.repetitions == 4
    assert sorted(finding.runs) == looped
    assert finding.frequency == f"{len(looped)}/10 runs"


@pytest.mark.parametrize("seed", SEEDS)
def test_cost_regresses_at_ten_runs_each(seed: int) -> None:
    report = compare_runs(subset("baseline", seed), subset("cost", seed))
    assert report.verdict is Verdict.REGRESSED, report.reasons
    # what regressed is spending: cost or tokens, or the per-pair gate failing on them
    regressed = {t.name for t in report.tests if t.verdict is Verdict.REGRESSED}
    assert regressed
    assert regressed <= {"cost_usd", "total_tokens", "runs failing the per-pair gate"}
    if "runs failing the per-pair gate" in regressed:
        violations = [v for n in report.nearest for v in n.violations]
        assert violations
        assert all("cost" in v or "token" in v for v in violations), violations
    for test in report.tests:  # planted: +50 % tokens on every model call
        if test.name in ("cost_usd", "total_tokens"):
            assert test.change_pct is not None
            assert 10 < test.change_pct < 120


def test_route_clusters_recover_the_two_planted_plans() -> None:
    runs = pool("baseline")
    routes = cluster_routes([profile_run(trace, run_id).route for run_id, trace in runs])
    assert len(routes.clusters) == 2
    plans = []
    for cluster in routes.clusters:
        members = {facts("baseline")[runs[i][0]]["plan"] for i in cluster.runs}
        assert len(members) == 1
        plans.append(members.pop())
        tools = [
            label.split("\x1f")[1] for label in cluster.medoid if label.startswith("tool_call")
        ]
        assert tools == (
            ["lookup_order", "refund_payment"]
            if plans[-1] == "A"
            else ["search_kb", "lookup_order", "escalate"]
        )
    assert plans == ["A", "B"]  # R1 is the more frequent plan (70 %)
    share = len(routes.clusters[0].runs) / 40
    assert share == sum(f["plan"] == "A" for f in facts("baseline").values()) / 40
