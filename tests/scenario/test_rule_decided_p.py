"""`compare-runs` on a regression a hard rule decided: its p is said not to be what decided it.

Real runs (tests/fixtures/runs_pool): 10 baseline runs against 10 runs of the `loop` variant.
The new loop regresses the scenario while no test is significant (scenario p = 1); printed bare
beside "REGRESSED", that p reads as the evidence for the verdict.
"""

from __future__ import annotations

import orjson
import pytest

from .pool import compare_runs, pool_folders


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return pool_folders(tmp_path_factory.mktemp("rule"), ("baseline", 10), ("loop", 10))


def _run(folders: list[str], fmt: str) -> str:
    return compare_runs(folders, fmt, code=1)


def test_a_rule_decided_regression_says_its_p_did_not_decide(folders):
    (scenario,) = orjson.loads(_run(folders, "json"))["scenarios"]
    assert scenario["verdict"] == "regressed" and scenario["q"] > 0.05
    for fmt in ("terminal", "markdown", "html"):
        text = _run(folders, fmt)
        line = next(x for x in text.splitlines() if "scenario p = " in x)
        assert "not significant; a hard rule decided the verdict" in line, (fmt, line)


def test_no_p_in_a_direction_means_no_q_there(folders):
    # the loop runs cost no less than the baseline's: no test has a better-direction effect,
    # and a q of 1.0 beside a missing p was a number made of nothing
    (scenario,) = orjson.loads(_run(folders, "json"))["scenarios"]
    assert scenario["p_better"] is None
    assert scenario["q_better"] is None
