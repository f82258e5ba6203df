"""Claude Code transcripts and Codex rollouts, checked against the facts of their live runs.

The fixtures were written by the real CLIs (scripts/capture/claude_code.py and codex.py) against
a scripted model server; every fact below was recorded in that server or from the tool side.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.realdata import SCENARIOS, SIDES, RealSource, check_tool_outcomes, tool_steps

from agentdiff.adapters.claude_code import ClaudeCodeAdapter
from agentdiff.adapters.codex import CodexAdapter
from agentdiff.diff import compare
from agentdiff.loader import load_trace, read_document
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TraceStep

SOURCES = {"claude_code": RealSource("claude_code"), "codex": RealSource("codex")}
SHAPE = {"claude_code": "session", "codex": "rollout"}
CASES = [(name, scenario, side) for name in SOURCES for scenario in SCENARIOS for side in SIDES]


def _load(name: str, scenario: str, side: str) -> tuple[AgentTrace, dict[str, Any]]:
    source = SOURCES[name]
    return source.load(SHAPE[name], scenario, side), source.facts(scenario, side)


def _llm(trace: AgentTrace) -> list[TraceStep]:
    return [s for s in trace.steps if s.step_type is StepType.LLM_CALL]


@pytest.mark.parametrize(("name", "scenario", "side"), CASES)
def test_tool_calls_arguments_and_errors_match_the_live_run(
    name: str, scenario: str, side: str
) -> None:
    trace, facts = _load(name, scenario, side)
    tools = tool_steps(trace)
    assert [s.name for s in tools] == [c["name"] for c in facts["tool_calls"]]
    for step, call in zip(tools, facts["tool_calls"], strict=True):
        expected = call["arguments"]
        assert step.input_payload == (
            expected if isinstance(expected, dict) else {"input": expected}
        )
    check_tool_outcomes(tools, facts["tool_calls"])


@pytest.mark.parametrize(("name", "scenario", "side"), CASES)
def test_model_turns_tokens_and_answer_match_the_live_run(
    name: str, scenario: str, side: str
) -> None:
    trace, facts = _load(name, scenario, side)
    assert len(_llm(trace)) == facts["llm_calls"]
    assert trace.total_tokens is not None
    assert trace.total_tokens.prompt_tokens == facts["prompt_tokens"]
    assert trace.total_tokens.completion_tokens == facts["completion_tokens"]
    assert trace.total_tokens.total_tokens == facts["total_tokens"]
    assert trace.final_output == {"text": facts["final_output"]}
    assert trace.agent_name == facts["agent_name"]
    assert all((s.metadata or {}).get("model") == facts["model"] for s in _llm(trace))


@pytest.mark.parametrize(("name", "scenario", "side"), CASES)
def test_every_tool_call_hangs_under_the_model_turn_that_issued_it(
    name: str, scenario: str, side: str
) -> None:
    trace, _ = _load(name, scenario, side)
    steps = trace.step_map()
    for tool in tool_steps(trace):
        parent = steps[str(tool.parent_id)]
        assert parent.step_type is StepType.LLM_CALL
        assert tool.metadata is not None
        assert tool.metadata["turn_id"] in (
            parent.step_id,
            (parent.metadata or {}).get("message_id"),
        )
        assert tool.latency_ms is not None
        assert tool.latency_ms >= 0


def test_claude_usage_counts_once_per_message_although_each_block_repeats_it() -> None:
    trace, facts = _load("claude_code", "identical", "baseline")
    first = _llm(trace)[0]
    calls = [s for s in tool_steps(trace) if s.parent_id == first.step_id]
    assert len(calls) == 2  # one assistant message, two tool_use records repeating its usage
    assert first.tokens is not None
    assert first.tokens.total_tokens == sum(facts["usage"].values()) - sum(
        int(t.tokens.total_tokens or 0) for t in _llm(trace)[1:] if t.tokens
    )
    usage = (first.metadata or {})["usage"]
    assert set(usage) == {"input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"}


def test_claude_subagent_turns_nest_under_the_agent_call_that_started_them() -> None:
    trace, facts = _load("claude_code", "identical", "baseline")
    steps = trace.step_map()
    agent = next(s for s in tool_steps(trace) if s.name == "Agent")
    sub_calls = [c for c in facts["tool_calls"] if c["thread"] == "sub"]
    nested = [
        s
        for s in tool_steps(trace)
        if s.parent_id and steps[s.parent_id].parent_id == agent.step_id
    ]
    assert [s.name for s in nested] == [c["name"] for c in sub_calls] == ["Glob"]
    sub_turns = [s for s in _llm(trace) if s.parent_id == agent.step_id]
    assert len(sub_turns) == facts["model_turns"]["sub"]


def test_claude_subagents_are_read_from_the_companion_folder(tmp_path: Path) -> None:
    source = SOURCES["claude_code"]
    alone = tmp_path / "session.jsonl"
    alone.write_bytes(source.path("session", "identical", "baseline").read_bytes())
    without = load_trace(alone)
    with_subagents = source.load("session", "identical", "baseline")
    assert len(with_subagents.steps) > len(without.steps)
    assert "Glob" in [s.name for s in tool_steps(without)]  # the main thread's own Glob


def test_codex_usage_is_the_difference_of_cumulative_totals() -> None:
    trace, facts = _load("codex", "loop", "candidate")
    per_turn = [s.tokens.total_tokens for s in _llm(trace) if s.tokens]
    assert sum(int(t or 0) for t in per_turn) == facts["total_tokens"]
    assert len(per_turn) == facts["llm_calls"]
    cached = sum((s.metadata or {})["usage"]["cached_input_tokens"] for s in _llm(trace))
    assert cached == facts["usage"]["cached_input_tokens"]


def test_codex_reasoning_summaries_are_thoughts_in_order() -> None:
    trace, facts = _load("codex", "detour", "candidate")
    thoughts = [s for s in trace.steps if s.step_type is StepType.THOUGHT]
    assert [(s.output_payload or {})["summary"] for s in thoughts] == facts["reasoning"]


def test_codex_apply_patch_is_a_tool_call_with_the_patch_text() -> None:
    trace, _ = _load("codex", "identical", "baseline")
    patch = next(s for s in tool_steps(trace) if s.name == "apply_patch")
    assert patch.input_payload["input"].startswith("*** Begin Patch")
    assert patch.status is StepStatus.SUCCESS


@pytest.mark.parametrize("name", SOURCES)
def test_identical_sessions_diff_to_zero(name: str) -> None:
    base, _ = _load(name, "identical", "baseline")
    cand, _ = _load(name, "identical", "candidate")
    report = compare(base, cand)
    assert report.divergence == 0
    assert report.passed


@pytest.mark.parametrize("name", SOURCES)
def test_the_failing_command_repeated_four_times_is_flagged(name: str) -> None:
    base, _ = _load(name, "loop", "baseline")
    cand, facts = _load(name, "loop", "candidate")
    report = compare(base, cand)
    failing = [c for c in facts["tool_calls"] if c["error"]]
    assert len(failing) == 4
    assert not report.passed
    assert [(loop.names, loop.repetitions, loop.new) for loop in report.loops] == [
        ([failing[0]["name"]], 4, True)
    ]


@pytest.mark.parametrize("name", SOURCES)
def test_an_error_then_a_successful_retry_is_told_apart_from_a_loop(name: str) -> None:
    base, _ = _load(name, "error_retry", "baseline")
    cand, _ = _load(name, "error_retry", "candidate")
    report = compare(base, cand)
    assert report.loops == []
    assert report.candidate.errors == 1
    assert [r.outcome for r in report.recovery] == ["retried_succeeded"]


@pytest.mark.parametrize("name", SOURCES)
def test_auto_detection_picks_the_adapter_and_no_other_claims_the_file(name: str) -> None:
    adapters = {"claude_code": ClaudeCodeAdapter, "codex": CodexAdapter}
    for scenario in SCENARIOS:
        path = SOURCES[name].path(SHAPE[name], scenario, "baseline")
        data = read_document(path)
        assert [a.name for a in adapters.values() if a.detect(data)] == [name]
        assert (load_trace(path).metadata or {})["source_format"] == name


def test_a_resumed_and_compacted_claude_session_is_one_chronological_trace() -> None:
    folder = SOURCES["claude_code"].folder.parent / "claude_code_sessions"
    facts = json.loads((folder / "resumed.facts.json").read_text(encoding="utf-8"))
    trace = load_trace(folder / "resumed.session.jsonl")
    prompts = [s for s in trace.steps if s.name == "user prompt"]
    assert [s.input_payload["prompt"] for s in prompts] == facts["prompts"]
    compactions = [s for s in trace.steps if s.name == "compaction"]
    assert len(compactions) == facts["compaction_calls"] == 1
    assert compactions[0].input_payload["trigger"] == "manual"
    assert prompts[0].step_index < compactions[0].step_index < prompts[1].step_index
    assert [s.name for s in tool_steps(trace)] == [c["name"] for c in facts["tool_calls"]]
    assert len(_llm(trace)) == facts["llm_calls"]
    assert trace.total_tokens is not None
    assert trace.total_tokens.total_tokens == facts["total_tokens"]
    assert trace.final_output == {"text": facts["final_output"]}
    started = [str((s.metadata or {}).get("started_at")) for s in trace.steps]
    assert started == sorted(started)
