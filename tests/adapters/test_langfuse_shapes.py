"""Langfuse shapes and fields beyond the contract test: the `{trace, observations}` download,
current observation types, the tool-name rule's limits, costs and latency where they live."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from tests.realdata import RealSource

from agentdiff.loader import parse_trace_data, read_document
from agentdiff.models.trace import AgentTrace, StepType

LF = RealSource("langfuse")


def _api(scenario: str = "detour", side: str = "candidate") -> dict[str, Any]:
    doc: dict[str, Any] = copy.deepcopy(read_document(LF.path("json", scenario, side)))
    return doc


def _summary(trace: AgentTrace) -> list[tuple[str, str, Any]]:
    return [(s.step_type.value, s.name, s.input_payload) for s in trace.steps]


def test_the_download_puts_observations_beside_the_trace() -> None:
    raw = read_document(LF.path("download", "detour", "candidate"))
    assert set(raw) == {"trace", "observations"}
    assert "observations" not in raw["trace"]
    download = LF.load("download", "detour", "candidate")
    api = LF.load("json", "detour", "candidate")  # another run of the same script
    assert _summary(download) == _summary(api)
    assert download.total_tokens == api.total_tokens
    assert download.agent_name == api.agent_name == "weather-assistant"
    assert (download.metadata or {})["langfuse"]["sessionId"] == "sess-detour"


@pytest.mark.parametrize(
    ("langfuse_type", "step_type"),
    [
        ("AGENT", StepType.ROUTING),
        ("CHAIN", StepType.ROUTING),
        ("TOOL", StepType.TOOL_CALL),
        ("RETRIEVER", StepType.TOOL_CALL),
        ("EMBEDDING", StepType.LLM_CALL),
        ("GENERATION", StepType.LLM_CALL),
        ("GUARDRAIL", StepType.THOUGHT),
        ("EVALUATOR", StepType.THOUGHT),
        ("EVENT", StepType.THOUGHT),
    ],
)
def test_current_observation_types_map_directly(langfuse_type: str, step_type: StepType) -> None:
    doc = _api()
    compose = next(o for o in doc["observations"] if o["name"] == "compose-answer")
    compose["type"] = langfuse_type
    step = next(s for s in parse_trace_data(doc).steps if s.name == "compose-answer")
    assert step.step_type is step_type
    assert (step.metadata or {})["langfuse_type"] == langfuse_type


def test_the_tool_name_rule_is_for_plain_spans_only() -> None:
    """A SPAN named like a tool is a tool call, unless its children are the tool calls."""
    doc = _api()
    agent = next(o for o in doc["observations"] if o["type"] == "AGENT")
    agent["type"], agent["name"] = "SPAN", "running 3 tools"
    compose = next(o for o in doc["observations"] if o["name"] == "compose-answer")
    compose["type"], compose["name"] = "SPAN", "format_tool_output"
    trace = parse_trace_data(doc)
    types = {s.name: s.step_type for s in trace.steps}
    assert types["running 3 tools"] is StepType.ROUTING  # its children are TOOL observations
    assert types["format_tool_output"] is StepType.TOOL_CALL  # a plain span named like a tool


def _generation_costs(doc: dict[str, Any]) -> list[float | None]:
    trace = parse_trace_data(doc)
    return [
        s.tokens.estimated_cost_usd if s.tokens else None
        for s in trace.steps
        if s.step_type is StepType.LLM_CALL
    ]


def _strip(doc: dict[str, Any], *keys: str, usage_keys: tuple[str, ...] = ()) -> None:
    for obs in doc["observations"]:
        for key in keys:
            obs.pop(key, None)
        for key in usage_keys:
            (obs.get("usage") or {}).pop(key, None)


def test_costs_are_read_where_they_live() -> None:
    doc = _api()
    expected = [o["costDetails"]["total"] for o in doc["observations"] if o["type"] == "GENERATION"]
    assert _generation_costs(doc) == pytest.approx(expected)
    _strip(doc, "costDetails")
    assert _generation_costs(doc) == pytest.approx(expected)  # calculatedTotalCost
    _strip(doc, "calculatedTotalCost")
    for obs in doc["observations"]:
        if obs["type"] == "GENERATION":
            obs["totalCost"] = obs["usage"]["totalCost"]
    assert _generation_costs(doc) == pytest.approx(expected)  # totalCost
    _strip(doc, "totalCost")
    assert _generation_costs(doc) == pytest.approx(expected)  # legacy usage.totalCost
    _strip(doc, usage_keys=("totalCost",))
    assert _generation_costs(doc) == pytest.approx(expected)  # usage.inputCost + outputCost
    _strip(doc, usage_keys=("inputCost", "outputCost"))
    assert _generation_costs(doc) == [None, None, None, None]


def test_an_empty_cost_details_falls_back_to_the_other_costs() -> None:
    doc = _api()
    for obs in doc["observations"]:
        obs["costDetails"] = {}
    assert None not in _generation_costs(doc)


def test_latency_in_seconds_is_used_where_times_are_missing() -> None:
    doc = _api()
    tool = next(o for o in doc["observations"] if o["type"] == "TOOL")
    tool.pop("endTime")
    tool["latency"] = 0.25  # seconds, as the API documents it
    step = next(s for s in parse_trace_data(doc).steps if s.step_id == tool["id"])
    assert step.latency_ms == 250.0


def test_cache_and_other_usage_detail_goes_to_metadata() -> None:
    trace = LF.load("json", "identical", "baseline")
    llm = [s for s in trace.steps if s.step_type is StepType.LLM_CALL]
    assert all((s.metadata or {})["usage"] == {"input_cached_tokens": 0} for s in llm)
    assert all((s.metadata or {})["model"] == "gpt-4o-mini-2024-07-18" for s in llm)
    otlp = LF.load("otlp", "identical", "baseline")
    assert [
        (s.metadata or {}).get("usage") for s in otlp.steps if s.step_type is StepType.LLM_CALL
    ] == [{"input_cached_tokens": 0}] * len(llm)
