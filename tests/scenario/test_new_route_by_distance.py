"""'Runs on a new route' counts by distance, as the footnote beside it does: average linkage
put 3 runs within 0.167 of the baseline's route in a cluster of no baseline run, and the test
said 6/6 new (p = 0.0022) beside '3/6 candidate runs are farther than 0.2 from every baseline
run' (a reviewer's case)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
from typer.testing import CliRunner

from agentdiff.cli.app import app

MAIN = [f"t{i}" for i in range(29)]
NEAR = [f"y{i}" for i in range(5)] + MAIN[5:]  # 5 of 30 steps renamed: 0.167 from MAIN
FAR = NEAR[:5] + [f"z{i}" for i in range(5, 9)] + MAIN[9:]  # 9 of 30: 0.3 (0.133 from NEAR)


def _run(run_id: str, tools: list[str]) -> dict[str, Any]:
    names = [*tools, "gpt"]
    steps = [
        {
            "step_id": f"s{i}",
            "step_index": i,
            "step_type": "llm_call" if name == "gpt" else "tool_call",
            "name": name,
        }
        for i, name in enumerate(names)
    ]
    return {"trace_id": run_id, "agent_name": "agent", "steps": steps}


def _write(folder: Path, runs: dict[str, list[str]]) -> Path:
    folder.mkdir(parents=True)
    for run_id, tools in runs.items():
        (folder / f"{run_id}.json").write_text(json.dumps(_run(run_id, tools)))
    return folder


def test_runs_on_a_new_route_are_the_runs_far_from_every_baseline_run(tmp_path):
    base = _write(tmp_path / "base", {f"b{k}": MAIN for k in range(5)})
    cand = _write(
        tmp_path / "cand", {**{f"n{k}": NEAR for k in range(3)}, **{f"f{k}": FAR for k in range(3)}}
    )
    result = CliRunner().invoke(app, ["compare-runs", str(base), str(cand), "-f", "json"])
    scenario = orjson.loads(result.stdout)["scenarios"][0]
    (test,) = [t for t in scenario["tests"] if t["name"] == "runs on a new route"]
    far = sum(d > 0.2 for d in (n["route_distance"] for n in scenario["nearest"]))
    assert far == 3
    assert (test["baseline"]["count"], test["candidate"]["count"]) == (0, far)
    assert scenario["routes"]["unexplained"]["count"] == far
    assert test["verdict"] == "inconclusive"  # 0/5 → 3/6: p = 0.12, its floor with 3 of 11
