"""init → record → approve → compare, end to end in a temporary git repository (real CLI)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cookbooks.baseline_workflow import BASELINE, CANDIDATE, Project  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def test_the_whole_loop(tmp_path):
    project = Project(tmp_path)
    init = project.agentdiff("init", "--agent", "weather_agent:run", "--input", "@task.json",
                             "--baseline", BASELINE)  # fmt: skip
    assert init.returncode == 0, init.stderr
    workflow = (tmp_path / ".github/workflows/agentdiff.yml").read_text()
    assert "agentdiff record weather_agent:run --input @task.json -o runs/candidate" in workflow
    assert f'baseline: "{BASELINE}"' in workflow
    v1 = project.commit("v1")

    assert project.record().returncode == 0
    first = project.agentdiff("approve", CANDIDATE, "--baseline", BASELINE, "-m", "first")
    assert first.returncode == 0, first.stderr
    record = project.provenance()
    assert (record["commit"], record["dirty"], record["reason"]) == (v1, False, "first")
    assert record["approved_by"] == "Grace Hopper <grace@example.com>"
    assert record["candidate"] == CANDIDATE
    project.commit("approve")

    # an unchanged agent passes against its approved baseline
    assert project.record().returncode == 0
    same = project.agentdiff("compare", BASELINE, CANDIDATE)
    assert same.returncode == 0, same.stdout + same.stderr
    assert "older than" not in same.stderr  # agentdiff.toml from init: stale_after_days = 30

    project.write_agent(version=2, polls=4)
    v2 = project.commit("v2")
    assert project.record().returncode == 0
    regressed = project.agentdiff("compare", BASELINE, CANDIDATE)
    assert regressed.returncode == 1
    assert "get_weather ×4 at rows" in regressed.stdout and "(loop, new)" in regressed.stdout
    before = (tmp_path / BASELINE).read_bytes()
    refused = project.agentdiff("approve", CANDIDATE, "--baseline", BASELINE)
    assert refused.returncode == 1
    assert (tmp_path / BASELINE).read_bytes() == before

    forced = project.agentdiff("approve", CANDIDATE, "--baseline", BASELINE, "--force",
                               "--reason", "polling is intended")  # fmt: skip
    assert forced.returncode == 0, forced.stderr
    record = project.provenance()
    assert (record["commit"], record["reason"]) == (v2, "polling is intended")
    assert record["previous"] == {
        "approved_at": record["previous"]["approved_at"],
        "approved_by": "Grace Hopper <grace@example.com>",
        "commit": v1,
    }
    again = project.agentdiff("compare", BASELINE, CANDIDATE)
    assert again.returncode == 0
    assert "known loop get_weather ×4" in again.stdout
    steps = json.loads((tmp_path / BASELINE).read_text())["steps"]
    assert [s["name"] for s in steps].count("get_weather") == 4

    # uncommitted changes to tracked files are recorded as such
    (tmp_path / "weather_agent.py").write_text("# edited\n")
    project.agentdiff("approve", CANDIDATE, "--baseline", BASELINE, "--force")
    assert project.provenance()["dirty"] is True
