"""The GitHub Action's step script, run locally with fake summary and output files."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.action_driver import ROOT, action_env, run_script, summary_and_outputs

REAL = ROOT / "tests" / "fixtures" / "real" / "langfuse"


def run_action(
    tmp_path: Path,
    scenario: str,
    args: str = "",
    candidate: Path | None = None,
    agentdiff: str | None = None,
):
    (tmp_path / "summary.md").write_text("previous step\n")
    env = action_env(
        tmp_path,
        INPUT_BASELINE=str(REAL / scenario / "baseline.json"),
        INPUT_CANDIDATE=str(candidate or REAL / scenario / "candidate.json"),
        INPUT_ARGS=args,
    )
    if agentdiff is not None:
        env["AGENTDIFF"] = agentdiff
    done = run_script(tmp_path, env)
    return (done, *summary_and_outputs(tmp_path))


def test_passing_pair(tmp_path):
    done, summary, outputs = run_action(tmp_path, "identical")
    assert done.returncode == 0, done.stderr
    assert summary.startswith("previous step\n## ✅ AgentDiff: PASSED")
    assert outputs == {"passed": "true", "divergence": "0.0"}
    assert "AgentDiff: PASSED" in done.stdout


def test_regression_fails_the_step(tmp_path):
    done, summary, outputs = run_action(tmp_path, "loop")
    assert done.returncode == 1
    assert "## ❌ AgentDiff: FAILED" in summary
    assert "tool loop get\\_weather ×4" in summary
    assert outputs["passed"] == "false"
    assert float(outputs["divergence"]) == pytest.approx(0.2727, abs=1e-3)


def test_args_reach_the_gate(tmp_path):
    done, _, outputs = run_action(
        tmp_path, "loop", "--allow-loops  --max-cost-increase off --max-token-increase off"
    )
    assert done.returncode == 0, done.stderr
    assert outputs["passed"] == "true"


def test_bad_input_is_reported_not_hidden(tmp_path):
    done, summary, outputs = run_action(tmp_path, "loop", candidate=tmp_path / "missing.json")
    assert done.returncode == 2
    assert "file not found" in done.stderr
    assert "could not compare" in summary
    assert outputs == {"passed": "false"}
    assert "missing.json: file not found" in summary


def test_args_are_split_like_a_shell_and_a_yaml_block_works(tmp_path):
    block = "--allow-loops\n--max-cost-increase 'off'\n--ignore \"input_payload.a b\"\n"
    done, _, outputs = run_action(tmp_path, "loop", block + "--max-token-increase off")
    assert done.returncode == 0, done.stderr
    assert outputs["passed"] == "true"


@pytest.mark.parametrize(
    "args",
    [
        "--update-baseline",
        "-o report.md",
        "--output=report.md",
        "-oreport.md",
        "--allow-loops --help",
        "-h",
        "--ignore 'unclosed",
    ],
)
def test_args_the_action_owns_are_refused_in_the_summary(tmp_path, args):
    done, summary, outputs = run_action(tmp_path, "identical", args)
    assert done.returncode == 2
    assert "input &#x27;args&#x27;" in summary or "input 'args'" in summary
    assert "error: input 'args'" in done.stderr
    assert outputs == {"passed": "false"}


def test_one_comparison_run_writes_both_reports(tmp_path):
    calls = tmp_path / "calls.txt"
    wrapper = tmp_path / "agentdiff-counting"
    wrapper.write_text(
        f'#!/usr/bin/env bash\necho run >> "{calls}"\nexec "{Path(sys.executable).parent}/agentdiff" "$@"\n'
    )
    wrapper.chmod(0o755)
    done, summary, outputs = run_action(tmp_path, "loop", agentdiff=str(wrapper))
    assert done.returncode == 1
    assert calls.read_text() == "run\n"
    assert "## ❌ AgentDiff: FAILED" in summary
    assert len(outputs["divergence"].split(".")[1]) <= 4


def test_hostile_error_text_stays_quoted_in_the_summary(tmp_path):
    evil = tmp_path / "<img src=x onerror=alert(1)>\x1b[31m.json"
    evil.write_text("{")
    done, summary, _ = run_action(tmp_path, "loop", candidate=evil)
    assert done.returncode == 2
    assert "<img" not in summary
    assert "&lt;img" in summary
    assert "\x1b" not in summary.replace("\\x1b", "")


def test_action_yml_wires_the_script_and_io():
    text = (ROOT / "action.yml").read_text()
    assert "using: composite" in text
    assert 'pip install --quiet "$GITHUB_ACTION_PATH"' in text
    assert "$GITHUB_ACTION_PATH/scripts/action_run.sh" in text
    for name in ("baseline", "candidate", "args"):
        assert re.search(rf"^  {name}:\n", text, re.MULTILINE)
        assert f"${{{{ inputs.{name} }}}}" in text
    for name in ("passed", "divergence"):
        assert f"${{{{ steps.compare.outputs.{name} }}}}" in text


def test_a_huge_report_is_cut_to_fit_the_job_summary(tmp_path):
    """GitHub drops a step summary over 1 MiB whole: a 150 KB trace of long names (each
    escaped, and shown in several places) made a 1.4 MB report and no summary at all."""
    import json

    def trace(trace_id: str, failing: bool) -> Path:
        steps = [
            {
                "step_id": f"s{i}",
                "step_index": i,
                "step_type": "tool_call",
                "name": "`" * 2000,
                "input_payload": {"q": ("`" if failing else "a") * 100},
                "status": "error" if failing else "success",
                "error_message": "`" * 300 if failing else None,
            }
            for i in range(60)
        ]
        path = tmp_path / f"{trace_id}.json"
        path.write_text(json.dumps({"trace_id": trace_id, "agent_name": "a", "steps": steps}))
        return path

    base, cand = trace("b", failing=False), trace("c", failing=True)
    env = action_env(tmp_path, INPUT_BASELINE=str(base), INPUT_CANDIDATE=str(cand))
    done = run_script(tmp_path, env)
    summary, outputs = summary_and_outputs(tmp_path)
    assert done.returncode == 1, done.stderr
    assert len(done.stdout.encode()) > 1_000_000  # the whole report, in the step log
    assert len(summary.encode()) <= 1_000_000
    assert summary.startswith("## ❌ AgentDiff: FAILED")
    assert "✂️ Details cut to fit GitHub's 1 MiB job-summary limit" in summary
    assert summary.count("<details") == summary.count("</details>")
    assert outputs["passed"] == "false"
