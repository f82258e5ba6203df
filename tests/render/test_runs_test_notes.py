"""A test's row says what its note and its interval mean beside its verdict."""

from __future__ import annotations

import sys
from pathlib import Path

from agentdiff.render.runs.view import scenario_view
from agentdiff.scenario.api import compare_runs
from agentdiff.scenario.report import Verdict

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from runs_synthetic import Variant, make_runs


def _regressed():
    report = compare_runs(
        make_runs(1, 6, prefix="b"), make_runs(2, 6, Variant(cost_factor=2.0), prefix="c")
    )
    assert report.verdict is Verdict.REGRESSED
    return report


def test_a_regressed_shift_whose_median_interval_holds_zero_says_why() -> None:
    report = _regressed()
    i, test = next((i, t) for i, t in enumerate(report.tests) if t.verdict is Verdict.REGRESSED)
    crossing = test.model_copy(update={"change_low": -3.0, "change_high": 45.0})
    tests = [*report.tests[:i], crossing, *report.tests[i + 1 :]]
    view = scenario_view(report.model_copy(update={"tests": tests}), 0.05)
    assert (
        f"{test.name}: regressed by the rank test over every run; the 95 % interval of the "
        "median change [-3, +45] % still holds no change (the medians of few runs move in steps)"
    ) in view.facts


def test_an_interval_clear_of_zero_needs_no_word_and_notes_are_shown() -> None:
    report = _regressed()
    view = scenario_view(report, 0.05)
    assert not any("still holds no change" in f for f in view.facts)
    noted = report.tests[0].model_copy(update={"note": "median moved less than the threshold"})
    view = scenario_view(report.model_copy(update={"tests": [noted, *report.tests[1:]]}), 0.05)
    assert f"{noted.name}: median moved less than the threshold" in view.facts
