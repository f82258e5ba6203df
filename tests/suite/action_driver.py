"""The GitHub Action in suite mode run locally, with fake summary and output files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
