"""An error finding says when the baseline's paired step failed too: "error in search (row 2):
retried → succeeded" read as a new error when both runs had it (a reviewer's case)."""

from __future__ import annotations

from typing import Any

from agentdiff import AgentTrace, compare
from agentdiff.render import render


def _run(trace_id: str, first_fails: bool) -> AgentTrace:
    steps: list[dict[str, Any]] = [
        {"step_id": "s0", "step_index": 0, "step_type": "llm_call", "name": "gpt"},
        {"step_id": "s1", "step_index": 1, "step_type": "tool_call", "name": "search"},
        {"step_id": "s2", "step_index": 2, "step_type": "tool_call", "name": "search"},
        {"step_id": "s3", "step_index": 3, "step_type": "llm_call", "name": "gpt"},
    ]
    if first_fails:
        steps[1] |= {"status": "error", "error_message": "timeout"}
    return AgentTrace.model_validate({"trace_id": trace_id, "agent_name": "a", "steps": steps})


def _errors(baseline_fails: bool) -> list[str]:
    report = compare(_run("b", baseline_fails), _run("c", first_fails=True))
    out = render(report, "terminal")
    return [line.strip() for line in out.splitlines() if "error in search" in line]


def test_an_error_both_runs_had_says_so() -> None:
    (line,) = _errors(baseline_fails=True)
    assert line.startswith("• error in search (row 2, failed in the baseline too): retried")


def test_a_new_error_does_not() -> None:
    (line,) = _errors(baseline_fails=False)
    assert line.startswith("• error in search (row 2): retried → succeeded")
