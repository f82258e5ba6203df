"""`--fold-framework-steps` in `compare-runs`, `routes` and `suite`: the runs read folded.

On real LangSmith (nested) and OpenInference (spans) captures of a LangGraph agent: with the
flag (or its `agentdiff.toml` setting) every run's step count, route skeleton, tested metrics and
pairs are of the folded run, the very numbers `compare --fold-framework-steps` reports, and each
report says how many framework steps it folded; without it nothing changes (no field, no words).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentdiff import compare
from agentdiff.cli.app import app
from agentdiff.diff.fold import FRAMEWORK_STEPS, fold_framework_steps, is_framework_step
from agentdiff.diff.options import CompareOptions
from agentdiff.models.trace import AgentTrace
from tests.realdata import RealSource

runner = CliRunner()
FOLD = CompareOptions(fold_framework_steps=True)
SCENARIOS = ("identical", "detour", "loop")
SOURCES = ((RealSource("langsmith"), "nested"), (RealSource("openinference"), "spans"))
_WIDE = {"COLUMNS": "400"}


pytestmark = pytest.mark.usefixtures("no_settings_env")
"""No `AGENTDIFF_*` setting from the environment, and `tmp_path` the working folder."""


def _sides(root: Path, source: RealSource, shape: str) -> tuple[Path, Path]:
    """`root/base/multi` and `root/cand/multi`: the three scenarios' runs of each side."""
    folders = []
    for side, name in (("baseline", "base"), ("candidate", "cand")):
        folder = root / name / "multi"
        folder.mkdir(parents=True)
        for scenario in SCENARIOS:
            shutil.copy(source.path(shape, scenario, side), folder / f"{scenario}.json")
        folders.append(folder)
    return folders[0], folders[1]


def _runs(source: RealSource, shape: str, side: str) -> dict[str, AgentTrace]:
    return {scenario: source.load(shape, scenario, side) for scenario in SCENARIOS}


def _removed(trace: AgentTrace) -> int:
    removed = len(trace.steps) - len(fold_framework_steps(trace).steps)
    assert removed == sum(map(is_framework_step, trace.steps)) > 0  # the fixture folds
    return removed


def _compared_steps(source: RealSource, shape: str) -> dict[tuple[str, str], int]:
    """Each run's step count as `compare --fold-framework-steps` reports it (either side)."""
    steps = {}
    for scenario in SCENARIOS:
        base, cand = (source.load(shape, scenario, side) for side in ("baseline", "candidate"))
        report = compare(base, cand, options=FOLD)
        steps["baseline", scenario] = report.baseline.steps
        steps["candidate", scenario] = report.candidate.steps
    return steps


def _invoke(*args: str) -> Any:
    result = runner.invoke(app, list(args), env=_WIDE)
    assert result.exit_code in (0, 1), result.output  # 1: the candidate's loop regressed
    return result


def _skeletons(sections: list[dict[str, Any]]) -> list[str]:
    return [row["skeleton"] for section in sections for row in section["clusters"]]


def _plumbing_in(skeleton: str) -> bool:
    return any(name in skeleton.split(" → ") for name in FRAMEWORK_STEPS)


@pytest.mark.parametrize(("source", "shape"), SOURCES, ids=str)
def test_compare_runs_reads_each_run_folded(tmp_path: Path, source: RealSource, shape: str) -> None:
    base, cand = map(str, _sides(tmp_path, source, shape))
    plain = json.loads(_invoke("compare-runs", base, cand, "-f", "json").stdout)
    folded = json.loads(
        _invoke("compare-runs", base, cand, "-f", "json", "--fold-framework-steps").stdout
    )
    (s_plain,), (s_fold,) = plain["scenarios"], folded["scenarios"]
    given = {"baseline": _runs(source, shape, "baseline")}
    given["candidate"] = _runs(source, shape, "candidate")
    compared = _compared_steps(source, shape)
    for row in s_plain["runs"]:
        assert row["steps"] == len(given[row["side"]][row["run_id"]].steps)
        assert "folded_framework_steps" not in row
    for row in s_fold["runs"]:
        trace = given[row["side"]][row["run_id"]]
        assert row["steps"] == compared[row["side"], row["run_id"]] < len(trace.steps)
        assert row["folded_framework_steps"] == _removed(trace)
    assert s_fold["routes"]["folded_framework_steps"] == sum(
        r["folded_framework_steps"] for r in s_fold["runs"]
    )
    assert "folded_framework_steps" not in s_plain["routes"]
    assert all(map(_plumbing_in, _skeletons([s_plain["routes"]])))
    assert not any(map(_plumbing_in, _skeletons([s_fold["routes"]])))
    steps = {t["name"]: t for t in s_fold["tests"]}["steps"]
    assert (
        steps["baseline"]["median"]
        < {t["name"]: t for t in s_plain["tests"]}["steps"]["baseline"]["median"]
    )


