"""The `langfuse` adapter against real Langfuse v4 SDK captures and the facts of the live runs."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from tests.realdata import (
    SHARED,
    SIDES,
    RealSource,
    llm_steps,
    tool_steps,
)

from agentdiff.adapters.langfuse import LangfuseAdapter
from agentdiff.adapters.langfuse.observations import usage_details, usage_extra
from agentdiff.diff import compare
from agentdiff.diff.pricing import DEFAULT_PRICES, estimate_cost
from agentdiff.errors import AgentDiffError, MultipleTracesError, TraceFormatError
from agentdiff.loader import load_trace, parse_trace_data, read_document
from agentdiff.models.trace import StepType

LANGFUSE = RealSource("langfuse")
MANIFEST = LANGFUSE.manifest
CASES = LANGFUSE.cases()


def test_manifest_names_real_and_emulated_shapes() -> None:
    assert MANIFEST["source"] == "langfuse"
    assert MANIFEST["produced_by"]["langfuse"].startswith("4.")
    assert MANIFEST["shapes"]["otlp"]["emulated"] is False
    assert {s for s, v in MANIFEST["shapes"].items() if v["emulated"]} == {
        "json",
        "snake",
        "v2_observations",
        "download",
    }


@pytest.mark.parametrize(("shape", "scenario", "side"), CASES)
def test_llm_calls_tokens_and_cost_match_live_facts(shape: str, scenario: str, side: str) -> None:
    trace, facts = LANGFUSE.load(shape, scenario, side), LANGFUSE.facts(scenario, side)
    llm = llm_steps(trace)
    assert len(llm) == facts["llm_calls"]
    assert all(s.tokens is not None for s in llm)
    assert all(s.tokens is None for s in trace.steps if s.step_type is not StepType.LLM_CALL)
    totals = trace.total_tokens
    assert totals is not None
    assert totals.prompt_tokens == facts["prompt_tokens"]
    assert totals.completion_tokens == facts["completion_tokens"]
    assert totals.total_tokens == facts["total_tokens"]
    assert totals.estimated_cost_usd == pytest.approx(facts["cost_usd"], rel=1e-9)


@pytest.mark.parametrize(("shape", "scenario", "side"), CASES)
def test_tree_order_timing_and_trace_fields(shape: str, scenario: str, side: str) -> None:
    trace, facts = LANGFUSE.load(shape, scenario, side), LANGFUSE.facts(scenario, side)
    steps = trace.step_map()
    assert [s.step_index for s in trace.steps] == list(range(len(trace.steps)))
    for step in trace.steps:
        assert step.parent_id is None or step.parent_id in steps
        assert step.latency_ms is not None
        assert step.metadata is not None
        assert "started_at" in step.metadata
        assert "ended_at" in step.metadata
    starts = [s.metadata["started_at"] for s in trace.steps if s.metadata]
    assert starts == sorted(starts)
    seen: set[str] = set()
    for step in trace.steps:
        assert step.parent_id is None or step.parent_id in seen
        seen.add(step.step_id)
    agents = [s for s in trace.steps if s.metadata and s.metadata["langfuse_type"] == "AGENT"]
    assert len(agents) == 1
    assert agents[0].step_type is StepType.ROUTING
    for step in trace.steps:
        if step.step_type in (StepType.TOOL_CALL, StepType.LLM_CALL):
            assert step.parent_id == agents[0].step_id
    assert trace.agent_name == facts["agent_name"]
    assert trace.final_output == {"answer": facts["final_output"]}
    assert trace.task_input["question"].startswith("What's the weather")
    assert trace.total_latency_ms is not None
    assert trace.total_latency_ms > 0


def test_all_shapes_of_one_run_agree() -> None:
    traces = [LANGFUSE.load(shape, "loop", "candidate") for shape in MANIFEST["shapes"]]
    views = [
        [(s.step_id, s.parent_id, s.step_type, s.name, s.input_payload, s.status) for s in t.steps]
        for t in traces
    ]
    assert all(v == views[0] for v in views)
    assert len({t.trace_id for t in traces}) == 1


def test_shared_reference_fixtures_load() -> None:
    folder = SHARED / "langfuse" / "extra_tool_detour"
    names = {
        "baseline": ["geocode", "get_weather", "calculator"],
        "candidate": ["geocode", "search", "get_weather", "calculator"],
    }
    for side, expected in names.items():
        for suffix in ("json", "snake.json", "v2_observations.json", "otlp.json"):
            trace = load_trace(folder / f"{side}.{suffix}")
            # the RETRIEVER observation maps to a tool call too
            assert [t.name for t in tool_steps(trace)] == ["load-user-preferences", *expected]


def test_nested_openai_usage_details_are_flattened() -> None:
    """The Langfuse SDK records OpenAI's usage as is in OTLP: nested `*_details` objects."""
    trace = load_trace(SHARED / "langfuse" / "extra_tool_detour" / "baseline.otlp.json")
    first = next(s for s in trace.steps if s.step_type == StepType.LLM_CALL)
    assert first.tokens is not None
    assert (first.tokens.prompt_tokens, first.tokens.completion_tokens) == (93, 55)
    assert first.metadata is not None
    usage = first.metadata["usage"]
    assert usage["completion_tokens_details.reasoning_tokens"] == 0
    assert usage["prompt_tokens_details.cached_tokens"] == 0
    assert not any(isinstance(v, dict) for v in usage.values())
    extra = usage_extra({"a_details": {"b": 3, "c": {"d": 4}}}, "usageDetails")
    assert extra == {"a_details.b": 3, "a_details.c.d": 4}
    with pytest.raises(TraceFormatError, match=r"usageDetails\.a_details\.b: expected a token"):
        usage_extra({"a_details": {"b": "many"}}, "usageDetails")


