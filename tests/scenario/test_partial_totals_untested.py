"""A run whose model turns report tokens (or a price) only in part has no known total: the
statistics do not test it, as `compare` does not judge it, and say so. They called a candidate
whose last turn gave no tokens "total_tokens -33 %, improved" (and, sides swapped, "+50 %,
regressed", exit 1) while every turn of every run had the same tokens (a reviewer's case)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentdiff.cli.app import app


def _run(run_id: str, tokens: int, *, last: bool, cost: bool = False) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    for i, name in enumerate(["gpt", "search", "gpt", "fetch", "gpt"]):
        step: dict[str, Any] = {"step_id": f"s{i}", "step_index": i, "name": name}
        step["step_type"] = "tool_call" if name != "gpt" else "llm_call"
        if name == "gpt" and (last or i < 4):  # the last turn reports nothing unless `last`
            usage: dict[str, Any] = {"total_tokens": tokens}
            if cost:
                usage = {"estimated_cost_usd": tokens / 1e6}
            step["tokens"] = usage
        steps.append(step)
    return {"trace_id": run_id, "agent_name": "agent", "steps": steps}


def _folder(path: Path, runs: list[dict[str, Any]]) -> Path:
    path.mkdir(parents=True)
    for run in runs:
        (path / f"{run['trace_id']}.json").write_text(json.dumps(run))
    return path


def _pair(tmp_path: Path, *, cost: bool = False) -> tuple[Path, Path]:
    base = [_run(f"b{k}", 100 + k, last=True, cost=cost) for k in range(6)]
    cand = [_run(f"c{k}", 100 + k, last=False, cost=cost) for k in range(6)]
    return _folder(tmp_path / "base", base), _folder(tmp_path / "cand", cand)


def _invoke(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout


@pytest.mark.parametrize(
    ("metric", "cost", "words"),
    [
        ("total_tokens", False, "report tokens for only some model turns"),
        ("cost_usd", True, "price only some model turns"),
    ],
)
@pytest.mark.parametrize("swapped", [False, True])
def test_a_partly_known_total_is_not_tested_and_says_why(
    tmp_path: Path, metric: str, cost: bool, words: str, swapped: bool
) -> None:
    base, cand = _pair(tmp_path, cost=cost)
    if swapped:
        base, cand = cand, base
    code, out = _invoke("compare-runs", base, cand, "-f", "json")
    assert code == 0, out
    (scenario,) = orjson.loads(out)["scenarios"]
    assert scenario["verdict"] == "pass"
    assert metric not in {t["name"] for t in scenario["tests"]}
    side = "baseline" if swapped else "candidate"
    assert scenario["untested"] == [f"{metric} not tested: 6 of 6 {side} runs {words}"]
    partial = [r for r in scenario["runs"] if r["side"] == side]
    assert all(r[metric] is None for r in partial)  # unknown, not the sum of some turns
    code, text = _invoke("compare-runs", base, cand)
    assert f"{metric} not tested: 6 of 6 {side} runs {words}" in text
    assert "every metric tested (see below)" in text


def test_a_total_known_in_every_run_is_still_tested(tmp_path: Path) -> None:
    base = [_run(f"b{k}", 100 + k, last=True) for k in range(6)]
    cand = [_run(f"c{k}", 200 + k, last=True) for k in range(6)]
    code, out = _invoke(
        "compare-runs", _folder(tmp_path / "b", base), _folder(tmp_path / "c", cand), "-f", "json"
    )
    assert code == 1, out
    (scenario,) = orjson.loads(out)["scenarios"]
    assert scenario["verdict"] == "regressed", out
    assert "total_tokens" in {t["name"] for t in scenario["tests"]}
    assert scenario["untested"] == []


def test_a_suite_row_says_which_metric_it_did_not_test(tmp_path: Path) -> None:
    base = [_run(f"b{k}", 100 + k, last=True) for k in range(6)]
    cand = [_run(f"c{k}", 300 + k, last=k < 3) for k in range(6)]  # 3 report in part
    _folder(tmp_path / "base" / "sc", base)
    _folder(tmp_path / "cand" / "sc", cand)
    code, out = _invoke("suite", tmp_path / "base", tmp_path / "cand")
    assert code == 0, out  # inconclusive (see below) passes unless `--inconclusive fail`
    assert "total_tokens not tested: 3 of 6 candidate runs report tokens for only some" in out


def test_inconclusive_never_asks_for_the_runs_it_has(tmp_path: Path) -> None:
    """3 of 6 candidate runs fail the per-pair gate, none of 6 baseline runs: Fisher's floor
    with those counts is 20/220 = 0.091, so 6 and 6 runs cannot reach 0.05. The reason said
    "6 baseline and 6 candidate runs would suffice" beside "no test can reach p ≤ 0.05"."""
    base = [_run(f"b{k}", 100 + k, last=True) for k in range(6)]
    cand = [_run(f"c{k}", 300 + k, last=k < 3) for k in range(6)]
    _folder(tmp_path / "base" / "sc", base)
    _folder(tmp_path / "cand" / "sc", cand)
    code, out = _invoke("suite", tmp_path / "base", tmp_path / "cand", "-f", "json")
    assert code == 0, out
    (row,) = orjson.loads(out)["scenarios"]
    stats = row["stats"]
    assert stats["verdict"] == "inconclusive"
    (test,) = stats["tests"]
    assert test["verdict"] == "inconclusive"  # it read "pass" beside 0/6 → 3/6
    assert test["baseline"]["count"] == 0
    assert test["candidate"]["count"] == 3
    assert test["min_p"] == pytest.approx(20 / 220)
    assert stats["needs"]["baseline"] > 6
    assert stats["needs"]["candidate"] > 6
    k = stats["needs"]["candidate"]
    assert f"{k} baseline and {k} candidate runs would suffice" in stats["reasons"][0]
