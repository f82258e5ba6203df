"""A scenario with several runs, one of which cannot be loaded: judged on the runs that did.

Real runs (tests/fixtures/runs_pool): 10 plain runs against 10 of a variant, one candidate file
cut short as a crashed writer leaves it. The scenario is judged on the 10 + 9 runs that loaded
(the loop variant still regresses: exit 1 wins), the row lists the run that did not load, and
the suite fails with exit 2 when nothing regressed, as for any load error. A side left with no
run at all is still an error row; a lost run never switches the scenario to the per-pair gate.
"""

from __future__ import annotations

import gzip
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentdiff.cli.app import app
from agentdiff.suite import RunSet, SuiteOptions, run_suite
from agentdiff.suite.render import render_suite
from agentdiff.suite.report import SuiteReport
from agentdiff.suite.results import load_results
from tests.action_driver import run_suite_action

POOL = Path(__file__).resolve().parents[1] / "fixtures" / "runs_pool"
CUT = "run-03"
FORMATS = ("terminal", "markdown", "html", "junit")
runner = CliRunner()


pytestmark = pytest.mark.usefixtures("no_settings_env")


def _runs(root: Path, variant: str, runs: int = 10, cut: dict[str, int] | None = None) -> Path:
    """`root/{b,c}/refund/run-NN.json(.gz)`; `cut` side → how many of its runs are cut short."""
    for side, source in (("b", "baseline"), ("c", variant)):
        folder = root / side / "refund"
        folder.mkdir(parents=True)
        for number, run in enumerate(sorted((POOL / source).iterdir())[:runs]):
            if number < (cut or {}).get(side, 0) or (cut is None and side == "c" and number == 3):
                text = gzip.decompress(run.read_bytes())
                (folder / f"{run.name[:6]}.json").write_bytes(text[: len(text) // 2])
            else:
                shutil.copyfile(run, folder / run.name)
    return root


def _suite(root: Path, **options: object) -> SuiteReport:
    chosen = SuiteOptions(backend="in-process", **options)  # type: ignore[arg-type]
    return run_suite(RunSet.from_dir(root / "b"), RunSet.from_dir(root / "c"), chosen)


@pytest.fixture(scope="module")
def looping(tmp_path_factory: pytest.TempPathFactory) -> SuiteReport:
    return _suite(_runs(tmp_path_factory.mktemp("looping"), "loop"))


@pytest.fixture(scope="module")
def steady(tmp_path_factory: pytest.TempPathFactory) -> SuiteReport:
    return _suite(_runs(tmp_path_factory.mktemp("steady"), "unchanged"))


def test_a_regression_is_still_found_on_the_runs_that_loaded(looping):
    row = looping.scenario("refund")
    assert (row.verdict, row.baseline_runs, row.candidate_runs) == ("regressed", 10, 9)
    assert row.stats is not None and row.stats.n_candidate == 9
    assert row.stats.reasons == ["loop lookup_order ×4 in 2/9 runs (in no baseline run)"]
    assert CUT not in {p.candidate.run for p in row.pairs} and len(row.pairs) == 9
    (error,) = row.errors
    assert (error.side, error.run, error.source) == ("candidate", CUT, f"refund/{CUT}.json")
    assert error.message.startswith(f"refund/{CUT}.json: invalid JSON")
    assert looping.counts.partly_loaded == 1 and looping.counts.errors == 0
    assert looping.exit_code == 1  # a regression wins over the load error
    words = "0 passed · 1 regressed · 1 with runs that could not be loaded"
    for fmt in FORMATS:
        text = render_suite(looping, fmt)
        assert words in text, fmt
        assert "regressed (10→9 runs loaded)" in text, fmt
        assert f"candidate run {CUT}: refund/{CUT}.json: invalid JSON" in text, fmt
    case = ET.fromstring(render_suite(looping, "junit")).find("testsuite/testcase")  # noqa: S314
    assert case is not None and case.find("failure") is not None and case.find("error") is None


def test_a_passing_scenario_with_a_run_not_loaded_fails_the_suite_with_exit_2(steady):
    row = steady.scenario("refund")
    assert (row.verdict, row.candidate_runs, len(row.errors)) == ("pass", 9, 1)
    assert (steady.counts.passed, steady.counts.partly_loaded) == (1, 1)
    assert (steady.passed, steady.exit_code) == (False, 2)
    for fmt in FORMATS:
        text = render_suite(steady, fmt)
        assert "1 passed · 1 with runs that could not be loaded" in text, fmt
        assert "pass (10→9 runs loaded)" in text, fmt
        assert "judged without 1 run that could not be loaded:" in text, fmt
        assert f"candidate run {CUT}: refund/{CUT}.json: invalid JSON" in text, fmt
    assert "Passed on the runs that loaded" in render_suite(steady, "terminal")
    assert render_suite(steady, "html").count("<tr><td>") == 1  # its section's index row only
    (line,) = [x for x in render_suite(steady, "markdown").splitlines() if x.startswith("| refund")]
    assert line.startswith("| refund | pass |") and f"candidate run {CUT}" in line
    suite = ET.fromstring(render_suite(steady, "junit")).find("testsuite")  # noqa: S314
    assert suite is not None
    assert [suite.get(k) for k in ("tests", "failures", "errors", "skipped")] == [
        "1",
        "0",
        "1",
        "0",
    ]
    error = suite.find("testcase/error")
    assert error is not None and error.get("message", "").startswith(f"refund/{CUT}.json")
    assert "pass (10→9 runs loaded)" in (error.text or "")


def test_the_json_contract_and_the_cli_exit_codes(steady, looping, tmp_path):
    data = orjson.loads(render_suite(steady, "json"))
    assert data["report_version"] == "3"
    assert data["counts"]["partly_loaded"] == 1
    assert data["scenarios"][0]["verdict"] == "pass" and data["scenarios"][0]["errors"]
    for variant, code in (("unchanged", 2), ("loop", 1)):
        root = _runs(tmp_path / variant, variant)
        result = runner.invoke(app, ["suite", str(root / "b"), str(root / "c")])
        assert result.exit_code == code, result.output


def test_a_side_with_no_run_loaded_is_still_an_error(tmp_path):
    done = _suite(_runs(tmp_path, "unchanged", runs=2, cut={"c": 2}))
    row = done.scenario("refund")
    assert (row.verdict, row.candidate_runs, len(row.errors), row.stats) == ("error", 0, 2, None)
    assert (done.counts.errors, done.counts.partly_loaded, done.exit_code) == (1, 0, 2)


def test_a_lost_run_never_switches_to_the_per_pair_gate(tmp_path):
    # 2 runs a side, one of each cut: 1 + 1 runs left are still judged as N-vs-M runs
    done = _suite(_runs(tmp_path, "unchanged", runs=2, cut={"b": 1, "c": 1}))
    row = done.scenario("refund")
    assert (row.baseline_runs, row.candidate_runs, len(row.errors)) == (1, 1, 2)
    assert row.stats is not None and row.verdict == row.stats.verdict.value
    assert (row.stats.n_baseline, row.stats.n_candidate) == (1, 1)
    # here the two runs left took different routes: the statistics' one-run rules fail it
    assert row.verdict == "regressed" and done.exit_code == 1
    assert any("one run: false-alarm rate" in reason for reason in row.stats.reasons)


def test_fail_fast_stops_at_a_run_that_did_not_load(tmp_path):
    root = _runs(tmp_path, "unchanged")
    for side in ("b", "c"):  # a second scenario after `refund` in key order
        shutil.copytree(root / side / "refund", root / side / "zz")
        (root / side / "zz" / f"{CUT}.json").unlink(missing_ok=True)
    done = _suite(root, fail_fast=True, jobs=1)
    assert [r.scenario for r in done.scenarios] == ["refund"]
    assert done.unjudged == 1 and done.exit_code == 2


def test_a_version_1_report_still_loads(steady, tmp_path):
    data = orjson.loads(render_suite(steady, "json"))
    data["report_version"] = "1"
    del data["counts"]["partly_loaded"]
    field = {"pass": "passed", "regressed": "regressed"}[data["scenarios"][0]["verdict"]]
    data["scenarios"][0] |= {"verdict": "error", "pairs": [], "deciding": None, "stats": None}
    data["counts"][field] -= 1  # the counts of a version 1 report agree with its rows
    data["counts"]["errors"] += 1
    (tmp_path / "suite.json").write_bytes(orjson.dumps(data))
    old = load_results(tmp_path)
    assert (old.report_version, old.counts.partly_loaded) == ("1", 0)
    assert "error (10→9 runs loaded)" in render_suite(old, "terminal")


def _table_line(report: SuiteReport, scenario: str) -> str:
    markdown = render_suite(report, "markdown")
    (line,) = [x for x in markdown.splitlines() if x.startswith(f"| {scenario} |")]
    return line


def test_the_markdown_table_says_why_it_regressed_and_which_run_was_lost(looping):
    # the Why cell of a regression found on the runs that loaded gave only the load error
    line = _table_line(looping, "refund")
    assert line.startswith("| refund | regressed |")
    assert " | 10→9 loaded | " in line  # 10 files, 9 runs compared: never "9 runs"
    why = line.split(" | ")[-1]
    loop = "loop lookup\\_order ×4 in 2/9 runs (in no baseline run)"
    assert why.startswith(f"{loop}; candidate run {CUT}: refund/{CUT}.json: invalid JSON"), why


def test_an_added_scenario_with_a_run_not_loaded_is_named_in_the_markdown_table(tmp_path):
    # `new` is only in the candidate, one of its 10 runs cut short: the suite fails (exit 2),
    # and the PR comment must say where, as every other format does
    root = _runs(tmp_path, "unchanged")
    shutil.copytree(root / "c" / "refund", root / "c" / "new")
    done = _suite(root)
    row = done.scenario("new")
    assert (row.verdict, row.candidate_runs, len(row.errors)) == ("added", 9, 1)
    assert (done.counts.partly_loaded, done.exit_code) == (2, 2)
    line = _table_line(done, "new")
    assert line.startswith("| new | added | — | 0→9 loaded |")
    assert f"candidate run {CUT}: new/{CUT}.json: invalid JSON" in line
    for fmt in FORMATS:
        assert f"candidate run {CUT}: new/{CUT}.json: invalid JSON" in render_suite(done, fmt), fmt


def test_an_added_scenario_is_never_said_to_be_judged(tmp_path):
    # only in the candidate, so never compared: its finding says a run was lost, not "judged"
    root = _runs(tmp_path, "unchanged", cut={})  # `refund`: every run loads
    shutil.copytree(root / "c" / "refund", root / "c" / "new")
    (root / "c" / "new" / "run-00.json.gz").write_bytes(b"{")
    done = _suite(root)
    row = done.scenario("new")
    assert (row.verdict, row.candidate_runs, len(row.errors)) == ("added", 9, 1)
    for fmt in FORMATS:
        text = render_suite(done, fmt)
        assert "added (0→9 runs loaded)" in text, fmt
        assert "1 run could not be loaded:" in text, fmt
        assert "judged without" not in text, fmt  # nor in the summary line
        assert "1 with runs that could not be loaded" in text, fmt


def test_the_html_index_says_the_runs_were_loaded(looping, steady):
    """The index's Runs cell reads as the headline does: 9 of the candidate's 10 loaded."""
    for report in (looping, steady):
        html = render_suite(report, "html")
        assert "<td>10→9 loaded</td>" in html
        assert "<td>10→9</td>" not in html


def test_the_action_outputs_say_a_run_was_not_loaded(tmp_path):
    """Suite mode of the Action: `errors` counts the scenarios that could not be judged, so a
    scenario judged on 9 of its 10 runs must show in an output of its own, not as 0 errors."""
    root = _runs(tmp_path / "runs", "unchanged")
    done, summary, outputs = run_suite_action(tmp_path, root / "b", root / "c", "")
    assert done.returncode == 2, done.stderr
    assert (outputs["passed"], outputs["errors"], outputs["partly_loaded"]) == ("false", "0", "1")
    assert "10→9 loaded" in summary


def test_the_runs_table_lists_the_run_that_did_not_load(tmp_path):
    root = _runs(tmp_path / "runs", "unchanged")
    results = tmp_path / "results"
    _suite(root, results=str(results))
    rows = [orjson.loads(line) for line in (results / "runs.jsonl").read_bytes().splitlines()]
    assert len(rows) == 20  # 10 runs a side, one of them not loaded
    (lost,) = [r for r in rows if r["load_error"] is not None]
    assert (lost["side"], lost["run_id"], lost["source"]) == (
        "candidate",
        CUT,
        f"refund/{CUT}.json",
    )
    assert lost["load_error"].startswith(f"refund/{CUT}.json: invalid JSON")


def test_a_lost_run_keeps_the_trace_id_it_asked_for(tmp_path):
    """A manifest that picks one trace of a file: its row says which, even when the file is bad."""
    good, bad = min((POOL / "baseline").iterdir()), tmp_path / "bad.json"
    bad.write_text("{")
    base = RunSet.from_records([{"scenario": "s", "path": str(good)}], label="baseline")
    records = [{"scenario": "s", "path": str(bad), "run": "r1", "trace_id": "t-wanted"}]
    cand = RunSet.from_records(records, label="candidate")
    results = tmp_path / "results"
    run_suite(base, cand, SuiteOptions(backend="in-process", results=str(results)))
    rows = [orjson.loads(line) for line in (results / "runs.jsonl").read_bytes().splitlines()]
    (lost,) = [r for r in rows if r["load_error"] is not None]
    assert (lost["run_id"], lost["trace_id"]) == ("r1", "t-wanted")