def test_detect_claims_every_own_shape_and_rejects_junk() -> None:
    for shape in MANIFEST["shapes"]:
        assert LangfuseAdapter.detect(read_document(LANGFUSE.path(shape, "detour", "baseline")))
    for junk in (
        {},
        [],
        {"data": []},
        {"data": [{"object": "trace", "traceId": 1, "type": 1}]},
        [{"traceId": "t", "type": "SPAN"}],
        {"resourceSpans": []},
        "text",
        3,
        None,
    ):
        assert not LangfuseAdapter.detect(junk)


def test_several_traces_in_one_v2_list_need_a_trace_id() -> None:
    first = read_document(LANGFUSE.path("v2_observations", "detour", "baseline"))["data"]
    second = read_document(LANGFUSE.path("v2_observations", "detour", "candidate"))["data"]
    data = {"data": [*first, *second], "meta": {}}
    ids = LangfuseAdapter.trace_ids(data)
    assert len(ids) == 2
    with pytest.raises(MultipleTracesError):
        parse_trace_data(data)
    picked = parse_trace_data(data, trace_id=ids[1])
    assert [t.name for t in tool_steps(picked)] == ["geocode", "web_search", "get_weather"]


def test_several_traces_in_otlp_need_a_trace_id() -> None:
    docs = [read_document(LANGFUSE.path("otlp", "loop", side)) for side in SIDES]
    ids = LangfuseAdapter.trace_ids(docs)
    assert len(ids) == 2
    with pytest.raises(MultipleTracesError):
        parse_trace_data(docs)
    picked = parse_trace_data(docs, trace_id=ids[1])
    assert [t.name for t in tool_steps(picked)] == ["geocode", *["get_weather"] * 4]


def test_observations_listed_twice_are_kept_once() -> None:
    items = read_document(LANGFUSE.path("v2_observations", "detour", "candidate"))["data"]
    trace = parse_trace_data([*items, *items[:3]])
    assert len(trace.steps) == len(items)


def test_bare_v2_list_with_naive_and_aware_timestamps() -> None:
    path = LANGFUSE.path("v2_observations", "detour", "baseline")
    items = copy.deepcopy(read_document(path)["data"])
    for i, item in enumerate(items):
        if i % 2:
            item["startTime"] = item["startTime"].replace("Z", "")
    trace = parse_trace_data(items)
    assert trace.metadata is not None
    assert trace.metadata["source_format"] == "langfuse"
    assert all(s.latency_ms is not None for s in trace.steps)


def test_unknown_observation_types_and_tool_named_spans() -> None:
    data = copy.deepcopy(read_document(LANGFUSE.path("json", "detour", "baseline")))
    data["observations"][0]["type"] = "SOMETHING_NEW"
    tool = next(o for o in data["observations"] if o["type"] == "TOOL")
    tool["type"], tool["name"] = "SPAN", "lookup_tool"
    trace = parse_trace_data(data, "langfuse")
    assert trace.steps[0].step_type is StepType.ROUTING
    assert trace.step_map()[tool["id"]].step_type is StepType.TOOL_CALL


@pytest.mark.parametrize(
    ("details", "expected"),
    [
        ({"input": 10, "output": 5, "total": 15}, (10, 5, 15)),
        ({"prompt_tokens": 7, "completion_tokens": 3}, (7, 3, 10)),
        ({"input_cached_tokens": 4, "output_reasoning_tokens": 2}, (None, None, 6)),
        ({}, (None, None, None)),
        ({"prompt_tokens": 7, "prompt_tokens_details": {"cached_tokens": 6}}, (7, None, 7)),
        ('{"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}', (1, 2, 3)),
    ],
)
def test_usage_details_keys(details: Any, expected: tuple[int | None, ...]) -> None:
    usage = usage_details(details, "usageDetails")
    found = (
        (None, None, None)
        if usage is None
        else (
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.total_tokens,
        )
    )
    assert found == expected


