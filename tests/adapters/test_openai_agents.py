"""The openai_agents adapter against real SDK captures (scripts/capture/openai_agents.py) and
the facts recorded from the live runs."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from tests.realdata import SHARED, RealSource, llm_steps, other_documents, tool_steps

from agentdiff.adapters.openai_agents import OpenAIAgentsAdapter
from agentdiff.errors import MultipleTracesError, TraceFormatError
from agentdiff.loader import load_trace, parse_trace_data, read_document
from agentdiff.models.trace import StepType

AGENTS = RealSource("openai_agents")
SHAPES = AGENTS.shapes
CASES = AGENTS.cases()


def test_manifest_names_every_shape_and_version() -> None:
    manifest = AGENTS.manifest
    assert manifest["produced_by"]["openai-agents"] == "0.24.0"
    assert {shape: spec["file"] for shape, spec in manifest["shapes"].items()} == {
        "export": "<side>.json",
        "ingest": "<side>.ingest.json",
        "trace_object": "<side>.trace_object.json",
    }
    assert all(s["adapter"] == "openai_agents" for s in manifest["shapes"].values())
    # the trace object holding its spans is assembled from the SDK's exports
    assert [n for n, s in manifest["shapes"].items() if s["emulated"]] == ["trace_object"]


@pytest.mark.parametrize(("shape", "scenario", "side"), CASES)
def test_llm_calls_and_tokens_match_the_live_run(shape: str, scenario: str, side: str) -> None:
    facts, trace = AGENTS.facts(scenario, side), AGENTS.load(shape, scenario, side)
    llms = llm_steps(trace)
    assert len(llms) == facts["llm_calls"]
    assert trace.total_tokens is not None
    assert trace.total_tokens.prompt_tokens == facts["prompt_tokens"]
    assert trace.total_tokens.completion_tokens == facts["completion_tokens"]
    assert trace.total_tokens.total_tokens == facts["total_tokens"]
    assert trace.total_tokens.estimated_cost_usd is None  # the SDK reports no cost
    # tokens sit on LLM steps only, so nothing is counted twice
    assert all(s.tokens is None for s in trace.steps if s.step_type is not StepType.LLM_CALL)
    assert sum(s.tokens.total_tokens for s in llms if s.tokens) == facts["total_tokens"]


def test_ingest_response_spans_take_their_turn_usage() -> None:
    export = AGENTS.load("export", "detour", "candidate")
    ingest = AGENTS.load("ingest", "detour", "candidate")
    response = next(s for s in llm_steps(ingest) if s.name == "response")
    assert response.metadata is not None
    assert response.metadata["usage_source"] == "turn"
    assert response.tokens == next(s for s in llm_steps(export) if s.name == "response").tokens
    generation = next(s for s in llm_steps(ingest) if s.name == "gpt-4o-mini")
    assert generation.metadata is not None
    assert "usage_source" not in generation.metadata


@pytest.mark.parametrize(("shape", "scenario", "side"), CASES)
def test_tree_order_and_timing(shape: str, scenario: str, side: str) -> None:
    facts, trace = AGENTS.facts(scenario, side), AGENTS.load(shape, scenario, side)
    steps = trace.steps
    ids = {s.step_id for s in steps}
    by_id = trace.step_map()
    assert [s.step_index for s in steps] == list(range(len(steps)))
    assert all(s.parent_id is None or s.parent_id in ids for s in steps)
    starts = [s.metadata["started_at"] for s in steps if s.metadata]
    assert len(starts) == len(steps)
    assert starts == sorted(starts)
    assert all(s.latency_ms is not None for s in steps)
    assert trace.total_latency_ms is not None
    assert trace.total_latency_ms >= max(s.latency_ms or 0 for s in steps)
    for tool in tool_steps(trace):  # tools hang under the agent that ran them
        assert tool.parent_id is not None
        assert by_id[tool.parent_id].name == "Weather Agent"
        assert by_id[tool.parent_id].step_type is StepType.ROUTING
    roots = [s.name for s in steps if s.parent_id is None]
    assert roots == ["Triage Agent", "Weather Agent"]  # the task span is not a step
    handoff = next(s for s in steps if s.name.startswith("handoff"))
    assert handoff.name == "handoff Triage Agent → Weather Agent"
    assert not any(s.name in ("task", "turn") for s in steps)
    assert trace.agent_name == facts["agent_name"]
    assert trace.final_output == {"output": facts["final_output"]}
    assert trace.task_input == {"input": "What's the weather in Paris right now, in Fahrenheit?"}
    assert trace.metadata is not None
    assert trace.metadata["skipped_spans"] == {"task": 1, "turn": facts["llm_calls"]}


def test_tool_outputs_are_data_not_python_reprs() -> None:
    geocode = tool_steps(AGENTS.load("export", "identical", "baseline"))[0]
    assert geocode.output_payload == {
        "latitude": 48.8566,
        "longitude": 2.3522,
        "display_name": "Paris, Île-de-France, France",
    }


def test_reference_detour_fixture() -> None:
    folder = SHARED / "openai_agents" / "extra_tool_detour"
    export, ingest = (
        load_trace(folder / "candidate.json"),
        load_trace(folder / "candidate.ingest.json"),
    )
    for trace in (export, ingest):
        assert [t.name for t in tool_steps(trace)] == [
            "geocode",
            "search",
            "get_weather",
            "calculator",
        ]
        assert len(llm_steps(trace)) == 6
        assert trace.total_tokens == export.total_tokens
    assert export.total_tokens is not None
    assert export.total_tokens.total_tokens == 3619


# ---------------------------------------------------------------- unknown stays unknown


def test_missing_usage_stays_unknown() -> None:
    data = read_document(AGENTS.path("export", "identical", "baseline"))
    for span in data["spans"]:
        span["span_data"].pop("usage", None)
        if isinstance(span["span_data"].get("data"), dict):
            span["span_data"]["data"].pop("usage", None)
    trace = parse_trace_data(data)
    assert all(s.tokens is None for s in trace.steps)
    assert trace.total_tokens is None


def test_unknown_and_other_span_types_never_crash() -> None:
    data = read_document(AGENTS.path("export", "identical", "baseline"))
    template = data["spans"][0]
    extra = [
        ("future_kind", {"type": "future_kind", "payload": 1}, StepType.THOUGHT),
        ("mcp_tools", {"type": "mcp_tools", "server": "fs", "result": ["read"]}, StepType.ROUTING),
        (
            "whisper-1",
            {
                "type": "transcription",
                "model": "whisper-1",
                "input": {"data": "AAAA", "format": "pcm"},
                "output": "hi",
            },
            StepType.LLM_CALL,
        ),
        (
            "input_guard",
            {"type": "guardrail", "name": "input_guard", "triggered": False},
            StepType.ROUTING,
        ),
    ]
    for i, (_, span_data, _) in enumerate(extra):
        span = copy.deepcopy(template)
        span.update(id=f"span_extra{i}", span_data=span_data, error=None)
        data["spans"].append(span)
    steps = {s.step_id: s for s in parse_trace_data(data).steps}
    for i, (name, _, step_type) in enumerate(extra):
        assert (steps[f"span_extra{i}"].name, steps[f"span_extra{i}"].step_type) == (
            name,
            step_type,
        )
    assert steps["span_extra2"].input_payload == {"format": "pcm"}  # the audio blob is dropped


# ---------------------------------------------------------------- several traces, item lists


def _two_trace_body() -> dict[str, Any]:
    first = read_document(AGENTS.path("ingest", "identical", "baseline"))["data"]
    second = read_document(AGENTS.path("ingest", "detour", "candidate"))["data"]
    return {"data": first + second}


def test_multi_trace_ingest_body_needs_a_trace_id(tmp_path: Path) -> None:
    body = _two_trace_body()
    ids = OpenAIAgentsAdapter.trace_ids(body)
    assert len(ids) == 2
    path = tmp_path / "two.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    with pytest.raises(MultipleTracesError, match=r"two\.json"):
        load_trace(path)
    picked = load_trace(path, trace_id=ids[1])
    assert picked.trace_id == ids[1]
    assert [t.name for t in tool_steps(picked)] == [
        "geocode",
        "search",
        "get_weather",
        "calculator",
    ]


def test_json_lines_of_exported_items(tmp_path: Path) -> None:
    items = read_document(AGENTS.path("ingest", "loop", "candidate"))["data"]
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(json.dumps(i) for i in items) + "\n", encoding="utf-8")
    trace = load_trace(path)
    assert trace.metadata is not None
    assert trace.metadata["source_format"] == "openai_agents"
    assert [t.name for t in tool_steps(trace)].count("get_weather") == 4


# ---------------------------------------------------------------- detection and bad input


def test_detection_does_not_claim_other_formats() -> None:
    others = other_documents("openai_agents")
    assert others, "expected fixtures of other sources to check against"
    for path in others:
        assert not OpenAIAgentsAdapter.detect(read_document(path)), path
    langfuse_v2 = {"data": [{"id": "o1", "traceId": "t1", "type": "GENERATION"}]}
    assert not OpenAIAgentsAdapter.detect(langfuse_v2)
    assert not OpenAIAgentsAdapter.detect({"data": []})
    assert not OpenAIAgentsAdapter.detect([1, 2])


@pytest.mark.parametrize(
    ("shape", "broken", "where"),
    [
        ("export", lambda d: d["spans"][2].pop("id"), "spans[2].id"),
        ("export", lambda d: d["spans"][1].update(span_data="x"), "spans[1].span_data"),
        ("export", lambda d: d.update(spans={"a": 1}), "spans: expected a list"),
        ("ingest", lambda d: d["data"][3].pop("id"), "data[3].id"),
    ],
)
def test_malformed_document_names_the_json_path(
    shape: str, broken: Any, where: str, tmp_path: Path
) -> None:
    data = read_document(AGENTS.path(shape, "identical", "baseline"))
    broken(data)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TraceFormatError) as info:
        load_trace(path, adapter_name="openai_agents")
    assert where in str(info.value)
    assert "broken.json" in str(info.value)


def _run_spans() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    document = read_document(AGENTS.path("export", "error_retry", "baseline"))
    assert isinstance(document, dict)
    return document, document["spans"]


def _named(spans: list[dict[str, Any]], name: str, turn: int | None = None) -> dict[str, Any]:
    return next(
        s
        for s in spans
        if s["span_data"].get("name") == name
        and (turn is None or s["span_data"]["data"]["turn"] == turn)
    )


def _guardrail(parent: dict[str, Any], name: str) -> dict[str, Any]:
    """A guardrail span as the SDK writes one (`GuardrailSpanData`: name, triggered)."""
    return {
        "object": "trace.span",
        "id": f"span_{name}",
        "trace_id": parent["trace_id"],
        "parent_id": parent["id"],
        "started_at": parent["started_at"],
        "ended_at": parent["started_at"],
        "span_data": {"type": "guardrail", "name": name, "triggered": True},
        "error": None,
    }


def test_an_input_guardrail_tripwire_on_the_turn_span_fails_the_guardrail_step() -> None:
    """The SDK runs input guardrails inside the turn span and attaches the tripwire error to it
    (run_input_guardrails: attach_error_to_current_span); turn spans are no steps."""
    document, spans = _run_spans()
    turn = copy.deepcopy(_named(spans, "turn", turn=1))
    turn["error"] = {"message": "Guardrail tripwire triggered", "data": {"guardrail": "homework"}}
    kept = [_named(spans, "task"), _named(spans, "Triage Agent"), turn]
    document = {**document, "spans": [*kept, _guardrail(turn, "homework")]}
    trace = parse_trace_data(document)
    failed = [s for s in trace.steps if s.status.value == "error"]
    assert [(s.name, s.error_message) for s in failed] == [
        ("homework", "Guardrail tripwire triggered")
    ]


def test_a_turn_error_without_a_tripped_guardrail_goes_to_the_agent_step() -> None:
    document, spans = _run_spans()
    turn = copy.deepcopy(_named(spans, "turn", turn=1))
    turn["error"] = {"message": "Guardrail tripwire triggered", "data": {"guardrail": "homework"}}
    document = {**document, "spans": [_named(spans, "task"), _named(spans, "Triage Agent"), turn]}
    failed = [s for s in parse_trace_data(document).steps if s.status.value == "error"]
    assert [(s.name, s.error_message) for s in failed] == [
        ("Triage Agent", "Guardrail tripwire triggered (guardrail: homework)")
    ]


def test_an_agent_error_names_its_data_and_an_output_guardrail_that_tripped_failed() -> None:
    document, spans = _run_spans()
    spans = copy.deepcopy(spans)
    agent = _named(spans, "Weather Agent")
    agent["error"] = {"message": "Max turns exceeded", "data": {"max_turns": 3}}
    spans.append(_guardrail(agent, "no_medical_advice"))
    trace = parse_trace_data({**document, "spans": spans})
    by_name = {s.name: s for s in trace.steps}
    assert by_name["Weather Agent"].error_message == "Max turns exceeded (max_turns: 3)"
    assert by_name["no_medical_advice"].status.value == "error"
