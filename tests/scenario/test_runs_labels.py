"""Labels of the multi-run reports a reader can check against the runs (a reviewer's cases):
a loop's repetitions per run, the route each side of a cluster took, plurals and numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
from typer.testing import CliRunner

from agentdiff.cli.app import app


def _run(run_id: str, tools: list[str], tokens: int = 100) -> dict[str, Any]:
    names = ["gpt"]
    for tool in tools:
        names += [tool, "gpt"]
    steps = [
        {
            "step_id": f"s{i}",
            "step_index": i,
            "step_type": "llm_call" if name == "gpt" else "tool_call",
            "name": name,
            "input_payload": {"q": name},
            "tokens": {"total_tokens": tokens} if name == "gpt" else None,
        }
        for i, name in enumerate(names)
    ]
    return {"trace_id": run_id, "agent_name": "agent", "steps": steps}


def _folder(path: Path, runs: dict[str, dict[str, Any]]) -> Path:
    path.mkdir(parents=True)
    for run_id, run in runs.items():
        (path / f"{run_id}.json").write_text(json.dumps(run))
    return path


def _invoke(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def test_a_loop_shows_the_range_of_its_runs_repetitions(tmp_path: Path) -> None:
    """×5 in 2/5 runs claimed five repetitions of the run that repeats it three times."""
    base = _folder(tmp_path / "b", {f"b{k}": _run(f"b{k}", ["a", "b"]) for k in range(5)})
    cand_runs = {f"c{k}": _run(f"c{k}", ["a", "b"]) for k in range(3)}
    cand_runs["c3"] = _run("c3", ["a", "b", "b", "b"])
    cand_runs["c4"] = _run("c4", ["a", "b", "b", "b", "b", "b"])
    cand = _folder(tmp_path / "c", cand_runs)
    (scenario,) = orjson.loads(_invoke("compare-runs", base, cand, "-f", "json"))["scenarios"]
    (loop,) = scenario["invariants"]
    assert (loop["fewest_repetitions"], loop["repetitions"]) == (3, 5)
    assert loop["runs"] == ["c3", "c4"]
    assert loop["message"] == "loop b ×3 to ×5 in 2/5 runs (in no baseline run)"
    cand_runs["c3"] = cand_runs["c4"]
    again = _folder(tmp_path / "c2", cand_runs)
    (scenario,) = orjson.loads(_invoke("compare-runs", base, again, "-f", "json"))["scenarios"]
    (loop,) = scenario["invariants"]
    assert loop["fewest_repetitions"] is None
    assert loop["message"].startswith("loop b ×5 in 2/5 runs")


def test_a_cluster_names_the_route_a_side_took_when_not_its_medoid(tmp_path: Path) -> None:
    """Both routes within the threshold make one cluster, 5/5 → 5/5; its medoid was the
    candidate's route (with `search`), which no baseline run took."""
    base = _folder(
        tmp_path / "b", {f"b{k}": _run(f"b{k}", ["geocode", "weather"], 100 + k) for k in range(5)}
    )
    cand = _folder(
        tmp_path / "c",
        {f"c{k}": _run(f"c{k}", ["geocode", "search", "weather"], 100 + k) for k in range(5)},
    )
    (scenario,) = orjson.loads(_invoke("compare-runs", base, cand, "-f", "json"))["scenarios"]
    (cluster,) = scenario["routes"]["clusters"]
    assert cluster["counts"] == {"baseline": 5, "candidate": 5}
    taken = {"baseline": "gpt → geocode → gpt → weather → gpt"}
    taken["candidate"] = "gpt → geocode → gpt → search → gpt → weather → gpt"
    medoid_side = next(side for side, route in taken.items() if route == cluster["skeleton"])
    other = "candidate" if medoid_side == "baseline" else "baseline"
    assert cluster["side_routes"] == {other: taken[other]}
    note = f"R1 holds more than one route: its {other} runs take {taken[other]}"
    assert note in _invoke("compare-runs", base, cand)
    suite = tmp_path / "suite"  # the same runs as one scenario of a suite
    base.rename(_folder(suite / "base", {}) / "sc")
    cand.rename(_folder(suite / "cand", {}) / "sc")
    assert note in _invoke("suite", suite / "base", suite / "cand")


def test_one_cluster_and_one_test_are_singular(tmp_path: Path) -> None:
    base = _folder(tmp_path / "b", {f"b{k}": _run(f"b{k}", ["a"]) for k in range(3)})
    out = _invoke("routes", base)
    assert "3 runs · 1 distinct route · 1 cluster (threshold" in out
    assert "1 route cluster" in _invoke("routes", base, "-f", "markdown")


def test_a_value_beyond_the_baseline_range_is_written_out(tmp_path: Path) -> None:
    base = _folder(tmp_path / "b", {f"b{k}": _run(f"b{k}", ["a"], 100_000 + k) for k in range(5)})
    cand = _folder(tmp_path / "c", {"c0": _run("c0", ["a"], 800_000)})
    (scenario,) = orjson.loads(_invoke("compare-runs", base, cand, "-f", "json"))["scenarios"]
    (reason,) = [r for r in scenario["reasons"] if r.startswith("total_tokens")]
    assert reason.startswith("total_tokens 1,600,000 is beyond every baseline run (max 200,008)")