@pytest.mark.parametrize(
    ("shape", "breakage"),
    [
        ("json", lambda d: d["observations"].__setitem__(1, "oops")),
        ("snake", lambda d: d["observations"][2].pop("id")),
        ("v2_observations", lambda d: d["data"].__setitem__(0, 42)),
        ("otlp", lambda d: d["resourceSpans"][0]["scopeSpans"][0]["spans"][3].pop("spanId")),
    ],
)
def test_garbled_document_is_a_one_line_error_naming_it(
    shape: str, breakage: Any, tmp_path: Path
) -> None:
    source = LANGFUSE.path(shape, "detour", "candidate")
    data = read_document(source)
    breakage(data)
    broken = tmp_path / source.name
    broken.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(AgentDiffError) as info:
        load_trace(broken, adapter_name="langfuse")
    message = str(info.value)
    assert str(broken) in message
    assert "\n" not in message


def test_fixtures_hold_no_machine_paths() -> None:
    for path in LANGFUSE.folder.glob("*/*.json"):
        text = path.read_text(encoding="utf-8")
        assert str(Path(__file__).parents[3]) not in text
        assert "/home/" not in text


def _generations(document: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(document, dict):
        if document.get("type") == "GENERATION":
            found.append(document)
        for value in document.values():
            found += _generations(value)
    elif isinstance(document, list):
        for value in document:
            found += _generations(value)
    return found


def test_a_generation_that_called_another_model_is_a_change_of_model() -> None:
    """The live run's model swapped in the file: its row says so (the step name is no model)."""
    path = LANGFUSE.path("json", "detour", "baseline")
    document = read_document(path)
    swapped = copy.deepcopy(document)
    first = _generations(swapped)[0]
    before = first["model"]
    first["model"] = "gpt-4o-2024-08-06"
    report = compare(parse_trace_data(document), parse_trace_data(swapped))
    (row,) = [e for e in report.alignment if e.changes]
    assert row.candidate is not None
    assert row.candidate.name == "chat-model"
    assert [(c.kind, c.baseline, c.candidate) for c in row.changes] == [
        ("model", before, "gpt-4o-2024-08-06")
    ]
    assert report.changed_calls == 1
    assert report.divergence == 0.0


def _bucketed(extra: dict[str, int], *, cached: int, keep_total: bool = True) -> Any:
    """The real trace with its first generation's prompt partly cached, as Langfuse stores it."""
    document = read_document(LANGFUSE.path("json", "detour", "baseline"))
    first = _generations(document)[0]
    details = first["usageDetails"]
    prompt, completion = details["input"], details["output"]
    first["usageDetails"] = {
        "input": prompt - cached,
        "output": completion,
        **({"total": prompt + completion} if keep_total else {}),
        **extra,
    }
    first["costDetails"] = {}  # not priced by the server: estimated here
    for key in ("usage", "calculatedTotalCost", "totalCost"):
        first.pop(key, None)
    return document, prompt


@pytest.mark.parametrize(
    ("extra", "keep_total"),
    [
        ({"input_cached_tokens": 30}, True),  # the server's OpenAI usage schema
        ({"input_cached_tokens": 30}, False),  # no total: Langfuse adds the buckets up
        ({"input_cache_read": 30}, True),  # the LangChain CallbackHandler
        ({"cache_read_input_tokens": 30}, True),  # Anthropic's count beside `input`
    ],
)
def test_cached_prompt_tokens_count_in_the_prompt_and_price_as_cache_reads(
    extra: dict[str, int], keep_total: bool
) -> None:
    document, prompt = _bucketed(extra, cached=30, keep_total=keep_total)
    trace = parse_trace_data(document)
    first = llm_steps(trace)[0]
    assert first.tokens is not None
    assert first.tokens.prompt_tokens == prompt
    model = (first.metadata or {})["model"]
    completion = first.tokens.completion_tokens
    report = compare(trace, trace)
    others = sum(
        s.tokens.estimated_cost_usd or 0 for s in llm_steps(trace)[1:] if s.tokens is not None
    )
    expected = estimate_cost(model, prompt, completion, DEFAULT_PRICES, cache_read=30)
    assert expected is not None
    assert report.baseline.cost_usd == pytest.approx(others + expected)


def test_buckets_that_break_input_down_are_left_as_they_are() -> None:
    """A total of input + output only: `input_cached_tokens` is part of `input`, not beside it."""
    document = read_document(LANGFUSE.path("json", "detour", "baseline"))
    first = _generations(document)[0]
    details = first["usageDetails"]
    details["input_cached_tokens"] = 30
    trace = parse_trace_data(document)
    step = llm_steps(trace)[0]
    assert step.tokens is not None
    assert step.tokens.prompt_tokens == details["input"]
