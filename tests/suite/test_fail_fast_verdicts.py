"""`--fail-fast` only stops early: it never turns a draft N-vs-M regression that the
cross-scenario correction rejects into a regressed verdict (a reviewer's suite of 6 scenarios
of 5 runs each passed whole, and failed with `--fail-fast`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentdiff.suite import RunSet, SuiteOptions, run_suite

PLAIN = ["lookup", "refund"]
DETOUR = ["lookup", "search", "search", "refund"]


def _run(run_id: str, tools: list[str]) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []

    def add(kind: str, name: str) -> None:
        tokens = {"prompt_tokens": 100, "completion_tokens": 10} if kind == "llm_call" else None
        steps.append(
            {
                "step_id": f"s{len(steps)}",
                "step_index": len(steps),
                "step_type": kind,
                "name": name,
                "input_payload": {"q": name},
                "latency_ms": 10.0,
                "tokens": tokens,
            }
        )

    add("llm_call", "gpt-4o-mini")
    for tool in tools:
        add("tool_call", tool)
        add("llm_call", "gpt-4o-mini")
    return {"trace_id": run_id, "agent_name": "agent", "steps": steps}


def _suite(root: Path, scenarios: dict[str, tuple[int, int]]) -> tuple[RunSet, RunSet]:
    """Per scenario: (runs per side, candidate runs that take the detour)."""
    for name, (runs, detours) in scenarios.items():
        for k in range(runs):
            for side, tools in (("base", PLAIN), ("cand", DETOUR if k < detours else PLAIN)):
                path = root / side / name / f"run{k}.json"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(_run(f"{side}{k}", tools)))
    return RunSet.from_dir(root / "base"), RunSet.from_dir(root / "cand")


def _verdicts(done) -> dict[str, str]:
    return {row.scenario: row.verdict for row in done.rows}


@pytest.mark.parametrize("batch_seconds", [1e-9, 1e9])
def test_fail_fast_keeps_the_verdicts_of_the_whole_suite(tmp_path, batch_seconds):
    """5 vs 5 runs, all detouring: p = 1/252 alone, inconclusive among 6 scenarios."""
    sets = _suite(
        tmp_path, {"alldetour": (5, 5), "detour": (5, 2), **{f"same{i}": (5, 0) for i in range(4)}}
    )
    whole = run_suite(*sets, SuiteOptions(backend="in-process"))
    assert whole.passed and _verdicts(whole)["alldetour"] == "inconclusive"
    options = SuiteOptions(backend="in-process", fail_fast=True, batch_seconds=batch_seconds)
    fast = run_suite(*sets, options)
    assert fast.passed
    assert _verdicts(fast) == _verdicts(whole)
    assert fast.unjudged == 0


def test_fail_fast_still_stops_at_a_decisive_regression(tmp_path):
    """10 vs 10 runs, all detouring: regressed whatever the other scenarios find."""
    sets = _suite(tmp_path, {"a_bad": (10, 10), **{f"b_same{i}": (5, 0) for i in range(3)}})
    whole = run_suite(*sets, SuiteOptions(backend="in-process"))
    assert _verdicts(whole)["a_bad"] == "regressed"
    options = SuiteOptions(backend="in-process", fail_fast=True, batch_seconds=1e9)
    fast = run_suite(*sets, options)
    assert not fast.passed
    assert _verdicts(fast) == {"a_bad": "regressed"}
    assert fast.unjudged == 3


def test_no_test_says_regressed_inside_a_scenario_the_correction_did_not_find_regressed(tmp_path):
    """Alone, 5 all-detouring runs give p = 1/252 and draft 'regressed' tests; among 6
    scenarios none can reach the corrected threshold: the scenario and its tests read
    'inconclusive'. A decisive scenario keeps its 'regressed' tests."""
    sets = _suite(
        tmp_path / "weak",
        {"alldetour": (5, 5), "detour": (5, 2), **{f"same{i}": (5, 0) for i in range(4)}},
    )
    rows = {row.scenario: row for row in run_suite(*sets, SuiteOptions(backend="in-process")).rows}
    weak = rows["alldetour"]
    assert weak.verdict == "inconclusive"
    assert weak.stats.tests and {t.verdict.value for t in weak.stats.tests} == {"inconclusive"}
    strong_sets = _suite(tmp_path / "strong", {"a_bad": (10, 10), "b_same": (5, 0)})
    strong = run_suite(*strong_sets, SuiteOptions(backend="in-process")).rows[0]
    assert strong.verdict == "regressed"
    assert "regressed" in {t.verdict.value for t in strong.stats.tests}
