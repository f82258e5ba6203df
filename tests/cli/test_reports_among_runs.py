"""AgentDiff's own JSON reports written among runs are no runs: skipped with a note, or exit 2.

Each report is written by the real CLI into a folder of runs; the next search for runs
(`compare-runs`, `routes`, `suite`) judges the same runs as before it was written, and names
each report it skipped on stderr. Given as a run (`compare`, `inspect`), a report is a one-line
error naming the file.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from agentdiff.cli.app import app

runner = CliRunner()
POOL = Path(__file__).resolve().parents[1] / "fixtures" / "runs_pool"


pytestmark = pytest.mark.usefixtures("no_settings_env")
"""No `AGENTDIFF_*` setting from the environment, and `tmp_path` the working folder."""


def _runs(folder: str, pool: str, count: int = 4) -> Path:
    """`folder` holding the first `count` runs of the pool's `pool` folder."""
    target = Path(folder)
    target.mkdir(parents=True)
    for run in sorted((POOL / pool).iterdir())[:count]:
        shutil.copyfile(run, target / run.name)
    return target


def _invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def _json(result: Result) -> Any:
    return json.loads(result.stdout)


def _notes(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("note: skipped ")]


def _runs_counts(result: Result) -> tuple[int, dict[str, int], list[tuple[str, int, int, str]]]:
    """A `compare-runs -f json` result's exit code, counts and (scenario, N, M, verdict) rows."""
    data = _json(result)
    rows = [
        (s["scenario"], s["n_baseline"], s["n_candidate"], s["verdict"]) for s in data["scenarios"]
    ]
    return result.exit_code, data["counts"], rows


def test_compare_runs_skips_its_own_and_other_reports_in_a_run_folder() -> None:
    _runs("a", "baseline"), _runs("b", "loop")
    before = _invoke("compare-runs", "a", "b", "-f", "json")
    assert before.exit_code == 1, before.output
    assert _notes(before) == []
    wrote = [
        _invoke("compare-runs", "a", "b", "-f", "json", "-o", "a/report.json"),
        _invoke("compare", "a/run-00.json.gz", "b/run-00.json.gz", "-f", "json", "-o", "b/d.json"),
        _invoke("routes", "a", "-f", "json", "-o", "a/routes.json"),
    ]
    assert [r.exit_code for r in wrote] == [1, 0, 0], [r.output for r in wrote]
    after = _invoke("compare-runs", "a", "b", "-f", "json")
    assert _runs_counts(after) == _runs_counts(before)
    assert _notes(after) == [
        "note: skipped a/report.json: an AgentDiff runs report (report_version 2), not a run",
        "note: skipped a/routes.json: an AgentDiff routes report (report_version 2), not a run",
        "note: skipped b/d.json: an AgentDiff comparison report (report_version 2), not a run",
    ]


def test_compare_runs_writes_its_report_over_the_one_it_skipped() -> None:
    _runs("a", "baseline"), _runs("b", "loop")
    args = ("compare-runs", "a", "b", "-f", "json", "-o", "a/report.json")
    first = _invoke(*args)
    written = Path("a/report.json").read_text()
    again = _invoke(*args)
    assert (first.exit_code, again.exit_code) == (1, 1), again.output
    assert _notes(again) == [
        "note: skipped a/report.json: an AgentDiff runs report (report_version 2), not a run"
    ]
    assert Path("a/report.json").read_text() == written


def test_a_folder_of_reports_only_is_refused_naming_it() -> None:
    _runs("a", "baseline"), _runs("b", "loop")
    assert _invoke("compare-runs", "a", "b", "-f", "json", "-o", "c/report.json").exit_code == 1
    result = _invoke("compare-runs", "c", "b")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: c: no runs here: only an AgentDiff report",
        "hint: a folder of runs holds trace files; write reports outside it",
    ]


def test_a_report_named_as_the_runs_is_refused_as_compare_refuses_it() -> None:
    _runs("a", "baseline"), _runs("b", "loop")
    assert _invoke("compare-runs", "a", "b", "-f", "json", "-o", "rep.json").exit_code == 1
    result = _invoke("routes", "rep.json")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: rep.json: an AgentDiff runs report (report_version 2), not a run",
        "hint: compare the runs it was made from",
    ]


def test_a_gzipped_report_and_one_written_under_a_json_lines_name_are_skipped() -> None:
    _runs("a", "baseline"), _runs("b", "loop")
    before = _invoke("compare-runs", "a", "b", "-f", "json")
    assert _invoke("compare-runs", "a", "b", "-f", "json", "-o", "r.json").exit_code == 1
    Path("a/r.json.gz").write_bytes(gzip.compress(Path("r.json").read_bytes()))
    assert _invoke("compare-runs", "a", "b", "-f", "json", "-o", "b/r.jsonl").exit_code == 1
    after = _invoke("compare-runs", "a", "b", "-f", "json")
    assert _runs_counts(after) == _runs_counts(before)
    assert _notes(after) == [
        "note: skipped a/r.json.gz: an AgentDiff runs report (report_version 2), not a run",
        "note: skipped b/r.jsonl: an AgentDiff runs report (report_version 2), not a run",
    ]


def test_a_folder_given_for_both_sides_notes_each_report_once() -> None:
    _runs("a", "baseline")
    assert _invoke("compare-runs", "a", "a", "-f", "json", "-o", "a/r.json").exit_code == 0
    result = _invoke("compare-runs", "a", str(Path("a").resolve()), "-f", "json")
    assert result.exit_code == 0, result.output
    assert _notes(result) == [
        "note: skipped a/r.json: an AgentDiff runs report (report_version 2), not a run"
    ]


