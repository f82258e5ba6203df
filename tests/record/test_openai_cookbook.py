"""The recorded OpenAI-SDK agent, gated with the pytest plugin's `agentdiff_baseline` fixture.

`baselines/openai_weather.json` beside this file was recorded by this very test with
`pytest tests/record/test_openai_cookbook.py --agentdiff-update-baseline`; every run re-records
the agent (the real `openai` SDK against the scripted server on 127.0.0.1) and compares.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("openai")
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cookbooks.record_openai_agent import BASELINE_PROMPT, CANDIDATE_PROMPT, run_agent  # noqa: E402
from cookbooks.support.scripted_openai import scripted_openai  # noqa: E402


@pytest.fixture(scope="module")
def base_url():
    with scripted_openai() as url:
        yield url


@pytest.fixture
def updating(request) -> bool:
    return bool(request.config.getoption("--agentdiff-update-baseline"))


def test_the_baseline_prompt_still_passes(agentdiff_baseline, base_url, updating):
    report = agentdiff_baseline("openai_weather", run_agent(base_url, BASELINE_PROMPT))
    if updating:
        return
    assert report is not None and report.passed
    assert report.divergence == 0
    assert report.deltas.total_tokens.delta == 0


def test_the_prompt_change_is_blocked_by_the_gate(agentdiff_baseline, base_url, updating):
    if updating:
        pytest.skip("the baseline is the baseline prompt's run")
    candidate = run_agent(base_url, CANDIDATE_PROMPT)
    with pytest.raises(AssertionError) as caught:
        agentdiff_baseline("openai_weather", candidate)
    message = str(caught.value)
    assert "✗ tokens: tokens up" in message
    assert "first divergence: row 4, + web_search" in message
    # an accepted trade-off: the token and cost budget switched off, the detour stays a warning
    report = agentdiff_baseline(
        "openai_weather", candidate, max_token_increase=None, max_cost_increase=None
    )
    assert report is not None and report.passed
    assert [w.rule for w in report.gate.warnings] == ["divergence"]
