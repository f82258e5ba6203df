"""The pair reports of the most severe regressions: kept for HTML, saved with the results, read
back by `agentdiff results DIR -f html`, bounded."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentdiff import compare, load_trace
from agentdiff.cli.app import app
from agentdiff.render import render
from agentdiff.suite import SuiteOptions, run_suite
from agentdiff.suite.pages import PAGE_LIMIT, deciding_pages
from agentdiff.suite.plan import plan_jobs
from agentdiff.suite.render.view import by_severity, most_severe
from agentdiff.suite.task import TaskContext

runner = CliRunner()


@pytest.fixture(scope="module")
def saved(fixture_sets, tmp_path_factory):
    folder = tmp_path_factory.mktemp("results")
    options = SuiteOptions(backend="in-process", results=str(folder))
    return run_suite(*fixture_sets, options), folder


def test_results_keep_the_pair_report_of_each_regression(saved, fixture_suite):
    report, folder = saved
    regressed = by_severity(list(report.rows.having("regressed")))
    assert 0 < len(regressed) <= PAGE_LIMIT
    index = orjson.loads((folder / "pairs" / "index.json").read_bytes())
    assert list(index) == [row.scenario for row in regressed]  # most severe first
    base, cand = fixture_suite
    for row in regressed:
        pair = row.pairs[row.deciding]
        direct = compare(
            load_trace(base / pair.baseline.source), load_trace(cand / pair.candidate.source)
        )
        page = (folder / index[row.scenario]).read_text()
        assert page == render(direct, "html"), row.scenario
    assert not any(r.verdict == "pass" for r in report.rows if r.scenario in index)


def test_results_html_embeds_and_links_the_saved_reports(saved):
    report, folder = saved
    index = orjson.loads((folder / "pairs" / "index.json").read_bytes())
    result = runner.invoke(app, ["results", str(folder), "-f", "html"])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("<iframe sandbox") == len(index)
    # stdout: each link leads from the current folder (where `> page.html` puts the page)
    links = re.findall(r'href="([^"#]+)"', result.stdout)
    assert sorted(Path(link).resolve() for link in links) == sorted(
        (folder / name).resolve() for name in index.values()
    )
    # the same page as the live run's html output, whose frames hold the same reports
    assert report.pair_pages.keys() == index.keys()


def test_pages_are_bounded_and_most_severe_first(saved, fixture_sets):
    report, _ = saved
    jobs = {job.scenario: job for job in plan_jobs(*fixture_sets, SuiteOptions())}
    base, cand = fixture_sets
    context = TaskContext(
        baseline_root=str(Path(base.root).absolute()),
        candidate_root=str(Path(cand.root).absolute()),
        options=SuiteOptions().compare,
    )
    pages = deciding_pages(report, jobs, context, limit=3)
    expected = [row.scenario for row in by_severity(list(report.rows.having("regressed")))][:3]
    assert list(pages) == expected


def test_without_results_or_html_no_page_is_made(fixture_sets):
    done = run_suite(*fixture_sets, SuiteOptions(backend="in-process", only=("*/loop",)))
    assert done.pair_pages == {} and "pages_s" not in done.timings
    html = run_suite(
        *fixture_sets, SuiteOptions(backend="in-process", only=("*/loop",), pair_pages=True)
    )
    assert len(html.pair_pages) == 7


def test_most_severe_is_the_head_of_by_severity(saved):
    report, _ = saved
    ordered = by_severity(list(report.scenarios))
    for limit in range(len(ordered) + 2):
        assert most_severe(report.scenarios, limit) == ordered[:limit]
