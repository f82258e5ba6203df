"""Our exact tests against SciPy's (and statsmodels') values, computed once into a fixture.

tests/stats/data/reference.json comes from scripts/reference/stats_reference.py run in a
throwaway venv with SciPy; SciPy is not a dependency of AgentDiff.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentdiff.stats import benjamini_hochberg, fisher_rates, holm, mann_whitney, wilson

REFERENCE = json.loads((Path(__file__).parent / "data" / "reference.json").read_text())


def _rank_cases() -> list[dict]:
    return [c for c in REFERENCE["mann_whitney"] if "p_greater" in c]


def test_reference_covers_ties_and_small_samples() -> None:
    cases = _rank_cases()
    assert len(cases) >= 35
    assert any(
        len(set(c["baseline"] + c["candidate"])) < len(c["baseline"]) + len(c["candidate"])
        for c in cases
    )
    assert any(len(c["candidate"]) == 1 for c in cases)


@pytest.mark.parametrize(
    "case", _rank_cases(), ids=lambda c: f"{len(c['baseline'])}v{len(c['candidate'])}"
)
def test_mann_whitney_matches_scipy(case: dict) -> None:
    result = mann_whitney(case["baseline"], case["candidate"])
    assert result.exact
    assert result.p_greater == pytest.approx(case["p_greater"], rel=1e-9, abs=1e-12)
    assert result.p_less == pytest.approx(case["p_less"], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(
    "case",
    REFERENCE["fisher"],
    ids=lambda c: f"{c['k_base']}/{c['n_base']}-{c['k_cand']}/{c['n_cand']}",
)
def test_fisher_matches_scipy(case: dict) -> None:
    result = fisher_rates(case["k_base"], case["n_base"], case["k_cand"], case["n_cand"])
    assert result.p_greater == pytest.approx(case["p_greater"], rel=1e-9)
    assert result.p_less == pytest.approx(case["p_less"], rel=1e-9)


@pytest.mark.parametrize("case", REFERENCE["wilson"], ids=lambda c: f"{c['k']}/{c['n']}")
def test_wilson_matches_scipy(case: dict) -> None:
    low, high = wilson(case["k"], case["n"])
    assert low == pytest.approx(case["low"], abs=1e-9)
    assert high == pytest.approx(case["high"], abs=1e-9)


@pytest.mark.parametrize("case", REFERENCE["multiplicity"], ids=lambda c: str(len(c["p"])))
def test_holm_and_bh_match_reference(case: dict) -> None:
    assert holm(case["p"]) == pytest.approx(case["holm"], rel=1e-9)
    assert benjamini_hochberg(case["p"]) == pytest.approx(case["bh"], rel=1e-9)
