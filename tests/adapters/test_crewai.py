"""The `crewai` adapter against real CrewAI 1.15.30 output, checked with facts from the live run.

Fixtures: `tests/fixtures/real/crewai/<scenario>/<side>.{kickoff,events,facts}.json`, written by
`scripts/capture/crewai.py` (a real 2-agent / 2-task crew on a scripted Chat Completions
endpoint). The facts were recorded inside the tools and the endpoint, never read back from the
serialized output.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from tests.realdata import (
    SHARED,
    RealSource,
    tool_steps,
)

from agentdiff import compare
from agentdiff.errors import TraceFormatError
from agentdiff.loader import load_trace, parse_trace_data
from agentdiff.models.trace import StepStatus, StepType

CREWAI = RealSource("crewai")
SHAPES = CREWAI.shapes
CASES = CREWAI.cases()


def test_manifest_names_the_shapes_and_versions() -> None:
    manifest = CREWAI.manifest
    assert manifest["produced_by"]["crewai"] == "1.15.30"
    assert set(SHAPES) == {"kickoff", "events"}
    assert all(s["adapter"] == "crewai" and not s["emulated"] for s in manifest["shapes"].values())


@pytest.mark.parametrize(("shape", "scenario", "side"), CASES)
def test_llm_calls_and_tokens(shape: str, scenario: str, side: str) -> None:
    facts, trace = CREWAI.facts(scenario, side), CREWAI.load(shape, scenario, side)
    assert trace.total_tokens is not None
    assert trace.total_tokens.prompt_tokens == facts["prompt_tokens"]
    assert trace.total_tokens.completion_tokens == facts["completion_tokens"]
    assert trace.total_tokens.total_tokens == facts["total_tokens"]
    assert trace.total_tokens.estimated_cost_usd is None
    step_tokens = [s.tokens for s in trace.steps if s.tokens is not None]
    # one model turn per LLM call, in both shapes: a routing step (asked for tools) or a final
    # answer, each naming its model (None when the dump does not say)
    turns = [s for s in trace.steps if s.metadata is not None and "model" in s.metadata]
    assert len(turns) == facts["llm_calls"]
    assert all(s.step_type in (StepType.ROUTING, StepType.RESPONSE) for s in turns)
    assert compare(trace, trace).baseline.model_turns == facts["llm_calls"]
    if shape == "events":
        assert {(s.metadata or {})["model"] for s in turns} == {"gpt-4o-mini"}
        assert len(step_tokens) == facts["llm_calls"]  # once per call, never per tool
        assert sum(t.prompt_tokens or 0 for t in step_tokens) == facts["prompt_tokens"]
        assert sum(t.total_tokens or 0 for t in step_tokens) == facts["total_tokens"]
    else:
        # one AI message per LLM call: a routing step (asked for tools) or a final answer
        ai = [
            s
            for s in trace.steps
            if s.parent_id is not None and s.step_type in (StepType.ROUTING, StepType.RESPONSE)
        ]
        assert len(ai) == facts["llm_calls"]
        assert step_tokens == []  # CrewOutput messages carry no per-call usage


@pytest.mark.parametrize(("shape", "scenario", "side"), CASES)
def test_structure_parents_and_order(shape: str, scenario: str, side: str) -> None:
    trace = CREWAI.load(shape, scenario, side)
    by_id = {s.step_id: s for s in trace.steps}
    assert [s.step_index for s in trace.steps] == list(range(len(trace.steps)))
    assert all(s.parent_id is None or s.parent_id in by_id for s in trace.steps)
    tasks = [s for s in trace.steps if s.parent_id is None]
    assert [t.name for t in tasks] == [
        "Weather Researcher/weather_research",
        "Travel Advisor/packing_advice",
    ]
    assert all(t.step_type is StepType.ROUTING for t in tasks)
    for tool in tool_steps(trace):
        parent = by_id[tool.parent_id or ""]
        role = tool.name.split("/")[0]
        assert parent.step_type is StepType.ROUTING
        assert parent.name.startswith(f"{role}/")
        assert parent.step_index < tool.step_index
        assert by_id[parent.parent_id or ""].name.startswith(f"{role}/")
        if shape == "events":
            called = [c["name"] for c in (parent.output_payload or {})["response"]]
        else:
            called = [c["name"] for c in (parent.output_payload or {})["tool_calls"]]
        assert tool.name.split("/", 1)[1] in called


@pytest.mark.parametrize(("shape", "scenario", "side"), CASES)
def test_output_name_and_timing(shape: str, scenario: str, side: str) -> None:
    facts, trace = CREWAI.facts(scenario, side), CREWAI.load(shape, scenario, side)
    assert trace.final_output == {"value": facts["final_output"]}
    if shape == "events":
        assert trace.agent_name == facts["agent_name"]
        assert trace.task_input == {"city": "Paris"}
        assert trace.total_latency_ms is not None
        assert all(s.latency_ms is not None for s in trace.steps)
        starts = [(s.metadata or {})["started_at"] for s in trace.steps]
        assert starts == sorted(starts)
    else:  # CrewOutput has no times and no crew name
        assert trace.agent_name == "Weather Researcher, Travel Advisor"
        assert all(s.latency_ms is None for s in trace.steps)


def test_reference_fixtures_detour() -> None:
    folder = SHARED / "crewai" / "extra_tool_detour"
    for name in ("{}.json", "{}.events.json"):
        base = load_trace(folder / name.format("baseline"))
        cand = load_trace(folder / name.format("candidate"))
        extra = [s.name for s in tool_steps(cand)]
        assert extra == [
            "Weather Researcher/geocode",
            "Weather Researcher/search",
            "Weather Researcher/get_weather",
            "Travel Advisor/calculator",
        ]
        assert len(tool_steps(base)) == len(extra) - 1
        assert base.final_output == cand.final_output


@pytest.mark.parametrize(
    ("shape", "damage", "where"),
    [
        (
            "kickoff",
            lambda d: d["tasks_output"][0].__setitem__("messages", "oops"),
            "tasks_output[0].messages",
        ),
        ("kickoff", lambda d: d["tasks_output"].__setitem__(1, 7), "tasks_output[1]"),
        (
            "kickoff",
            lambda d: d["tasks_output"][0].__setitem__("tool_failures", {"x": 1}),
            "tasks_output[0].tool_failures",
        ),
        ("events", lambda d: d["events"][5].__setitem__("event_data", []), "events[5].event_data"),
        ("events", lambda d: d["events"].__setitem__(3, "x"), "events[3]"),
    ],
)
def test_garbled_document_names_file_and_path(
    shape: str, damage: Any, where: str, tmp_path: Path
) -> None:
    data = json.loads(CREWAI.path(shape, "loop", "baseline").read_text())
    damage(data)
    broken = tmp_path / f"garbled.{shape}.json"
    broken.write_text(json.dumps(data))
    with pytest.raises(TraceFormatError) as info:
        load_trace(broken, adapter_name="crewai")
    message = str(info.value)
    assert str(broken) in message
    assert where in message
    assert "\n" not in message


def _kickoff(scenario: str = "identical", side: str = "baseline") -> dict[str, Any]:
    data: dict[str, Any] = json.loads(CREWAI.path("kickoff", scenario, side).read_text())
    return data


def test_tool_failure_marks_a_normal_looking_message_as_error() -> None:
    data = _kickoff()
    data["tasks_output"][0]["tool_failures"] = [
        {
            "tool_name": "get_weather",
            "tool_args": {"latitude": 48.8566, "longitude": 2.3522},
            "failure": {"message": "stale data", "reason": "validation", "code": "Stale"},
        }
    ]
    trace = parse_trace_data(data)
    failed = [s for s in tool_steps(trace) if s.status is StepStatus.ERROR]
    assert [(s.name, s.error_message) for s in failed] == [
        ("Weather Researcher/get_weather", "stale data")
    ]
    assert failed[0].output_payload is not None  # the message text is kept as it was


def test_tool_failure_prefers_the_call_whose_output_shows_it() -> None:
    data = _kickoff("error_retry", "candidate")
    messages = data["tasks_output"][0]["messages"]  # move the failed call after the good one
    assert "Error executing tool" in messages[5]["content"]
    messages[4:6], messages[6:8] = messages[6:8], messages[4:6]
    trace = parse_trace_data(data)
    weather = [s for s in tool_steps(trace) if s.name.endswith("/get_weather")]
    assert [s.status for s in weather] == [StepStatus.SUCCESS, StepStatus.ERROR]


def test_export_without_messages_degrades_to_one_step_per_task() -> None:
    data = _kickoff("error_retry", "candidate")
    for task in data["tasks_output"]:
        del task["messages"]
    trace = parse_trace_data(data, "crewai")
    assert [(s.name, s.step_type, s.parent_id) for s in trace.steps] == [
        ("Weather Researcher/weather_research", StepType.ROUTING, None),
        ("Weather Researcher/get_weather", StepType.TOOL_CALL, "task-0"),
        ("Travel Advisor/packing_advice", StepType.ROUTING, None),
    ]
    assert trace.steps[1].status is StepStatus.ERROR
    assert [s.step_index for s in trace.steps] == [0, 1, 2]
    assert trace.total_tokens is not None
    facts = CREWAI.facts("error_retry", "candidate")
    assert trace.total_tokens.total_tokens == facts["total_tokens"]


def test_untracked_usage_is_unknown_not_zero() -> None:
    data = _kickoff()
    data["token_usage"] = {
        "total_tokens": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "successful_requests": 0,
    }
    assert parse_trace_data(data).total_tokens is None
    del data["token_usage"]
    assert parse_trace_data(data).total_tokens is None


def test_kickoff_trace_id_is_stable() -> None:
    data = _kickoff()
    assert parse_trace_data(data).trace_id == parse_trace_data(copy.deepcopy(data)).trace_id
