"""The GitHub Action in suite mode, run locally with fake summary and output files."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agentdiff.config import SETTINGS

ROOT = Path(__file__).parents[2]
SCRIPT = ROOT / "scripts" / "action_run.sh"


def run_action(tmp_path: Path, baseline: Path, candidate: Path, args: str):
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    env = {k: v for k, v in os.environ.items() if k not in {s.env for s in SETTINGS}}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
        PYTHON=sys.executable,
        INPUT_MODE="suite",
        INPUT_BASELINE=str(baseline),
        INPUT_CANDIDATE=str(candidate),
        INPUT_ARGS=args,
        INPUT_RESULTS=str(tmp_path / "results"),
        GITHUB_STEP_SUMMARY=str(summary),
        GITHUB_OUTPUT=str(outputs),
    )
    done = subprocess.run(
        ["bash", str(SCRIPT)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    found = (
        dict(line.split("=", 1) for line in outputs.read_text().splitlines())
        if outputs.exists()
        else {}
    )
    return done, (summary.read_text() if summary.exists() else ""), found


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


def test_action_yml_has_the_suite_inputs_and_outputs():
    text = (ROOT / "action.yml").read_text()
    for name in ("mode", "results"):
        assert re.search(rf"^  {name}:\n", text, re.MULTILINE)
        assert f"${{{{ inputs.{name} }}}}" in text
    for name in ("summary", "regressed", "errors"):
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
