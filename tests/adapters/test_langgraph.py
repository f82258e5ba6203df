"""The `langgraph` adapter against real LangGraph output and the facts recorded during each run.

Fixtures: tests/fixtures/real/langgraph/ (scripts/capture/langchain.py). Every shape of every
scenario and side is loaded by auto-detection and by name and checked against `facts.json`,
which the capture recorded inside the tools and the scripted model, not from the serialized trace.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.realdata import SHARED, RealSource, tool_steps

from agentdiff.adapters.langgraph import LangGraphAdapter
from agentdiff.errors import TraceFormatError
from agentdiff.loader import load_trace
from agentdiff.models.trace import StepType

LANGGRAPH = RealSource("langgraph")
MANIFEST = LANGGRAPH.manifest
SHAPES = LANGGRAPH.shapes
NO_USAGE_SHAPES = {"openai"}  # convert_to_openai_messages drops usage_metadata
TIMED_SHAPES = {"state", "checkpoint", "channel_values", "debug"}  # carry created_at / ts
CASES = LANGGRAPH.cases()


def test_manifest_covers_every_shape_and_version() -> None:
    assert MANIFEST["source"] == "langgraph"
    assert set(SHAPES) == {
        "messages",
        "lc_dumps",
        "model_dump",
        "openai",
        "state",
        "checkpoint",
        "channel_values",
        "debug",
    }
    assert all(spec["adapter"] == "langgraph" for spec in MANIFEST["shapes"].values())
    assert MANIFEST["produced_by"]["langgraph"].startswith("1.2.")
    assert MANIFEST["produced_by"]["langchain-core"].startswith("1.8.")


@pytest.mark.parametrize(("shape", "scenario", "side"), CASES)
def test_llm_turns_answer_and_agent(shape: str, scenario: str, side: str) -> None:
    trace, fact = LANGGRAPH.load(shape, scenario, side), LANGGRAPH.facts(scenario, side)
    turns = [s for s in trace.steps if s.step_type in (StepType.ROUTING, StepType.RESPONSE)]
    assert len(turns) == fact["llm_calls"]
    assert [s.step_type for s in trace.steps].count(StepType.RESPONSE) == 1
    assert trace.steps[-1].step_type is StepType.RESPONSE
    assert trace.final_output == {"value": fact["final_output"]}
    assert trace.agent_name == fact["agent_name"]
    assert "Paris" in trace.task_input["value"]


@pytest.mark.parametrize(("shape", "scenario", "side"), CASES)
def test_tokens_counted_once_per_ai_message(shape: str, scenario: str, side: str) -> None:
    trace, fact = LANGGRAPH.load(shape, scenario, side), LANGGRAPH.facts(scenario, side)
    if shape in NO_USAGE_SHAPES:
        assert trace.total_tokens is None
        assert all(s.tokens is None for s in trace.steps)
        return
    expected = (fact["prompt_tokens"], fact["completion_tokens"], fact["total_tokens"])
    total = trace.total_tokens
    assert total is not None
    assert (total.prompt_tokens, total.completion_tokens, total.total_tokens) == expected
    per_step = [s.tokens for s in trace.steps if s.tokens is not None]
    assert len(per_step) == fact["llm_calls"]
    assert sum(t.total_tokens or 0 for t in per_step) == fact["total_tokens"]
    assert total.estimated_cost_usd is None
    assert all(s.tokens is None for s in tool_steps(trace))


@pytest.mark.parametrize(("shape", "scenario", "side"), CASES)
def test_parents_order_and_timing(shape: str, scenario: str, side: str) -> None:
    trace = LANGGRAPH.load(shape, scenario, side)
    steps = trace.step_map()
    assert [s.step_index for s in trace.steps] == list(range(len(trace.steps)))
    for step in tool_steps(trace):
        parent = steps[step.parent_id or ""]
        assert parent.step_type is StepType.ROUTING
        assert step.name in parent.name.split(",")
        assert parent.step_index < step.step_index
    assert all(s.parent_id is None for s in trace.steps if s.step_type is not StepType.TOOL_CALL)
    assert "warnings" not in (trace.metadata or {})
    if shape == "debug":  # per-node timestamps: each step has its node's run time
        assert all(s.latency_ms is not None and s.latency_ms >= 0 for s in trace.steps)
        assert trace.total_latency_ms is not None
        assert trace.total_latency_ms >= max(s.latency_ms or 0 for s in trace.steps)
    else:  # messages carry no per-step times: latency stays unknown, never invented
        assert all(s.latency_ms is None for s in trace.steps)
        assert trace.total_latency_ms is None
    assert ("created_at" in (trace.metadata or {})) is (shape in TIMED_SHAPES)


def test_thread_id_is_the_trace_id_where_the_shape_has_one() -> None:
    state = LANGGRAPH.load("state", "detour", "candidate")
    snapshot = json.loads(LANGGRAPH.path("state", "detour", "candidate").read_text())
    assert state.trace_id == snapshot["config"]["configurable"]["thread_id"]
    assert LANGGRAPH.load("checkpoint", "detour", "candidate").trace_id == state.trace_id
    # message lists have no thread: a stable hash of the message ids, equal across serializations
    ids = {
        LANGGRAPH.load(shape, "detour", "candidate").trace_id
        for shape in ("messages", "lc_dumps", "model_dump")
    }
    assert len(ids) == 1
    assert ids.pop().startswith("langgraph-")


@pytest.mark.parametrize(
    "folder",
    ["langgraph_messages", "langgraph_lc_dumps", "langgraph_checkpoint", "langgraph_state"],
)
def test_shared_reference_fixtures(folder: str) -> None:
    path = SHARED / folder / "extra_tool_detour" / "candidate.json"
    trace = load_trace(path)
    assert trace.metadata is not None
    assert trace.metadata["source_format"] == "langgraph"
    assert [s.name for s in tool_steps(trace)] == ["geocode", "web_search", "get_weather"]
    assert trace.total_tokens is not None
    assert trace.total_tokens.total_tokens == 1860


def test_detect_does_not_claim_canonical_json() -> None:
    canonical = LANGGRAPH.load("messages", "detour", "candidate").model_dump(mode="json")
    assert not LangGraphAdapter.detect(canonical)


def _garble(data: Any) -> Any:
    """Replace the second message of the conversation (wherever it sits) by a number."""
    if isinstance(data, list) and data and data[0].get("type") == "checkpoint":  # debug stream
        last = max(i for i, e in enumerate(data) if e["type"] == "checkpoint")
        return [*data[:last], {**data[last], "payload": _garble(data[last]["payload"])}]
    if isinstance(data, list):
        return [data[0], 42, *data[2:]]
    for key in ("checkpoint", "values", "channel_values"):
        if key in data:
            return {**data, key: _garble(data[key])}
    return {**data, "messages": _garble(data["messages"])}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_garbled_message_names_file_and_json_path(shape: str, tmp_path: Path) -> None:
    source = LANGGRAPH.path(shape, "loop", "baseline")
    broken = tmp_path / source.name
    shutil.copy(source, broken)
    broken.write_text(json.dumps(_garble(json.loads(source.read_text()))))
    with pytest.raises(TraceFormatError) as info:
        load_trace(broken, adapter_name="langgraph")
    message = str(info.value)
    assert message.startswith(str(broken))
    # a bare list is `[1]`; inside a result, state or checkpoint `...messages[1]`
    assert re.search(r": (\S*messages)?\[1\]: not a role message", message), message
    assert "\n" not in message


def test_document_without_messages_is_a_format_error() -> None:
    with pytest.raises(TraceFormatError, match="expected a message list"):
        LangGraphAdapter.from_dict({"values": {"count": 1}, "next": []})
    with pytest.raises(TraceFormatError, match="conversation is empty"):
        LangGraphAdapter.from_dict({"messages": []})
