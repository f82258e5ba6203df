"""The real pool runs (tests/fixtures/runs_pool, captured by scripts/capture/runs_pool.py) as
`compare-runs` folders."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from agentdiff.cli.app import app

POOL = Path(__file__).resolve().parents[1] / "fixtures" / "runs_pool"


def pool_folders(root: Path, baseline: tuple[str, int], candidate: tuple[str, int]) -> list[str]:
    """`root/b` and `root/c` holding the first runs of a variant each: (variant, how many)."""
    for side, (variant, runs) in (("b", baseline), ("c", candidate)):
        (root / side).mkdir()
        for run in sorted((POOL / variant).iterdir())[:runs]:
            shutil.copyfile(run, root / side / run.name)
    return [str(root / "b"), str(root / "c")]


def compare_runs(folders: list[str], fmt: str, code: int) -> str:
    """`agentdiff compare-runs FOLDERS -f FMT`'s stdout, checking its exit code."""
    result = CliRunner().invoke(app, ["compare-runs", *folders, "-f", fmt])
    assert result.exit_code == code, result.output
    return result.stdout
