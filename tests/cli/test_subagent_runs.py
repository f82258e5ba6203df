"""A Claude Code session in a folder of runs is read with its sub-agents, as `compare` reads it.

`compare-runs`, `routes` and `suite` merge the `<session>/subagents/agent-*.jsonl` transcripts
into the session's run (the same step counts and cost as `compare` gives for the file), and no
folder search counts a transcript as a run, or its folder as a scenario, of its own. A gzip
session (`<session>.jsonl.gz`) keeps the same `<session>/subagents` folder, whose transcripts
may be gzip too (`agent-*.jsonl.gz`): read, and kept out of the runs, the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.hostile.helpers import cli, refused
from tests.realdata import REAL, copy_session

SESSION = REAL / "claude_code" / "detour"
SIDES = ("baseline", "candidate")
COUNTS = ("steps", "tool_calls", "llm_calls", "total_tokens", "cost_usd")
GZIP = [(True, False), (True, True)]
"""`(gz, gz_parts)` of `copy_session`: a gzip session, with plain or gzip transcripts."""
GZIP_IDS = ["gz-session", "gz-session-and-transcripts"]


pytestmark = pytest.mark.usefixtures("no_settings_env")
"""No `AGENTDIFF_*` setting from the environment, and `tmp_path` the working folder."""


def _runs(folder: Path, side: str, *, gz: bool = False, gz_parts: bool = False) -> Path:
    """`folder` holding two copies (`a`, `b`) of the real `side` session, each with its sub-agent.

    `gz`, `gz_parts`: the sessions, the transcripts gzip (`copy_session`).
    """
    for name in ("a", "b"):
        copy_session(
            SESSION / f"{side}.session.jsonl", folder / f"{name}.session", gz=gz, gz_parts=gz_parts
        )
    assert len(list(folder.glob("*.session/subagents/agent-*.jsonl*"))) == 2
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


@pytest.mark.parametrize(("gz", "gz_parts"), GZIP, ids=GZIP_IDS)
def test_a_gzip_session_is_read_with_its_sub_agents_as_the_plain_one(
    tmp_path: Path, gz: bool, gz_parts: bool
) -> None:
    files = [
        copy_session(SESSION / f"{side}.session.jsonl", tmp_path / side, gz=gz, gz_parts=gz_parts)
        for side in SIDES
    ]
    assert [file.name for file in files] == ["baseline.jsonl.gz", "candidate.jsonl.gz"]
    report = _json("compare", *files)
    assert {side: {key: report[side][key] for key in COUNTS} for side in SIDES} == _compared()
    inspected = _json("inspect", files[1])
    assert inspected["totals"]["steps"] == _compared()["candidate"]["steps"]


@pytest.mark.parametrize(("gz", "gz_parts"), GZIP, ids=GZIP_IDS)
def test_routes_never_counts_the_transcripts_of_a_gzip_session_as_runs(
    tmp_path: Path, gz: bool, gz_parts: bool
) -> None:
    _runs(tmp_path / "runs" / "detour", "candidate", gz=gz, gz_parts=gz_parts)
    scenarios = _json("routes", tmp_path / "runs")["scenarios"]
    assert list(scenarios) == ["detour"]
    assert scenarios["detour"]["runs"] == 2
    (cluster,) = scenarios["detour"]["clusters"]
    assert cluster["cost_median"] == _compared()["candidate"]["cost_usd"]


@pytest.mark.parametrize(("gz", "gz_parts"), GZIP, ids=GZIP_IDS)
def test_suite_finds_one_scenario_of_two_gzip_sessions(
    tmp_path: Path, gz: bool, gz_parts: bool
) -> None:
    roots = [
        _runs(tmp_path / side / "detour", side, gz=gz, gz_parts=gz_parts).parent for side in SIDES
    ]
    (scenario,) = _json("suite", *roots, "-j", "1")["scenarios"]
    assert scenario["scenario"] == "detour"
    assert (scenario["baseline_runs"], scenario["candidate_runs"]) == (2, 2)
    expected = tuple(_compared()[side]["steps"] for side in SIDES)
    for pair in scenario["pairs"]:
        steps = pair["deltas"]["steps"]
        assert (steps["baseline"], steps["candidate"]) == expected


# A search started inside a session's folder (`<s>`, `<s>/subagents`) finds the transcripts
# without their session `<s>.jsonl`: they are still no runs (checked on disk), and a folder
# given that holds nothing else is refused, naming the session they are read with.


def _session_folder(tmp_path: Path, side: str, *, gz: bool = False, gz_parts: bool = False) -> Path:
    """`<side>/detour/a.session`: the folder of a real session, its sub-agent transcript inside."""
    return _runs(tmp_path / side / "detour", side, gz=gz, gz_parts=gz_parts) / "a.session"


def _with_a_run(folder: Path, side: str) -> Path:
    """`folder/extra/r.jsonl`: a run of its own (the side's session, without sub-agents)."""
    (folder / "extra").mkdir()
    (folder / "extra" / "r.jsonl").write_bytes((SESSION / f"{side}.session.jsonl").read_bytes())
    return folder


@pytest.mark.parametrize(("gz", "gz_parts"), [(False, False), *GZIP], ids=["plain", *GZIP_IDS])
def test_routes_inside_a_session_folder_counts_no_transcript_as_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gz: bool, gz_parts: bool
) -> None:
    inside = _session_folder(tmp_path, "candidate", gz=gz, gz_parts=gz_parts)
    session = "a.session.jsonl.gz" if gz else "a.session.jsonl"
    for given in (inside, inside / "subagents", *(inside / "subagents").iterdir()):
        refused(cli("routes", given), "sub-agent transcripts", session)
    refused(cli("routes", inside, tmp_path / "candidate"), "sub-agent transcripts", session)
    monkeypatch.chdir(inside / "subagents")
    refused(cli("routes", "."), "sub-agent transcripts", session)
    monkeypatch.chdir(tmp_path)
    scenarios = _json("routes", _with_a_run(inside, "candidate"))["scenarios"]
    assert list(scenarios) == ["extra"]  # no `subagents` scenario
    assert scenarios["extra"]["runs"] == 1


