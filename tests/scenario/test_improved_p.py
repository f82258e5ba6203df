"""`compare-runs` on an improvement: every p it prints is the improvement's (the better direction).

Real runs (tests/fixtures/runs_pool): 20 runs of the `cost` variant (+50 % cost) as the
baseline against 20 plain runs. Tokens and cost improve with an adjusted p of 0.0033; the worse
direction's p of those tests is 1, and printing it beside "improved" would contradict the verdict.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import orjson
import pytest

from .pool import compare_runs, pool_folders


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return pool_folders(tmp_path_factory.mktemp("improved"), ("cost", 20), ("baseline", 20))


def _run(folders: list[str], fmt: str) -> str:
    return compare_runs(folders, fmt, code=0)


def test_an_improvement_prints_the_p_of_the_improvement(folders):
    (scenario,) = orjson.loads(_run(folders, "json"))["scenarios"]
    assert scenario["verdict"] == "improved" and scenario["p"] == 1.0
    tokens = next(t for t in scenario["tests"] if t["name"] == "total_tokens")
    assert tokens["verdict"] == "improved" and tokens["adjusted_p"] == 1.0
    better = f"{scenario['p_better']:.2g}"
    assert better == f"{tokens['adjusted_p_better']:.2g}" == "0.0033"
    for fmt in ("terminal", "markdown", "html"):
        text = _run(folders, fmt)
        assert f"scenario p = {better} (Holm, the improvement), q = " in text, fmt
        assert "scenario p = 1 " not in text, fmt
    row = next(line for line in _run(folders, "terminal").splitlines() if "total_tokens  " in line)
    assert row.split()[-3:] == [f"{tokens['p_better']:.2g}", better, "improved"]


def test_an_improved_case_in_junit_says_why(folders):
    # a passing case with a system-out, as the suite's JUnit gives it (it was an empty case)
    case = ET.fromstring(_run(folders, "junit")).find("testcase")  # noqa: S314
    assert case is not None and case.find("failure") is None
    out = case.findtext("system-out") or ""
    assert "total_tokens -27 % (adjusted p = 0.0033, mann-whitney (exact))" in out, out
