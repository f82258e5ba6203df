"""CrewAI, LangGraph and LangSmith fidelity beyond the contract test, on the real captures.

Variants no SDK writes as a file of their own (a flat list repeating a run id, run-level
`usage_metadata`, an `api_key` in an event, an invalid tool call) are derived from a real file.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from tests.realdata import SCENARIOS, SIDES, RealSource, tool_steps

from agentdiff import compare
from agentdiff.loader import parse_trace_data, read_document
from agentdiff.models.trace import StepStatus, StepType

CREWAI, LEGACY = RealSource("crewai"), RealSource("crewai_legacy")
LANGGRAPH, LANGSMITH = RealSource("langgraph"), RealSource("langsmith")


@pytest.mark.parametrize("source", [CREWAI, LEGACY], ids=lambda s: s.name)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_crewai_kickoff_and_event_batch_of_one_run_do_not_diverge(
    source: RealSource, scenario: str
) -> None:
    for side in SIDES:
        kickoff = source.load("kickoff", scenario, side)
        events = source.load("events", scenario, side)
        report = compare(kickoff, events)
        assert report.divergence == 0.0
        assert [(s.step_type, s.name) for s in kickoff.steps] == [
            (s.step_type, s.name) for s in events.steps
        ]
        assert report.baseline.model_turns == report.candidate.model_turns


def test_legacy_crewai_error_text_marks_the_failed_call() -> None:
    """crewai 1.12.2 has no `tool_failures`: the error is only the text fed back to the model."""
    raw = read_document(LEGACY.path("kickoff", "error_retry", "candidate"))
    assert all("tool_failures" not in task for task in raw["tasks_output"])
    facts = LEGACY.facts("error_retry", "candidate")
    failed = [
        s
        for s in LEGACY.load("kickoff", "error_retry", "candidate").steps
        if s.status is StepStatus.ERROR
    ]
    (expected,) = [c["error"] for c in facts["tool_calls"] if c["error"]]
    assert [(s.name, s.error_message) for s in failed] == [
        ("Weather Researcher/get_weather", expected)
    ]


def test_credentials_in_crewai_events_never_reach_a_step() -> None:
    batch: dict[str, Any] = copy.deepcopy(
        read_document(CREWAI.path("events", "detour", "candidate"))
    )
    for event in batch["events"]:
        data = event["event_data"]
        if event["type"] == "llm_call_started":
            data["llm_config"] = {"model": "gpt-4o-mini", "api_key": "sk-live-SECRET1"}
        if event["type"] == "tool_usage_started":
            data["tool_args"] = {**(data.get("tool_args") or {}), "apiKey": "sk-live-SECRET2"}
            data["headers"] = {"Authorization": "Bearer SECRET3"}
    text = parse_trace_data(batch).model_dump_json()
    assert "SECRET" not in text
    assert "api_key" not in text.lower()


def _lg_messages(scenario: str = "detour") -> list[dict[str, Any]]:
    doc: list[dict[str, Any]] = copy.deepcopy(
        read_document(LANGGRAPH.path("model_dump", scenario, "candidate"))
    )
    return doc


def test_langgraph_invalid_tool_calls_are_error_steps() -> None:
    messages = _lg_messages()
    ai = next(m for m in messages if m["type"] == "ai" and m["tool_calls"])
    ai["invalid_tool_calls"] = [
        {
            "name": "get_weather",
            "args": '{"lat": 48.85, "lon": ',
            "id": "call_bad",
            "error": "Function get_weather arguments:\n\n{...}\n\nare not valid JSON.",
            "type": "invalid_tool_call",
        }
    ]
    trace = parse_trace_data(messages)
    (bad,) = [s for s in trace.steps if (s.metadata or {}).get("invalid_tool_call")]
    assert bad.step_type is StepType.TOOL_CALL
    assert bad.status is StepStatus.ERROR
    assert bad.name == "get_weather"
    assert bad.input_payload == {"raw_arguments": '{"lat": 48.85, "lon": '}
    assert bad.error_message == "Function get_weather arguments: {...} are not valid JSON."
    parent = trace.step_map()[bad.parent_id or ""]
    assert parent.step_type is StepType.ROUTING
    assert (bad.metadata or {})["turn_id"] == parent.step_id


def test_langgraph_turns_record_their_model_and_tools_their_turn() -> None:
    trace = LANGGRAPH.load("messages", "detour", "candidate")
    turns = [s for s in trace.steps if s.step_type in (StepType.ROUTING, StepType.RESPONSE)]
    assert {(s.metadata or {})["model"] for s in turns} == {"scripted-chat-1"}
    for tool in tool_steps(trace):
        assert (tool.metadata or {})["turn_id"] == tool.parent_id
    unnamed = LANGGRAPH.load("openai", "detour", "candidate")  # no model in this dump
    facts = LANGGRAPH.facts("detour", "candidate")
    assert compare(unnamed, unnamed).baseline.model_turns == facts["llm_calls"]


def test_langgraph_debug_stream_times_each_node_and_matches_the_messages() -> None:
    debug = LANGGRAPH.load("debug", "error_retry", "candidate")
    assert all((s.metadata or {}).get("node") in ("agent", "tools") for s in debug.steps)
    for step in debug.steps:
        meta = step.metadata or {}
        assert meta["started_at"] <= meta["ended_at"]
    failed = [s for s in debug.steps if s.status is StepStatus.ERROR]
    assert [s.name for s in failed] == ["get_weather"]


def test_langsmith_ingest_body_merges_post_and_patch() -> None:
    body = read_document(LANGSMITH.path("ingest", "loop", "candidate"))
    assert set(body) == {"post", "patch"}
    posted = {r["id"] for r in body["post"]}
    assert posted == {r["id"] for r in body["patch"]}  # every run is sent twice
    trace = LANGSMITH.load("ingest", "loop", "candidate")
    assert len(trace.steps) == len(posted)
    assert all(s.latency_ms is not None for s in trace.steps)  # end times come from patches


def test_langsmith_flat_list_repeating_a_run_id_is_merged() -> None:
    body = read_document(LANGSMITH.path("ingest", "detour", "candidate"))
    merged = LANGSMITH.load("ingest", "detour", "candidate")
    as_list = parse_trace_data([*body["post"], *body["patch"]])
    assert as_list.model_dump() == merged.model_dump()


def test_langsmith_run_level_usage_metadata_and_costs() -> None:
    runs = copy.deepcopy(read_document(LANGSMITH.path("flat", "identical", "baseline")))
    llm_runs = [r for r in runs if r["run_type"] == "llm"]
    for run in llm_runs:
        usage = run["extra"]["metadata"].pop("usage_metadata", None) or {}
        run["outputs"] = {}
        run["usage_metadata"] = {
            **usage,
            "input_token_details": {"cache_read": 100},
            "input_cost": 0.001,
            "output_cost": 0.002,
        }
    trace = parse_trace_data(runs)
    facts = LANGSMITH.facts("identical", "baseline")
    assert trace.total_tokens is not None
    assert trace.total_tokens.prompt_tokens == facts["prompt_tokens"]
    assert trace.total_tokens.estimated_cost_usd == pytest.approx(0.003 * len(llm_runs))
    llm = [s for s in trace.steps if s.step_type is StepType.LLM_CALL]
    assert all(
        (s.metadata or {})["usage"] == {"input_token_details": {"cache_read": 100}} for s in llm
    )


def test_langsmith_server_costs_are_counted_once_per_model_turn() -> None:
    """The server rolls tokens and costs up into every ancestor; only LLM runs are counted."""
    trace = LANGSMITH.load("server", "detour", "candidate")
    raw = read_document(LANGSMITH.path("server", "detour", "candidate"))
    root = next(r for r in raw if r["parent_run_id"] is None)
    assert trace.total_tokens is not None
    assert trace.total_tokens.total_tokens == root["total_tokens"]
    assert trace.total_tokens.estimated_cost_usd == pytest.approx(float(root["total_cost"]))
    summary = compare(trace, trace).baseline
    assert summary.cost_coverage is not None
    assert summary.cost_coverage.priced == summary.cost_coverage.turns == summary.model_turns


OPENAI = RealSource("openai_agents")


def test_openai_agents_trace_object_holding_its_spans() -> None:
    raw = read_document(OPENAI.path("trace_object", "detour", "candidate"))
    assert raw["object"] == "trace"
    assert isinstance(raw["spans"], list)
    held = OPENAI.load("trace_object", "detour", "candidate")
    assert held.metadata is not None
    assert held.trace_id == raw["id"]
    assert held.agent_name == raw["workflow_name"]


def test_openai_agents_turns_models_and_usage_detail() -> None:
    trace = OPENAI.load("export", "detour", "candidate")
    llm = [s for s in trace.steps if s.step_type is StepType.LLM_CALL]
    models = [(s.metadata or {})["model"] for s in llm]
    assert models.count(None) == 1  # the Responses-API `response` span names no model
    assert set(models) - {None} == {"gpt-4o-mini"}
    response = next(s for s in llm if (s.metadata or {})["model"] is None)
    assert (response.metadata or {})["usage"]["output_tokens_details"] == {"reasoning_tokens": 0}
    turns = [(s.metadata or {}).get("turn_id") for s in tool_steps(trace)]
    assert None not in turns
    assert len(set(turns)) == len(turns)  # one tool per model turn in this run