def _hung(signum: int, frame: object) -> None:
    raise TimeoutError


def test_a_named_pipe_among_runs_is_never_waited_on() -> None:
    """Looking for reports opens no FIFO: `routes` refuses one as loading does, at once."""
    _runs("f/s", "baseline"), _runs("g/s", "baseline")
    os.mkfifo("f/s/pipe.json")
    os.mkfifo("top.json")
    previous = signal.signal(signal.SIGALRM, _hung)
    signal.alarm(30)  # a wait on the FIFO fails the test instead of hanging the suite
    try:
        named = _invoke("routes", "top.json")
        searched = _invoke("routes", "f", "-f", "json")
        suite = _invoke("suite", "f", "g", "-f", "json")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert named.exit_code == 2
    assert named.stderr.startswith("error: top.json: is a FIFO (named pipe), not a regular file")
    assert searched.exit_code == 0, searched.output  # a search lists regular files only
    errors = _json(suite)["scenarios"][0]["errors"]  # the suite loads it as a run: refused
    assert [e["message"] for e in errors] == [
        "s/pipe.json: is a FIFO (named pipe), not a regular file; only regular files are read"
    ]


def test_routes_skips_a_report_among_its_runs() -> None:
    _runs("runs/x", "baseline"), _runs("runs/y", "loop", 3)
    before = _invoke("routes", "runs", "-f", "json")
    assert _invoke("routes", "runs", "-f", "json", "-o", "runs/x/routes.json").exit_code == 0
    after = _invoke("routes", "runs", "-f", "json")
    assert (after.exit_code, after.stdout) == (before.exit_code, before.stdout)
    assert _notes(after) == [
        "note: skipped runs/x/routes.json: an AgentDiff routes report (report_version 2), not a run"
    ]


def _suite_counts(result: Result) -> tuple[int, dict[str, Any], list[tuple[str, str, int, int]]]:
    """A `suite -f json` result's exit code, counts and (scenario, verdict, N, M) rows."""
    data = _json(result)
    rows = [
        (s["scenario"], s["verdict"], s["baseline_runs"], s["candidate_runs"])
        for s in data["scenarios"]
    ]
    return result.exit_code, data["counts"], rows


def test_suite_skips_reports_at_its_root_and_in_a_run_folder() -> None:
    _runs("base/same", "baseline"), _runs("base/loop", "baseline")
    _runs("cand/same", "unchanged"), _runs("cand/loop", "loop")
    before = _invoke("suite", "base", "cand", "-f", "json")
    assert before.exit_code == 1, before.output
    assert _invoke("suite", "base", "cand", "-f", "json", "-o", "cand/suite.json").exit_code == 1
    assert _invoke("suite", "base", "cand", "-f", "json", "-o", "base/same/s.json").exit_code == 1
    after = _invoke("suite", "base", "cand", "-f", "json")
    assert _suite_counts(after) == _suite_counts(before)
    assert _notes(after) == [
        "note: skipped base/same/s.json: an AgentDiff suite report (report_version 3), not a run",
        "note: skipped cand/suite.json: an AgentDiff suite report (report_version 3), not a run",
    ]
    globbed = _invoke("suite", "base", "cand/**/*.json*", "-f", "json")
    assert _suite_counts(globbed)[1:] == _suite_counts(before)[1:]
    assert "note: skipped cand/suite.json" in globbed.stderr


@pytest.mark.parametrize("command", ["compare", "inspect"])
def test_a_report_given_as_a_run_is_a_one_line_error(command: str) -> None:
    _runs("a", "baseline"), _runs("b", "loop")
    assert _invoke("compare-runs", "a", "b", "-f", "json", "-o", "report.json").exit_code == 1
    args = ["report.json", "b/run-00.json.gz"] if command == "compare" else ["report.json"]
    result = _invoke(command, *args)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: report.json: an AgentDiff runs report (report_version 2), not a run",
        "hint: compare the runs it was made from",
    ]
    assert "Traceback" not in result.output


def test_a_report_under_a_json_lines_name_is_named_a_report_when_compared() -> None:
    _runs("a", "baseline"), _runs("b", "loop")
    assert _invoke("compare-runs", "a", "b", "-f", "json", "-o", "r.jsonl").exit_code == 1
    for args in (("compare", "a/run-00.json.gz", "r.jsonl"), ("inspect", "r.jsonl")):
        result = _invoke(*args)
        assert result.exit_code == 2
        assert result.stderr.splitlines() == [
            "error: r.jsonl: an AgentDiff runs report (report_version 2), not a run",
            "hint: compare the runs it was made from",
        ]


def test_a_symlink_loop_among_a_suites_runs_is_a_run_that_did_not_load() -> None:
    """Not a traceback: listing keeps the path it cannot resolve, and loading names it."""
    _runs("b/s", "baseline"), _runs("c/s", "baseline")
    Path("c/s/x.json").symlink_to("x.json")
    result = _invoke("suite", "b", "c", "-f", "json", "-j", "1")
    assert result.exit_code == 2, result.output
    (error,) = _json(result)["scenarios"][0]["errors"]
    assert error["source"] == "s/x.json"
    assert "Too many levels of symbolic links" in error["message"]