def test_a_departure_is_a_place_in_the_run_as_given(tmp_path: Path) -> None:
    """The loop run's route leaves the main one at the same step of its file, folded or not."""
    source, shape = SOURCES[0]
    cand = str(_sides(tmp_path, source, shape)[1])
    plain = json.loads(_invoke("routes", cand, "-f", "json").stdout)
    folded = json.loads(_invoke("routes", cand, "-f", "json", "--fold-framework-steps").stdout)
    (p_rows,), (f_rows,) = (
        [[r for r in s["clusters"] if r["departure"]] for s in report["scenarios"].values()]
        for report in (plain, folded)
    )
    (p_row,), (f_row,) = p_rows, f_rows
    assert f_row["departure"]["step"] == p_row["departure"]["step"]
    assert f_row["departure"]["extra_steps"] < p_row["departure"]["extra_steps"]  # kept steps
    terminal = _invoke("routes", cand, "--fold-framework-steps").stdout
    assert f"at step {p_row['departure']['step']} (of the run as given)" in terminal


@pytest.mark.parametrize(("source", "shape"), SOURCES, ids=str)
def test_routes_reads_each_run_folded(tmp_path: Path, source: RealSource, shape: str) -> None:
    base, cand = map(str, _sides(tmp_path, source, shape))
    plain = json.loads(_invoke("routes", base, cand, "-f", "json").stdout)
    folded = json.loads(
        _invoke("routes", base, cand, "-f", "json", "--fold-framework-steps").stdout
    )
    plain_by, folded_by = (
        {_side(k): v for k, v in r["scenarios"].items()} for r in (plain, folded)
    )
    assert plain_by.keys() == folded_by.keys() == {"base", "cand"}
    removed = {}
    for name, side in (("base", "baseline"), ("cand", "candidate")):
        removed[name] = sum(map(_removed, _runs(source, shape, side).values()))
        assert folded_by[name]["folded_framework_steps"] == removed[name]
        assert "folded_framework_steps" not in plain_by[name]
    assert all(map(_plumbing_in, _skeletons(list(plain_by.values()))))
    assert not any(map(_plumbing_in, _skeletons(list(folded_by.values()))))
    for fmt in ("terminal", "markdown", "html"):
        out = _invoke("routes", base, cand, "-f", fmt, "--fold-framework-steps").stdout
        for count in removed.values():
            assert f"3 runs ({count} framework steps folded)" in out, fmt
        assert "framework steps folded" not in _invoke("routes", base, cand, "-f", fmt).stdout


def _side(scenario: str) -> str:
    """`base` or `cand`: the side folder a `routes` scenario (`…/base/multi`) is in."""
    return Path(scenario).parent.name


def test_the_config_file_setting_folds_too(tmp_path: Path) -> None:
    source, shape = SOURCES[0]
    base, cand = map(str, _sides(tmp_path, source, shape))
    flagged = _invoke("routes", cand, "-f", "json", "--fold-framework-steps").stdout
    Path("agentdiff.toml").write_text("[compare]\nfold_framework_steps = true\n")
    assert _invoke("routes", cand, "-f", "json").stdout == flagged
    runs = json.loads(_invoke("compare-runs", base, cand, "-f", "json").stdout)
    assert all("folded_framework_steps" in row for row in runs["scenarios"][0]["runs"])


def test_compare_runs_reports_say_how_many_were_folded(tmp_path: Path) -> None:
    source, shape = SOURCES[0]
    base, cand = map(str, _sides(tmp_path, source, shape))
    b, c = (
        sum(map(_removed, _runs(source, shape, side).values()))
        for side in ("baseline", "candidate")
    )
    said = f"framework steps folded: {b} in the baseline runs, {c} in the candidate runs"
    for fmt in ("terminal", "markdown", "html"):
        folded = _invoke("compare-runs", base, cand, "-f", fmt, "--fold-framework-steps").stdout
        assert said in folded, fmt
        assert "framework steps folded" not in _invoke("compare-runs", base, cand, "-f", fmt).stdout


