"""The GitHub Action's step script (`scripts/action_run.sh`) run locally: its environment, the
run, and the step summary and outputs it wrote (fake `GITHUB_STEP_SUMMARY` / `GITHUB_OUTPUT`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agentdiff.config import SETTINGS

ROOT = Path(__file__).parents[1]
SCRIPT = ROOT / "scripts" / "action_run.sh"


def action_env(tmp_path: Path, **inputs: str) -> dict[str, str]:
    """This environment without AgentDiff's settings, the test venv first on PATH, the fake
    summary and output files in `tmp_path`, and `inputs` (`INPUT_*` and any other variable)."""
    env = {k: v for k, v in os.environ.items() if k not in {s.env for s in SETTINGS}}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
        PYTHON=sys.executable,
        GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"),
        GITHUB_OUTPUT=str(tmp_path / "outputs.txt"),
    )
    env.update(inputs)
    return env


def run_script(
    tmp_path: Path, env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """The Action's step script run in `tmp_path` with `env`."""
    return subprocess.run(
        ["bash", str(SCRIPT)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def summary_and_outputs(tmp_path: Path) -> tuple[str, dict[str, str]]:
    """The step summary the script wrote ('' if none) and its outputs (`name=value` lines)."""
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    found = (
        dict(line.split("=", 1) for line in outputs.read_text().splitlines())
        if outputs.exists()
        else {}
    )
    return (summary.read_text() if summary.exists() else ""), found


def run_suite_action(tmp_path: Path, baseline: Path, candidate: Path, args: str):
    """The Action in suite mode over two folders of runs, its results kept in `tmp_path`."""
    env = action_env(
        tmp_path,
        INPUT_MODE="suite",
        INPUT_BASELINE=str(baseline),
        INPUT_CANDIDATE=str(candidate),
        INPUT_ARGS=args,
        INPUT_RESULTS=str(tmp_path / "results"),
    )
    done = run_script(tmp_path, env, timeout=300)
    return (done, *summary_and_outputs(tmp_path))