def test_compare_runs_of_a_transcripts_folder_names_their_session(tmp_path: Path) -> None:
    inside = _session_folder(tmp_path, "baseline")
    cand = _runs(tmp_path / "candidate" / "detour", "candidate")
    outcome = cli("compare-runs", inside / "subagents", cand)
    refused(outcome, "sub-agent transcripts", "a.session.jsonl", "read with it")
    refused(cli("compare-runs", cand, inside / "subagents"), "sub-agent transcripts")


def test_suite_rooted_inside_a_session_folder_counts_no_transcript_as_a_run(
    tmp_path: Path,
) -> None:
    roots = [_session_folder(tmp_path, side) for side in SIDES]
    refused(cli("suite", *roots, "-j", "1"), "sub-agent transcripts", "a.session.jsonl")
    refused(cli("suite", *(r / "subagents" for r in roots), "-j", "1"), "sub-agent transcripts")
    for root, side in zip(roots, SIDES, strict=True):
        _with_a_run(root, side)
    (scenario,) = _json("suite", *roots, "-j", "1")["scenarios"]
    assert scenario["scenario"] == "extra"  # no `subagents` scenario
    assert (scenario["baseline_runs"], scenario["candidate_runs"]) == (1, 1)


def test_a_suite_glob_matching_only_transcripts_is_refused_as_such_a_folder_is(
    tmp_path: Path,
) -> None:
    """Not "0 passed" (exit 0): the glob found trace files, and every one is a session's part."""
    roots = [_session_folder(tmp_path, side) for side in SIDES]
    globs = [f"{root.relative_to(tmp_path)}/subagents/*.jsonl" for root in roots]
    refused(cli("suite", *globs, "-j", "1"), "sub-agent transcripts", "a.session.jsonl")
    found = [f"{side}/**/*.jsonl" for side in SIDES]  # sessions and transcripts: the sessions
    (scenario,) = _json("suite", *found, "-j", "1")["scenarios"]
    assert (scenario["baseline_runs"], scenario["candidate_runs"]) == (2, 2)