def _suite(
    tmp_path: Path, results: str, *flags: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    base, cand = (tmp_path / name for name in ("base", "cand"))
    out = tmp_path / results
    args = ["suite", str(base), str(cand), "--layout", "runs", "-j", "1", "--results", str(out)]
    result = runner.invoke(app, [*args, *flags], env=_WIDE)
    assert result.exit_code in (0, 1), result.output
    report = json.loads((out / "suite.json").read_text())
    lines = (out / "runs.jsonl").read_text().splitlines()
    return report, [json.loads(line) for line in lines]


@pytest.mark.parametrize(("source", "shape"), SOURCES, ids=str)
def test_suite_reads_each_run_folded(tmp_path: Path, source: RealSource, shape: str) -> None:
    _sides(tmp_path, source, shape)
    plain, plain_runs = _suite(tmp_path, "plain")
    folded, folded_runs = _suite(tmp_path, "folded", "--fold-framework-steps")
    given = {"baseline": _runs(source, shape, "baseline")}
    given["candidate"] = _runs(source, shape, "candidate")
    compared = _compared_steps(source, shape)
    for row in plain_runs:
        trace = given[row["side"]][row["run_id"]]
        assert row["steps"] == row["route_length"] == len(trace.steps)
        assert row["folded_framework_steps"] is None
    for row in folded_runs:
        trace = given[row["side"]][row["run_id"]]
        assert row["steps"] == row["route_length"] == compared[row["side"], row["run_id"]]
        assert row["folded_framework_steps"] == _removed(trace)
    (p_row,), (f_row,) = plain["scenarios"], folded["scenarios"]
    p_stats, f_stats = p_row["stats"], f_row["stats"]
    assert all("folded_framework_steps" not in r for r in p_stats["runs"])
    assert "folded_framework_steps" not in p_stats["routes"]
    steps = {(r["side"], r["run_id"]): r["steps"] for r in f_stats["runs"]}
    assert steps == {(r["side"], r["run_id"]): r["steps"] for r in folded_runs}
    assert f_stats["routes"]["folded_framework_steps"] == sum(
        r["folded_framework_steps"] for r in folded_runs
    )
    assert all(map(_plumbing_in, _skeletons([p_stats["routes"]])))
    assert not any(map(_plumbing_in, _skeletons([f_stats["routes"]])))


def test_suite_reports_say_how_many_were_folded(tmp_path: Path) -> None:
    source, shape = SOURCES[0]
    _sides(tmp_path, source, shape)
    b, c = (
        sum(map(_removed, _runs(source, shape, side).values()))
        for side in ("baseline", "candidate")
    )
    said = f"framework steps folded: {b} in the baseline runs, {c} in the candidate runs"
    args = ["suite", str(tmp_path / "base"), str(tmp_path / "cand"), "--layout", "runs", "-j", "1"]
    for fmt in ("terminal", "markdown", "html"):
        folded = runner.invoke(app, [*args, "-f", fmt, "--fold-framework-steps"], env=_WIDE)
        assert said in folded.stdout, fmt
        assert "framework steps folded" not in runner.invoke(app, [*args, "-f", fmt]).stdout


def test_a_suite_pair_says_how_many_were_folded(tmp_path: Path) -> None:
    """One run a side: the pair's deltas are of the folded runs, and the pair says so."""
    source, shape = SOURCES[0]
    for side, name in (("baseline", "base"), ("candidate", "cand")):
        (tmp_path / name).mkdir()
        shutil.copy(source.path(shape, "detour", side), tmp_path / name / "detour.json")
    base, cand = (source.load(shape, "detour", side) for side in ("baseline", "candidate"))
    report = compare(base, cand, options=FOLD)
    args = ["suite", str(tmp_path / "base"), str(tmp_path / "cand"), "-j", "1"]
    plain = json.loads(runner.invoke(app, [*args, "-f", "json"]).stdout)
    folded = json.loads(runner.invoke(app, [*args, "-f", "json", "--fold-framework-steps"]).stdout)
    ((p_pair,),), ((f_pair,),) = ([s["pairs"] for s in r["scenarios"]] for r in (plain, folded))
    assert "folded_framework_steps" not in p_pair
    assert f_pair["folded_framework_steps"] == {
        "baseline": _removed(base),
        "candidate": _removed(cand),
    }
    steps = f_pair["deltas"]["steps"]
    assert (steps["baseline"], steps["candidate"]) == (
        report.baseline.steps,
        report.candidate.steps,
    )
    assert p_pair["deltas"]["steps"]["candidate"] == len(cand.steps)
    said = (
        f"framework steps folded: {_removed(base)} in the baseline run, {_removed(cand)} in the"
        " candidate run (the pair was compared on the rest)"
    )
    for fmt in ("terminal", "markdown", "html"):
        shown = runner.invoke(app, [*args, "-f", fmt, "--fold-framework-steps"], env=_WIDE)
        assert said in shown.stdout, fmt
        assert "framework steps folded" not in runner.invoke(app, [*args, "-f", fmt]).stdout
