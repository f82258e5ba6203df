"""A Claude Code session in a folder of runs is read with its sub-agents, as `compare` reads it.

`compare-runs`, `routes` and `suite` merge the `<session>/subagents/agent-*.jsonl` transcripts
into the session's run (the same step counts and cost as `compare` gives for the file), and no
folder search counts a transcript as a run, or its folder as a scenario, of its own.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentdiff.config import SETTINGS
from tests.hostile.helpers import cli
from tests.realdata import REAL

SESSION = REAL / "claude_code" / "detour"
SIDES = ("baseline", "candidate")
COUNTS = ("steps", "tool_calls", "llm_calls", "total_tokens", "cost_usd")


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No `AGENTDIFF_*` setting from the environment, and no agentdiff.toml of the checkout."""
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    monkeypatch.chdir(tmp_path)


def _runs(folder: Path, side: str) -> Path:
    """`folder` holding two copies (`a`, `b`) of the real `side` session, each with its sub-agent."""
    folder.mkdir(parents=True)
    for name in ("a", "b"):
        shutil.copyfile(SESSION / f"{side}.session.jsonl", folder / f"{name}.session.jsonl")
        shutil.copytree(SESSION / f"{side}.session", folder / f"{name}.session")
    assert len(list(folder.glob("*.session/subagents/agent-*.jsonl"))) == 2
    return folder


def _json(*args: str | Path) -> Any:
    outcome = cli(*args, "--format", "json")
    assert outcome.code == 0, outcome.stderr
    return orjson.loads(outcome.stdout)


def _compared() -> dict[str, dict[str, Any]]:
    """What `compare` reads of each side's session file: its counts, sub-agents merged."""
    files = [SESSION / f"{side}.session.jsonl" for side in SIDES]
    report = _json("compare", *files)
    return {side: {key: report[side][key] for key in COUNTS} for side in SIDES}


def test_compare_runs_counts_a_session_as_compare_does(tmp_path: Path) -> None:
    base, cand = (_runs(tmp_path / side / "detour", side) for side in SIDES)
    (scenario,) = _json("compare-runs", base, cand)["scenarios"]
    expected = _compared()
    assert len(scenario["runs"]) == 4
    for run in scenario["runs"]:
        assert {key: run[key] for key in COUNTS} == expected[run["side"]], run["run_id"]


def test_routes_gives_one_scenario_of_two_runs_with_sub_agents_merged(tmp_path: Path) -> None:
    _runs(tmp_path / "runs" / "detour", "candidate")
    scenarios = _json("routes", tmp_path / "runs")["scenarios"]
    assert list(scenarios) == ["detour"]  # no `detour/a.session/subagents` scenario
    assert scenarios["detour"]["runs"] == 2
    (cluster,) = scenarios["detour"]["clusters"]
    assert cluster["cost_median"] == _compared()["candidate"]["cost_usd"]


@pytest.mark.parametrize("pattern", ["{}", "{}/**/*.jsonl"], ids=["folder", "glob"])
def test_suite_finds_one_scenario_of_two_sessions(tmp_path: Path, pattern: str) -> None:
    roots = [_runs(tmp_path / side / "detour", side).parent for side in SIDES]
    report = _json("suite", *(pattern.format(root) for root in roots), "-j", "1")
    (scenario,) = report["scenarios"]
    assert scenario["scenario"] == "detour"
    assert (scenario["baseline_runs"], scenario["candidate_runs"]) == (2, 2)
    expected = _compared()
    for pair in scenario["pairs"]:
        steps = pair["deltas"]["steps"]
        assert (steps["baseline"], steps["candidate"]) == tuple(
            expected[side]["steps"] for side in SIDES
        )
