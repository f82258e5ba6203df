"""`metadata["turn_id"]`: the adapters group the tool calls one model message issued.

The `parallel` scenario of each captured source is a fan-out recorded in the live run: one model
message asked for two tools at once (the candidate lists them in the other order), and the facts
record, per model message, the calls it issued (`model_messages`). Every shape of every such
source must put exactly those calls in one turn, and the engine must then read the swap as a
`reorder` inside that turn, never as an alternate route.
"""

from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from tests.realdata import (
    SCENARIOS,
    SIDES,
    RealPair,
    document_id,
    load,
    real_pairs,
    real_sources,
    tool_steps,
)

from agentdiff import compare
from agentdiff.adapters._kit.turns import mark_turns, tool_call_names
from agentdiff.loader import parse_trace_data, read_document
from agentdiff.models.report import Op
from agentdiff.models.trace import AgentTrace, StepType, TraceStep

PAIRS = real_pairs("parallel")
FILES = [(pair, side) for pair in PAIRS for side in SIDES]


def _turns(trace: AgentTrace) -> list[list[str]]:
    """The tool names of each turn (in the order the turns start), names sorted."""
    groups: dict[Any, list[str]] = {}
    for step in tool_steps(trace):
        turn = (step.metadata or {}).get("turn_id")
        groups.setdefault(turn if turn is not None else id(step), []).append(step.name)
    return [sorted(names) for names in groups.values()]


def _issued(facts: dict[str, Any]) -> list[list[str]]:
    return [sorted(names) for names in facts["model_messages"] if names]


def _path(pair: RealPair, side: str) -> Path:
    return pair.baseline if side == "baseline" else pair.candidate


def test_the_fan_out_was_captured_for_the_span_and_message_sources() -> None:
    sources = {pair.source for pair in PAIRS}
    assert sources >= {"langfuse", "langgraph", "langsmith", "openai_agents", "openinference"}
    for pair in PAIRS:
        first = pair.facts("baseline")["model_messages"][0]
        assert len(first) == 2
        assert pair.facts("candidate")["model_messages"][0] == first[::-1]


@pytest.mark.parametrize(
    ("pair", "side"), FILES, ids=[f"{document_id(_path(p, s))}" for p, s in FILES]
)
def test_each_model_message_is_one_turn(pair: RealPair, side: str) -> None:
    trace = load(_path(pair, side))
    assert all((s.metadata or {}).get("turn_id") is not None for s in tool_steps(trace))
    assert _turns(trace) == _issued(pair.facts(side))


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p.id)
def test_a_swapped_fan_out_is_a_reorder_not_a_detour(pair: RealPair) -> None:
    report = compare(load(pair.baseline), load(pair.candidate))
    ops = Counter(entry.op for entry in report.alignment)
    assert ops[Op.REORDER] >= 1
    assert ops[Op.INSERT] == ops[Op.DELETE] == 0
    assert report.first_divergence is None


WEATHER_SOURCES = ("langfuse", "langgraph", "langsmith", "openai_agents", "openinference")
STANDARD = [
    source.path(shape, scenario, side)
    for source in real_sources()
    if source.name in WEATHER_SOURCES
    for shape in source.shapes
    for scenario in SCENARIOS
    for side in SIDES
]


@pytest.mark.parametrize("path", STANDARD, ids=document_id)
def test_every_tool_call_of_the_standard_runs_has_its_own_turn(path: Path) -> None:
    """In the five standard scenarios each model message asked for one call."""
    if not path.exists():
        pytest.skip("shape not captured for this scenario")
    trace = load(path)
    turns = [(s.metadata or {}).get("turn_id") for s in tool_steps(trace)]
    assert None not in turns
    assert len(set(turns)) == len(turns)


# ---------------------------------------------------------------- without the SDK's turn spans


