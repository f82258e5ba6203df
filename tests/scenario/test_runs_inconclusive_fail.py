"""`compare-runs --inconclusive fail`: the JUnit report fails the case the exit code fails.

Real runs (tests/fixtures/runs_pool): 3 plain baseline runs against 1 `unchanged` run, too few
for any test, so the scenario is inconclusive; with `--inconclusive fail` the command exits 1,
and its JUnit case is a `<failure>` (it was `<skipped>`, `failures="0"`: a green CI test list
beside a red job). The title counts one run as `1 candidate run`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdiff.cli.app import app

from .pool import pool_folders

runner = CliRunner()


@pytest.fixture
def folders(tmp_path: Path) -> list[str]:
    return pool_folders(tmp_path, ("baseline", 3), ("unchanged", 1))


@pytest.mark.parametrize(("setting", "code", "counts"), [("fail", 1, "1 0"), ("pass", 0, "0 1")])
def test_an_inconclusive_scenario_fails_the_junit_report_when_it_fails_the_exit_code(
    folders, setting, code, counts
):
    args = ["compare-runs", *folders, "--inconclusive", setting]
    result = runner.invoke(app, [*args, "-f", "junit"])
    assert result.exit_code == code, result.output
    suite = ET.fromstring(result.stdout)  # noqa: S314
    assert f"{suite.get('failures')} {suite.get('skipped')}" == counts
    case = suite.find("testcase")
    assert case is not None
    assert (case.find("failure") is not None) == (setting == "fail")
    assert (case.find("skipped") is not None) == (setting == "pass")
    text = runner.invoke(app, args).stdout
    assert "3 baseline runs, 1 candidate run → INCONCLUSIVE" in text
    counted = "1 inconclusive (counted as failing) · 0 errors"  # as the suite's summary says it
    assert (counted in text) == (setting == "fail"), text
