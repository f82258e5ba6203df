"""The GitHub Action in suite mode, run locally with fake summary and output files."""

from __future__ import annotations

import importlib.util
import re

import pytest

from tests.action_driver import ROOT, SCRIPT
from tests.action_driver import run_suite_action as run_action


def test_suite_mode_reports_and_fails_on_a_regression(tmp_path, fixture_suite):
    base, cand = fixture_suite
    done, summary, outputs = run_action(
        tmp_path, base, cand, "--layout files --only */loop --only */identical"
    )
    assert done.returncode == 1, done.stderr
    assert summary.startswith("## ❌ AgentDiff suite: FAILED")
    assert "| langfuse/loop | regressed |" in summary
    assert outputs == {
        "passed": "false",
        "regressed": "7",
        "errors": "0",
        "partly_loaded": "0",
        "summary": "7 passed · 7 regressed",
    }
    assert (tmp_path / "results" / "pairs.jsonl").exists()


def test_suite_mode_passes(tmp_path, fixture_suite):
    base, cand = fixture_suite
    done, summary, outputs = run_action(tmp_path, base, cand, "--layout files --only */reworded")
    assert done.returncode == 0, done.stderr
    assert outputs["passed"] == "true" and outputs["summary"] == "7 passed"
    assert "✅ AgentDiff suite: PASSED" in summary


def test_suite_mode_bad_input_is_reported(tmp_path, fixture_suite):
    base, _ = fixture_suite
    done, summary, outputs = run_action(tmp_path, base, tmp_path / "missing", "")
    assert done.returncode == 2
    assert "does not exist" in done.stderr
    assert "could not run the suite" in summary
    assert outputs == {"passed": "false"}


def test_suite_mode_puts_the_error_in_the_summary_not_a_stale_results_folder(
    tmp_path, fixture_suite
):
    """A kept `results` folder held the last run's suite.json: a run that failed on a bad flag
    reported its counts (`passed=true`) and no error in the summary."""
    base, cand = fixture_suite
    done, _, outputs = run_action(tmp_path, base, cand, "--layout files --only */reworded")
    assert done.returncode == 0 and outputs["passed"] == "true"
    (tmp_path / "summary.md").write_text("")
    (tmp_path / "outputs.txt").write_text("")
    done, summary, outputs = run_action(tmp_path, base, cand, "--max-divergence banana")
    assert done.returncode == 2, done.stderr
    assert "could not run the suite" in summary
    # the error itself
    assert "max_divergence must be a number from 0 to 1, or &#x27;off&#x27;" in summary
    assert outputs == {"passed": "false"}


def test_action_yml_has_the_suite_inputs_and_outputs():
    text = (ROOT / "action.yml").read_text()
    for name in ("mode", "results"):
        assert re.search(rf"^  {name}:\n", text, re.MULTILINE)
        assert f"${{{{ inputs.{name} }}}}" in text
    for name in ("summary", "regressed", "errors", "partly_loaded"):
        assert f"${{{{ steps.compare.outputs.{name} }}}}" in text


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        ("--results elsewhere", "--results"),
        ("--layout files --results=elsewhere", "--results"),
        ("-o suite.md", "-o"),
        ("--output=json=suite.json", "--output"),
        ("-osuite.md", "-osuite.md"),
        ("--update-baseline", "--update-baseline"),
        ("--only '*/loop' --help", "--help"),
        ("-h", "-h"),
    ],
)
def test_suite_mode_refuses_flags_the_action_owns(tmp_path, fixture_suite, args, flag):
    base, cand = fixture_suite
    done, summary, outputs = run_action(tmp_path, base, cand, args)
    assert done.returncode == 2, done.stderr
    assert f"error: input 'args' must not contain {flag}" in done.stderr
    assert "must not contain" in summary
    assert outputs == {"passed": "false"}
    assert not (tmp_path / "results").exists()  # nothing ran


def test_only_suite_mode_owns_results():
    spec = importlib.util.spec_from_file_location(
        "action_helper", SCRIPT.with_name("action_helper.py")
    )
    assert spec is not None and spec.loader is not None
    helper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)
    assert helper.split_args("--results x") == ["--results", "x"]
    with pytest.raises(ValueError, match="set the action's `results` input"):
        helper.split_args("--results x", "suite")