def _without_turn_spans(document: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI Agents export as SDK versions without `task`/`turn` spans write it."""
    spans = document["spans"]
    kinds = {s["id"]: (s["span_data"].get("data") or {}).get("sdk_span_type") for s in spans}
    parents = {s["id"]: s["parent_id"] for s in spans}

    def kept_parent(span_id: str | None) -> str | None:
        while span_id is not None and kinds.get(span_id) in ("task", "turn"):
            span_id = parents[span_id]
        return span_id

    kept = [
        {**s, "parent_id": kept_parent(s["parent_id"])}
        for s in spans
        if kinds[s["id"]] not in ("task", "turn")
    ]
    return {**document, "spans": kept}


@pytest.mark.parametrize("side", SIDES)
def test_openai_agents_without_turn_spans_takes_the_generation_before(side: str) -> None:
    (pair,) = [p for p in PAIRS if p.source == "openai_agents" and p.shape == "export"]
    document = _without_turn_spans(read_document(_path(pair, side)))
    assert "turn" not in orjson.dumps(document).decode().replace("turn_", "")
    trace = parse_trace_data(document, "openai_agents")
    assert _turns(trace) == _issued(pair.facts(side))
    generations = {s.step_id for s in trace.steps if s.step_type is StepType.LLM_CALL}
    assert {s.metadata["turn_id"] for s in tool_steps(trace) if s.metadata} <= generations


# ---------------------------------------------------------------- Langfuse: the generation's word


def _langfuse(side: str) -> tuple[RealPair, dict[str, Any]]:
    (pair,) = [p for p in PAIRS if p.source == "langfuse" and p.shape == "json"]
    return pair, copy.deepcopy(read_document(_path(pair, side)))


def test_langfuse_a_tool_the_generation_did_not_ask_for_is_not_in_its_turn() -> None:
    _, document = _langfuse("baseline")
    first_tool = next(o for o in document["observations"] if o["type"] == "TOOL")
    first_tool["name"] = "send_email"
    trace = parse_trace_data(document, "langfuse")
    email = next(s for s in tool_steps(trace) if s.name == "send_email")
    assert (email.metadata or {}).get("turn_id") is None
    others = [s for s in tool_steps(trace) if s.name != "send_email"]
    assert all((s.metadata or {}).get("turn_id") for s in others)


def test_langfuse_a_generation_that_asked_for_nothing_starts_no_turn() -> None:
    _, document = _langfuse("baseline")
    generations = [o for o in document["observations"] if o["type"] == "GENERATION"]
    generations[0]["output"] = {"role": "assistant", "content": "No tools needed."}
    trace = parse_trace_data(document, "langfuse")
    fan_out = [s for s in tool_steps(trace) if s.name in ("geocode", "web_search")]
    assert [(s.metadata or {}).get("turn_id") for s in fan_out] == [None, None]


# ---------------------------------------------------------------- the shared helper


@pytest.mark.parametrize(
    ("output", "names"),
    [
        (
            {"role": "assistant", "tool_calls": [{"name": "a"}, {"function": {"name": "b"}}]},
            ["a", "b"],
        ),
        ({"role": "assistant", "content": "done"}, []),
        ({"role": "assistant", "content": None, "tool_calls": None}, []),
        ({"messages": [{"role": "user"}, {"role": "assistant", "tool_calls": []}]}, []),
        ([{"type": "message"}, {"type": "function_call", "name": "f"}], ["f"]),
        ({"tool_calls": [{"id": "x"}]}, None),
        ("plain text", None),
        ({"value": 3}, None),
        (None, None),
    ],
)
def test_tool_call_names(output: Any, names: list[str] | None) -> None:
    assert tool_call_names(output) == names


def _step(step_id: str, step_type: StepType, name: str, parent: str | None = "agent") -> TraceStep:
    return TraceStep(
        step_id=step_id, parent_id=parent, step_index=0, step_type=step_type, name=name
    )


def test_mark_turns_keeps_given_turns_and_counts_what_was_asked() -> None:
    llm = _step("m1", StepType.LLM_CALL, "model")
    llm.output_payload = {"role": "assistant", "tool_calls": [{"name": "a"}]}
    given = _step("t0", StepType.TOOL_CALL, "a")
    given.metadata = {"turn_id": "elsewhere"}
    first, second = _step("t1", StepType.TOOL_CALL, "a"), _step("t2", StepType.TOOL_CALL, "a")
    orphan = _step("t3", StepType.TOOL_CALL, "a", parent="other")
    mark_turns([llm, given, first, second, orphan])
    assert given.metadata == {"turn_id": "elsewhere"}
    assert first.metadata == {"turn_id": "m1"}
    assert second.metadata is None  # the message asked for one `a`
    assert orphan.metadata is None  # no model message under its parent
