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


@pytest.mark.parametrize("name", ["s.jsonl", "s.jsonl.gz", "s.JSONL.GZ", "s.ndjson"])
def test_claude_companions_are_in_the_folder_named_by_the_session_stem(
    tmp_path: Path, name: str
) -> None:
    """`<s>.jsonl` and `<s>.jsonl.gz` both read `<s>/subagents/agent-*.jsonl`, plain or gzip."""
    folder = tmp_path / "s" / "subagents"
    folder.mkdir(parents=True)
    parts = [folder / "agent-a.jsonl", folder / "agent-b.jsonl.gz"]
    for file in [*parts, folder / "notes.txt"]:
        file.touch()
    assert ClaudeCodeAdapter.companions(tmp_path / name, []) == parts


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


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


_BOOKKEEPING = [
    {
        "type": "file-history-snapshot",
        "messageId": "m-0",
        "snapshot": {"messageId": "m-0", "trackedFileBackups": {}, "timestamp": "x"},
        "isSnapshotUpdate": False,
    },
    {"type": "permission-mode", "permissionMode": "default"},
    {"type": "custom-title", "customTitle": "fix the config"},
    *[{"type": "summary", "summary": f"earlier {i}", "leafUuid": f"u-{i}"} for i in range(9)],
]


@pytest.mark.parametrize("count", [1, len(_BOOKKEEPING)])
def test_claude_transcript_opening_with_bookkeeping_records_is_recognised(
    tmp_path: Path, count: int
) -> None:
    """Real transcripts open with records that carry no sessionId (file snapshots, titles, …)."""
    records = _records(SOURCES["claude_code"].path("session", "identical", "baseline"))
    (tmp_path / "plain").mkdir()
    (tmp_path / "kept").mkdir()
    plain = _write(tmp_path / "plain" / "session.jsonl", records)
    kept = _write(tmp_path / "kept" / "session.jsonl", [*_BOOKKEEPING[:count], *records])
    trace = load_trace(kept)
    assert trace.metadata["source_format"] == "claude_code"
    assert [(s.step_type, s.name) for s in trace.steps] == [
        (s.step_type, s.name) for s in load_trace(plain).steps
    ]


def _api_error(record: dict[str, Any]) -> dict[str, Any]:
    """`record` (an assistant record) as the CLI writes it once its API retries are used up."""
    text = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}'
    return {
        **record,
        "isApiErrorMessage": True,
        "error": "server_error",
        "apiErrorStatus": 529,
        "message": {
            "id": "msg-api-error",
            "type": "message",
            "role": "assistant",
            "model": "<synthetic>",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "stop_sequence",
            "usage": {"input_tokens": 0, "output_tokens": 0},
        },
    }


def test_claude_api_error_is_a_failed_model_call_and_no_answer(tmp_path: Path) -> None:
    source = SOURCES["claude_code"]
    path = source.path("session", "identical", "candidate")
    records = _records(path)
    last = max(i for i, r in enumerate(records) if r.get("type") == "assistant")
    records[last] = _api_error(records[last])
    failed = load_trace(_write(tmp_path / "session.jsonl", records))
    original = source.load("session", "identical", "candidate")
    turn = _llm(failed)[-1]
    assert turn.status is StepStatus.ERROR
    assert turn.error_message is not None
    assert turn.error_message.startswith("API Error: 529")
    assert turn.name == _llm(original)[-1].name  # the model the CLI was calling
    assert (turn.metadata or {})["api_error_status"] == 529
    assert turn.tokens is not None
    assert turn.tokens.total_tokens == 0
    assert failed.final_output != {"text": turn.error_message}
    report = compare(original, failed)
    assert report.candidate.errors == report.baseline.errors + 1
    (row,) = [e for e in report.alignment if e.candidate and e.candidate.step_id == turn.step_id]
    assert row.candidate is not None
    assert row.candidate.error_message == turn.error_message
    coverage = report.candidate.cost_coverage
    assert coverage is not None
    assert coverage.priced == coverage.turns  # priced at $0 (no tokens), not left unknown


def _codex_patch_failure(records: list[dict[str, Any]], *, verdict_first: bool) -> str:
    """The apply_patch call's output as a patch that did not apply; its item marked failed."""
    call = next(
        r["payload"]["call_id"]
        for r in records
        if r.get("type") == "response_item" and r["payload"].get("name") == "apply_patch"
    )
    words = "apply_patch verification failed: Failed to find expected lines in app/config.py"
    for r in records:
        payload = r.get("payload", {})
        if payload.get("type") == "custom_tool_call_output" and payload.get("call_id") == call:
            payload["output"] = words
        item = payload.get("item") if payload.get("type") == "item_completed" else None
        if isinstance(item, dict) and item.get("id") == call:
            item["status"] = "failed"
    if not verdict_first:  # the CLI's verdict after the output
        verdict = next(
            i
            for i, r in enumerate(records)
            if r.get("payload", {}).get("type") == "item_completed"
            and r["payload"]["item"].get("id") == call
        )
        records.append(records.pop(verdict))
    return words


@pytest.mark.parametrize("verdict_first", [True, False])
def test_codex_call_the_cli_marks_failed_is_an_error_without_an_exit_code(
    tmp_path: Path, verdict_first: bool
) -> None:
    path = SOURCES["codex"].path("rollout", "identical", "candidate")
    records = _records(path)
    words = _codex_patch_failure(records, verdict_first=verdict_first)
    trace = load_trace(_write(tmp_path / "rollout.jsonl", records))
    (patch,) = [s for s in tool_steps(trace) if s.name == "apply_patch"]
    assert patch.status is StepStatus.ERROR
    assert patch.error_message == words
    others = [s for s in tool_steps(trace) if s.name != "apply_patch"]
    assert all(s.status is StepStatus.SUCCESS for s in others)
