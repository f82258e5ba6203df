"""The pytest plugin (pytest11 entry point) and `assert_no_regressions`, run with pytester."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdiff import assert_no_regressions, load_trace
from agentdiff.cli.app import app
from agentdiff.cli.errors import state
from agentdiff.config import SETTINGS, load_options
from agentdiff.diff.options import CompareOptions
from agentdiff.errors import OutputPathError
from agentdiff.pytest_plugin import BaselineCheck

REAL = Path(__file__).parent / "fixtures" / "real" / "langfuse"


def side(scenario: str, which: str) -> Path:
    return REAL / scenario / f"{which}.json"


pytestmark = pytest.mark.usefixtures("no_settings_env")
"""No `AGENTDIFF_*` setting from the environment, and `tmp_path` the working folder."""


def test_assert_no_regressions_accepts_paths_and_traces():
    report = assert_no_regressions(
        side("identical", "baseline"), load_trace(side("identical", "candidate"))
    )
    assert report.passed


def test_assert_no_regressions_names_what_regressed():
    with pytest.raises(AssertionError) as caught:
        assert_no_regressions(str(side("loop", "baseline")), side("loop", "candidate"))
    message = str(caught.value)
    assert message.startswith("agentdiff: the candidate regressed (3 blocking)")
    assert "✗ loop: tool loop get_weather ×4" in message
    assert "✗ cost: cost up 197.8% (limit 25%)" in message
    assert "first divergence: row 8, + get_weather" in message


def test_thresholds_are_keywords_and_none_switches_a_rule_off():
    report = assert_no_regressions(
        side("loop", "baseline"),
        side("loop", "candidate"),
        allow_loops=True,
        max_cost_increase=None,
        max_token_increase="off",  # noqa: S106 - a threshold, not a secret
    )
    assert report.passed
    with pytest.raises(ValueError, match="unknown setting 'max_loops'"):
        assert_no_regressions(side("loop", "baseline"), side("loop", "candidate"), max_loops=1)


PLUGIN_TEST = """
from pathlib import Path
CANDIDATE = Path({candidate!r})

def test_agent(agentdiff_baseline):
    agentdiff_baseline("weather", CANDIDATE{kwargs})
"""


def write_test(pytester, candidate: Path, kwargs: str = "") -> None:
    pytester.makepyfile(test_agent=PLUGIN_TEST.format(candidate=str(candidate), kwargs=kwargs))


def test_missing_baseline_fails_and_update_creates_it(pytester):
    write_test(pytester, side("loop", "baseline"))
    missing = pytester.runpytest()
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(
        ["*no agentdiff baseline*weather.json*--agentdiff-update-baseline*"]
    )
    created = pytester.runpytest("--agentdiff-update-baseline")
    created.assert_outcomes(passed=1)
    baseline = pytester.path / "baselines" / "weather.json"
    assert json.loads(baseline.read_text())["steps"]
    pytester.runpytest().assert_outcomes(passed=1)


def test_regression_against_the_baseline_fails_with_a_summary(pytester):
    write_test(pytester, side("loop", "baseline"))
    pytester.runpytest("--agentdiff-update-baseline").assert_outcomes(passed=1)
    write_test(pytester, side("loop", "candidate"))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*AssertionError: agentdiff: the candidate regressed*", "*tool loop get_weather ×4*"]
    )
    write_test(
        pytester,
        side("loop", "candidate"),
        ", allow_loops=True, max_cost_increase=None, max_token_increase=None",
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_baseline_dir_is_an_ini_option(pytester):
    pytester.makeini("[pytest]\nagentdiff_baseline_dir = golden/agents\n")
    write_test(pytester, side("identical", "baseline"))
    pytester.runpytest("--agentdiff-update-baseline").assert_outcomes(passed=1)
    assert (pytester.path / "golden" / "agents" / "weather.json").exists()


def test_gate_defaults_are_identical_across_cli_api_and_plugin(pytester, tmp_path, monkeypatch):
    monkeypatch.setattr(state, "debug", False)
    # one resolution path: no flags, no env, no file -> the models' defaults
    cli_defaults = load_options({s.name: None for s in SETTINGS}, env={}, start=tmp_path).options
    assert cli_defaults == load_options({}, env={}, start=tmp_path).options == CompareOptions()
    base, cand = side("detour", "baseline"), side("detour", "candidate")
    cli = CliRunner().invoke(app, ["compare", str(base), str(cand), "-f", "json"])
    assert cli.exit_code == 1
    cli_messages = [v["message"] for v in json.loads(cli.stdout)["gate"]["violations"]]
    assert cli_messages == ["cost up 56.4% (limit 25%)", "tokens up 69.0% (limit 25%)"]
    with pytest.raises(AssertionError) as api:
        assert_no_regressions(base, cand)
    assert all(m in str(api.value) for m in cli_messages)
    (pytester.path / "baselines").mkdir()
    (pytester.path / "baselines" / "weather.json").write_bytes(base.read_bytes())
    write_test(pytester, cand)
    plugin = pytester.runpytest()
    plugin.assert_outcomes(failed=1)
    plugin.stdout.fnmatch_lines([f"*{m}*" for m in cli_messages])


@pytest.mark.parametrize("name", ["weather\n", "../weather", ".hidden", "a/b", ""])
def test_a_baseline_name_is_one_plain_file_name(tmp_path, name):
    with pytest.raises(ValueError, match="must be letters, digits"):
        BaselineCheck(tmp_path, update=True).path(name)


def test_updating_never_writes_over_the_candidate_file(tmp_path):
    candidate = tmp_path / "run.json"
    candidate.write_bytes(side("identical", "candidate").read_bytes())
    (tmp_path / "weather.json").symlink_to(candidate)
    with pytest.raises(OutputPathError, match="is an input of this command"):
        BaselineCheck(tmp_path, update=True)("weather", candidate)
    assert candidate.read_bytes() == side("identical", "candidate").read_bytes()
