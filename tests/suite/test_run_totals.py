"""A suite's `runs` table and run profiles give each run the totals `compare()` reports for it.

A run that no pair compared (a baseline run nobody's nearest) used to be summarized without its
retries; its row said 0 retries where the run had one.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentdiff import compare
from agentdiff.cli.app import app
from agentdiff.diff.totals import trace_totals
from agentdiff.loader import load_trace
from agentdiff.scenario.profile import profile_run
from agentdiff.suite import RunSet, SuiteOptions, run_suite

RETRY = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "langfuse" / "error_retry"


def test_profile_counts_retries_as_compare_does() -> None:
    run = load_trace(RETRY / "candidate.json")
    profile = profile_run(run, "r")
    assert profile.retries == compare(run, run).candidate.retries == 1


def test_every_run_row_has_the_totals_compare_reports(tmp_path: Path) -> None:
    runs = {
        ("baseline", "plain"): "baseline.json",
        ("baseline", "again"): "baseline.snake.json",
        ("baseline", "retried"): "candidate.json",
        ("candidate", "plain"): "baseline.json",
    }
    for (side, run), name in runs.items():
        target = tmp_path / side / "weather" / f"{run}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(RETRY / name, target)
    results = tmp_path / "results"
    run_suite(
        RunSet.from_dir(tmp_path / "baseline"),
        RunSet.from_dir(tmp_path / "candidate"),
        SuiteOptions(backend="in-process", results=str(results)),
    )
    rows = [orjson.loads(line) for line in (results / "runs.jsonl").read_bytes().splitlines()]
    assert len(rows) == len(runs)
    for row in rows:
        expected = trace_totals(load_trace(tmp_path / row["side"] / row["source"]))
        for column in ("steps", "tool_calls", "errors", "retries", "total_tokens", "latency_ms"):
            assert row[column] == getattr(expected, column), (row["run_id"], column)
    retried = next(r for r in rows if r["side"] == "baseline" and r["run_id"].endswith("retried"))
    assert retried["retries"] == 1


def test_a_step_without_total_tokens_is_written_to_the_step_table(tmp_path) -> None:
    """prompt and completion tokens but no total: `suite --results` (which the Action always
    passes) crashed with exit 3 on `int(None)`; the table counts their sum, as the totals do."""
    steps = [
        {
            "step_id": "1",
            "step_index": 0,
            "step_type": "llm_call",
            "name": "plan",
            "tokens": {"prompt_tokens": 10, "completion_tokens": 5},
        },
        {
            "step_id": "2",
            "step_index": 1,
            "step_type": "llm_call",
            "name": "plan",
            "tokens": {"prompt_tokens": 10},
        },
    ]
    for side in ("b", "c"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "s.json").write_text(
            json.dumps({"trace_id": "t", "agent_name": "a", "steps": steps})
        )
    args = [str(tmp_path / "b"), str(tmp_path / "c"), "--results", str(tmp_path / "r")]
    result = CliRunner().invoke(app, ["suite", *args, "--no-progress"])
    assert result.exit_code == 0, result.output
    rows = [orjson.loads(x) for x in (tmp_path / "r" / "steps.jsonl").read_bytes().splitlines()]
    assert [r["candidate_tokens"] for r in rows] == [15, None]
