"""What the suite renderers print is true of the files: real traces, every format.

A suite of real runs (tests/fixtures/real, tests/fixtures/runs_pool) is rendered in each format
and every label is checked against the runs themselves: the row `compare` names as the first
divergence, the error a scenario really had, every finding, the JUnit verdict CI reads.
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdiff import compare, load_trace
from agentdiff.cli.app import app
from agentdiff.render import render
from agentdiff.render.options import RenderOptions
from agentdiff.render.rows import first_index
from agentdiff.stats_options import StatsOptions
from agentdiff.suite import RunSet, SuiteOptions, run_suite
from agentdiff.suite.render import SUITE_RENDERERS, render_suite
from agentdiff.suite.report import SuiteReport

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
POOL = Path(__file__).resolve().parents[1] / "fixtures" / "runs_pool"
LOOP = REAL / "langfuse" / "loop"


def _suite(root: Path, files: dict[str, tuple[Path | None, Path | None]]) -> SuiteReport:
    """A suite of single-run scenarios: key → (baseline file, candidate file)."""
    for key, sources in files.items():
        for side, source in zip(("b", "c"), sources, strict=True):
            (root / side).mkdir(parents=True, exist_ok=True)
            if source is not None:
                shutil.copyfile(source, root / side / f"{key}.json")
    options = SuiteOptions(backend="in-process")
    return run_suite(RunSet.from_dir(root / "b"), RunSet.from_dir(root / "c"), options)


@pytest.fixture(scope="module")
def loop_suite(tmp_path_factory: pytest.TempPathFactory) -> SuiteReport:
    """`langfuse_loop` regressed (a real loop) and `only_base` with no candidate run."""
    root = tmp_path_factory.mktemp("loop_suite")
    files = {
        "langfuse_loop": (LOOP / "baseline.json", LOOP / "candidate.json"),
        "only_base": (REAL / "langfuse" / "identical" / "baseline.json", None),
    }
    return _suite(root, files)


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html", "junit"])
def test_first_divergence_is_the_row_compare_names(loop_suite, fmt):
    report = compare(load_trace(LOOP / "baseline.json"), load_trace(LOOP / "candidate.json"))
    index = first_index(report)
    assert index is not None
    number = index + 1
    assert f"first divergence at row {number}:" in render(report, "terminal", RenderOptions())
    pair = loop_suite.scenario("langfuse_loop").pair
    assert pair is not None and pair.first_divergence is not None
    assert pair.first_divergence.position == index  # suite.json keeps the 0-based index
    text = render_suite(loop_suite, fmt)
    assert f"first divergence at row {number}: insert tool" in text
    assert "#7" not in text and f"at row {index}:" not in text


def test_markdown_shows_the_error_the_scenario_had(loop_suite):
    markdown = render_suite(loop_suite, "markdown")
    (line,) = [line for line in markdown.splitlines() if line.startswith("| only\\_base |")]
    assert "| error |" in line
    assert "candidate: no candidate run (did the run crash?)" in line
    assert "could not load" not in markdown


def _pool_suite(
    root: Path, runs: int, stats: StatsOptions | None = None, sources=("baseline", "cost")
) -> SuiteReport:
    """Scenario `refund`: `runs` real baseline runs against as many of the `cost` variant."""
    for side, source in zip(("b", "c"), sources, strict=True):
        (root / side / "refund").mkdir(parents=True)
        for run in sorted((POOL / source).iterdir())[:runs]:
            shutil.copyfile(run, root / side / "refund" / run.name)
    options = SuiteOptions(backend="in-process", stats=stats or StatsOptions())
    return run_suite(RunSet.from_dir(root / "b"), RunSet.from_dir(root / "c"), options)


def test_markdown_table_says_when_reasons_are_left_out(tmp_path):
    done = _pool_suite(tmp_path, 20)
    row = done.scenario("refund")
    assert row.verdict == "regressed" and row.stats is not None
    reasons = row.stats.reasons
    assert len(reasons) == 3  # tokens, cost and the per-pair gate failures
    markdown = render_suite(done, "markdown")
    table, details = markdown.split("<details>")
    (line,) = [line for line in table.splitlines() if line.startswith("| refund |")]
    assert "… +1 more |" in line
    assert sum(reason.split(" ")[0].replace("_", "\\_") in line for reason in reasons) == 2
    for reason in reasons:  # the details list every one
        assert reason.split(" (")[0].replace("_", "\\_") in details


@pytest.mark.parametrize("fail", [True, False])
def test_junit_fails_inconclusive_scenarios_when_the_suite_does(tmp_path, fail):
    # 3 v 3 runs cannot reach p <= 0.05: the scenario is inconclusive (add runs)
    done = _pool_suite(tmp_path, 3, StatsOptions(inconclusive="fail" if fail else "pass"))
    assert done.counts.inconclusive == 1
    assert done.exit_code == (1 if fail else 0)
    root = ET.fromstring(render_suite(done, "junit"))  # noqa: S314 - our own output
    suite = root.find("testsuite")
    assert suite is not None
    case = suite.find("testcase[@name='refund']")
    assert case is not None
    reason = "; ".join(done.scenario("refund").stats.reasons)  # type: ignore[union-attr]
    words = "1 inconclusive (counted as failing)" if fail else "1 inconclusive\n"
    for fmt in ("terminal", "markdown", "html", "junit"):
        assert words.strip() in render_suite(done, fmt), fmt
    if not fail:
        assert "counted as failing" not in render_suite(done, "terminal")
    if fail:
        failure = case.find("failure")
        assert failure is not None and failure.get("type") == "inconclusive"
        assert failure.get("message") == reason
        assert case.find("skipped") is None
        assert (suite.get("failures"), suite.get("skipped")) == ("1", "0")
        assert (root.get("failures"), root.get("skipped")) == ("1", "0")
    else:
        skipped = case.find("skipped")
        assert skipped is not None and skipped.get("message") == reason
        assert case.find("failure") is None
        assert (suite.get("failures"), suite.get("skipped")) == ("0", "1")


def test_a_key_with_a_newline_or_pipe_stays_in_its_table_cell(tmp_path):
    key = "refund\n| x | injected |\npartial|b"
    done = _suite(tmp_path, {key: (LOOP / "baseline.json", LOOP / "candidate.json")})
    assert done.scenarios[0].scenario == key
    markdown = render_suite(done, "markdown")
    lines = markdown.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| Scenario |"))
    row = lines[header + 2]
    assert row.startswith("| refund\\\\n\\| x \\| injected \\|\\\\npartial\\|b | regressed |")
    assert lines[header + 3] == ""  # one table row, nothing spilled
    assert not any(line.startswith(("| x |", "partial")) for line in lines)
    assert "**refund\\\\n\\| x" in markdown  # the details heading stays on its line too


def test_one_scenario_and_one_run_are_singular(tmp_path):
    done = _suite(tmp_path, {"solo": (LOOP / "baseline.json", LOOP / "candidate.json")})
    assert done.counts.scenarios == 1
    for fmt in ("terminal", "markdown", "html"):
        text = SUITE_RENDERERS[fmt](done, None)
        assert "1 scenario " in text or "1 scenario;" in text, fmt
        assert "1 scenarios" not in text and "(1 runs" not in text, fmt
        assert "(1 run" in text, fmt


def test_an_unreadable_run_is_not_counted_as_loaded(tmp_path):
    half = tmp_path / "half.json"
    text = (LOOP / "candidate.json").read_bytes()
    half.write_bytes(text[: len(text) // 2])  # a real trace cut short (a crashed writer)
    done = _suite(tmp_path / "suite", {"cut": (LOOP / "baseline.json", half)})
    row = done.scenario("cut")
    assert (row.verdict, row.candidate_runs) == ("error", 0)
    assert (tmp_path / "suite" / "c" / "cut.json").exists()  # the file is there: 0 were loaded
    for fmt in ("terminal", "markdown", "html"):
        text = render_suite(done, fmt)
        assert "error (1→0 runs loaded)" in text, fmt
        assert "error (1→0 runs)" not in text, fmt


def test_a_scenario_with_no_candidate_run_is_not_said_to_have_lost_one(loop_suite):
    """No candidate file at all: every run there was loaded, so no format says `loaded` (which
    reads as a run that exists but could not be read, beside "no candidate run")."""
    for fmt in ("terminal", "markdown", "html"):
        text = render_suite(loop_suite, fmt)
        assert "error (1→0 runs)" in text, fmt
        assert "1→0 runs loaded" not in text and "1→0 loaded" not in text, fmt
    line = next(x for x in render_suite(loop_suite, "markdown").splitlines() if "only\\_base" in x)
    assert line.startswith("| only\\_base | error | — | 1→0 | "), line


@pytest.fixture(scope="module")
def improved_suite(tmp_path_factory: pytest.TempPathFactory) -> SuiteReport:
    """20 runs of the `cost` variant (+50 % cost) as the baseline, 20 plain runs as candidate."""
    return _pool_suite(tmp_path_factory.mktemp("improved"), 20, sources=("cost", "baseline"))


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html", "junit", "json"])
def test_an_improved_scenario_states_the_p_of_its_improvement(improved_suite, fmt):
    row = improved_suite.scenario("refund")
    stats = row.stats
    assert row.verdict == "improved" and stats is not None
    # the findings: cost and tokens down, each with its adjusted p in the better direction
    shown = [float(r.split("adjusted p = ")[1].split(",")[0]) for r in stats.reasons]
    assert shown and all(p < 0.05 for p in shown)
    assert stats.p == 1.0  # the worse direction's p: it says nothing about an improvement
    assert stats.p_better is not None and stats.q_better is not None
    assert f"{stats.p_better:.2g}" == f"{min(shown):.2g}"
    text = render_suite(improved_suite, fmt)
    if fmt == "json":  # the contract keeps both directions, each under its own name
        assert '"p":1.0' in text and f'"p_better":{stats.p_better}' in text
        return
    headline = f"improved (20→20 runs, p = {stats.p_better:.2g}, q = {stats.q_better:.2g})"
    assert headline in text
    assert "p = 1)" not in text and "p = 1," not in text
    if fmt == "junit":
        case = ET.fromstring(text).find("testsuite/testcase[@name='refund']")  # noqa: S314
        assert case is not None and headline in (case.findtext("system-out") or "")


def test_a_regression_by_a_new_loop_alone_states_no_p(tmp_path):
    # 10 plain runs against 10 of the `loop` variant: 2 candidate runs loop, no test is significant
    done = _pool_suite(tmp_path, 10, sources=("baseline", "loop"))
    stats = done.scenario("refund").stats
    assert stats is not None and stats.verdict.value == "regressed"
    assert stats.reasons == ["loop lookup_order ×4 in 2/10 runs (in no baseline run)"]
    assert stats.q is not None and stats.q > 0.05  # the p did not decide: the loop did
    for fmt in ("terminal", "markdown", "html", "junit"):
        text = render_suite(done, fmt)
        assert "regressed (10→10 runs)" in text, fmt
        assert "p = " not in text, fmt


@pytest.fixture(scope="module")
def pool_runs(tmp_path_factory: pytest.TempPathFactory) -> SuiteReport:
    """10 plain runs against 10 of the `loop` variant (`refund`) and of `unchanged` (`steady`)."""
    root = tmp_path_factory.mktemp("pool_runs")
    for scenario, variant in (("refund", "loop"), ("steady", "unchanged")):
        for side, source in (("b", "baseline"), ("c", variant)):
            (root / side / scenario).mkdir(parents=True)
            for run in sorted((POOL / source).iterdir())[:10]:
                shutil.copyfile(run, root / side / scenario / run.name)
    options = SuiteOptions(backend="in-process")
    return run_suite(RunSet.from_dir(root / "b"), RunSet.from_dir(root / "c"), options)


def test_a_multi_run_row_shows_its_deciding_pairs_divergence_in_every_format(pool_runs):
    row, steady = pool_runs.scenario("refund"), pool_runs.scenario("steady")
    pair = row.pair
    assert row.stats is not None and pair is not None
    assert not pair.passed and pair.divergence > 0  # a looping candidate run fails the gate
    assert pair == next(p for p in row.pairs if not p.passed)  # the first failing one decides
    cell = f"{pair.divergence:.2f} (deciding pair)"
    markdown = render_suite(pool_runs, "markdown")
    (line,) = [line for line in markdown.splitlines() if line.startswith("| refund |")]
    assert f"| regressed | {cell} | 10→10 |" in line
    html = render_suite(pool_runs, "html")
    assert f"regressed</td><td>{cell}</td>" in html
    assert steady.verdict == "pass" and steady.pair is not None  # a passing row, index only
    assert f"pass</td><td>{steady.pair.divergence:.2f} (deciding pair)</td>" in html
    which = f"deciding pair, divergence {pair.divergence:.2f}: baseline {pair.baseline.run} ("
    for fmt in ("terminal", "markdown", "html", "junit"):
        assert which in render_suite(pool_runs, fmt), fmt


def test_markdown_lists_added_scenarios_escaped_outside_a_code_span(tmp_path):
    """Escapes inside a code span are shown as typed: `new\\_&#64;octocat` on GitHub."""
    trace = {
        "trace_id": "t",
        "agent_name": "a",
        "steps": [{"step_id": "1", "step_index": 0, "step_type": "tool_call", "name": "x"}],
    }
    for side, names in (("b", ["ok"]), ("c", ["ok", "new_@octocat"])):
        (tmp_path / side).mkdir()
        for name in names:
            (tmp_path / side / f"{name}.json").write_text(json.dumps(trace))
    args = ["suite", str(tmp_path / "b"), str(tmp_path / "c"), "-f", "markdown", "--no-progress"]
    out = CliRunner().invoke(app, args).stdout
    assert "**Only in the candidate** (1): new\\_@\u200boctocat" in out
