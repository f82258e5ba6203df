"""The langsmith adapter against real LangChainTracer run trees (scripts/capture/langchain.py)
and the facts recorded from the live runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.realdata import SCENARIOS, SHARED, SIDES, RealSource, of_type

from agentdiff.adapters.langsmith import LangSmithAdapter
from agentdiff.errors import MultipleTracesError, TraceFormatError
from agentdiff.loader import load_trace, parse_trace_data, read_document
from agentdiff.models.trace import StepType

LANGSMITH = RealSource("langsmith")
SHAPES = LANGSMITH.shapes
CASES = LANGSMITH.cases()


def test_manifest_names_both_shapes() -> None:
    manifest = LANGSMITH.manifest
    assert {shape: spec["file"] for shape, spec in manifest["shapes"].items()} == {
        "nested": "<side>.nested.json",
        "flat": "<side>.flat.json",
        "ingest": "<side>.ingest.json",
        "server": "<side>.server.json",
    }
    assert all(spec["adapter"] == "langsmith" for spec in manifest["shapes"].values())


def _runs(tree: dict[str, Any]) -> list[dict[str, Any]]:
    out, stack = [], [tree]
    while stack:
        run = stack.pop()
        out.append(run)
        stack.extend(reversed(run.get("child_runs") or []))
    return out


@pytest.mark.parametrize(("shape", "scenario", "side"), CASES)
def test_failed_tool_keeps_its_traceback(shape: str, scenario: str, side: str) -> None:
    """The one-line message is checked by the contract test; the full text stays in metadata."""
    facts, trace = LANGSMITH.facts(scenario, side), LANGSMITH.load(shape, scenario, side)
    tools = of_type(trace, StepType.TOOL_CALL)
    for step, call in zip(tools, facts["tool_calls"], strict=True):
        if call["error"] is not None:
            assert step.metadata is not None
            assert "Traceback" in step.metadata["error_detail"]
            assert call["error"] in step.metadata["error_detail"]


@pytest.mark.parametrize(("shape", "scenario", "side"), CASES)
def test_llm_calls_and_tokens_match_the_live_run(shape: str, scenario: str, side: str) -> None:
    facts, trace = LANGSMITH.facts(scenario, side), LANGSMITH.load(shape, scenario, side)
    llms = of_type(trace, StepType.LLM_CALL)
    assert len(llms) == facts["llm_calls"]
    assert trace.total_tokens is not None
    assert (
        trace.total_tokens.prompt_tokens,
        trace.total_tokens.completion_tokens,
        trace.total_tokens.total_tokens,
    ) == (facts["prompt_tokens"], facts["completion_tokens"], facts["total_tokens"])
    if shape == "server":  # the emulated server prices scripted-chat-1 at 0.15 / 0.60 per 1M
        expected = (facts["prompt_tokens"] * 0.15 + facts["completion_tokens"] * 0.60) / 1e6
        assert trace.total_tokens.estimated_cost_usd == pytest.approx(expected)
    else:
        assert trace.total_tokens.estimated_cost_usd == facts["cost_usd"]
    # chain runs repeat their children's usage_metadata in their outputs (and the server rolls
    # token counts up into every ancestor): never counted
    assert all(s.tokens is None for s in trace.steps if s.step_type is not StepType.LLM_CALL)
    assert all(s.tokens is not None for s in llms)


@pytest.mark.parametrize(("shape", "scenario", "side"), CASES)
def test_tree_order_and_timing(shape: str, scenario: str, side: str) -> None:
    facts, trace = LANGSMITH.facts(scenario, side), LANGSMITH.load(shape, scenario, side)
    steps, by_id = trace.steps, trace.step_map()
    assert [s.step_index for s in steps] == list(range(len(steps)))
    roots = [s for s in steps if s.parent_id is None]
    assert [r.name for r in roots] == [facts["agent_name"]]
    assert steps[0] is roots[0]
    assert all(s.parent_id is None or s.parent_id in by_id for s in steps)
    assert all(by_id[s.parent_id].step_index < s.step_index for s in steps if s.parent_id)
    starts = [s.metadata["started_at"] for s in steps if s.metadata]
    assert len(starts) == len(steps)
    assert starts == sorted(starts)  # sequential run: dotted order is chronological
    assert all(s.latency_ms is not None for s in steps)
    assert trace.total_latency_ms is not None
    for tool in of_type(trace, StepType.TOOL_CALL):  # tools hang under LangGraph's tools node
        assert by_id[tool.parent_id].name == "tools"
        assert by_id[tool.parent_id].step_type is StepType.ROUTING
    for llm in of_type(trace, StepType.LLM_CALL):
        assert by_id[llm.parent_id].step_type is StepType.ROUTING
    assert trace.agent_name == facts["agent_name"]
    assert trace.final_output == {"output": facts["final_output"]}
    assert trace.task_input["messages"][0][0] == "user"


@pytest.mark.parametrize(("scenario", "side"), [(s, d) for s in SCENARIOS for d in SIDES])
def test_nested_and_flat_shapes_give_the_same_steps(scenario: str, side: str) -> None:
    nested = LANGSMITH.load("nested", scenario, side)
    flat = LANGSMITH.load("flat", scenario, side)
    assert [s.model_dump() for s in nested.steps] == [s.model_dump() for s in flat.steps]
    assert nested.trace_id == flat.trace_id


def test_reference_detour_fixture() -> None:
    folder = SHARED / "langsmith" / "extra_tool_detour"
    base, cand = load_trace(folder / "baseline.json"), load_trace(folder / "candidate.json")
    assert [t.name for t in of_type(cand, StepType.TOOL_CALL)] == [
        "geocode",
        "web_search",
        "get_weather",
    ]
    assert (len(of_type(base, StepType.LLM_CALL)), len(of_type(cand, StepType.LLM_CALL))) == (3, 4)
    assert base.total_tokens is not None
    assert cand.total_tokens is not None
    assert (base.total_tokens.total_tokens, cand.total_tokens.total_tokens) == (1201, 1860)


# ---------------------------------------------------------------- payload and token variants


def _tree(scenario: str = "identical", side: str = "baseline") -> dict[str, Any]:
    return read_document(LANGSMITH.path("nested", scenario, side))


def test_tool_input_string_is_unwrapped() -> None:
    tree = _tree()
    tools = [r for r in _runs(tree) if r["run_type"] == "tool"]
    tools[0]["inputs"] = {"input": json.dumps({"city": "Paris"})}
    tools[1]["inputs"] = {"input": "Paris, FR"}
    steps = of_type(parse_trace_data(tree), StepType.TOOL_CALL)
    assert [s.input_payload for s in steps] == [{"city": "Paris"}, {"input": "Paris, FR"}]


def test_token_sources_are_read_once_and_unknown_stays_none() -> None:
    tree = _tree()
    llm = next(r for r in _runs(tree) if r["run_type"] == "llm")
    llm["outputs"]["generations"] = []
    llm["extra"]["metadata"].pop("usage_metadata")
    # only llm_output.token_usage is left for this run
    first = of_type(parse_trace_data(tree), StepType.LLM_CALL)[0]
    assert first.tokens is not None
    assert (first.tokens.prompt_tokens, first.tokens.completion_tokens) == (
        llm["outputs"]["llm_output"]["token_usage"]["input_tokens"],
        llm["outputs"]["llm_output"]["token_usage"]["output_tokens"],
    )
    llm["outputs"].pop("llm_output")
    assert of_type(parse_trace_data(tree), StepType.LLM_CALL)[0].tokens is None
    for run in _runs(tree):
        if run["run_type"] == "llm":
            run["outputs"] = {}
            run["extra"] = {}
    assert parse_trace_data(tree).total_tokens is None


def test_server_fields_give_cost_and_chain_aggregates_are_ignored() -> None:
    tree = _tree()
    tree.update(prompt_tokens=99999, total_tokens=99999, total_cost="9.5")  # root = chain
    llms = [r for r in _runs(tree) if r["run_type"] == "llm"]
    for run in llms:
        run.update(prompt_cost="0.001", completion_cost="0.0005")
    trace = parse_trace_data(tree)
    facts = LANGSMITH.facts("identical", "baseline")
    assert trace.total_tokens is not None
    assert trace.total_tokens.total_tokens == facts["total_tokens"]
    assert trace.total_tokens.estimated_cost_usd == pytest.approx(0.0015 * len(llms))


# ---------------------------------------------------------------- several traces, detection


def test_flat_list_with_two_traces_needs_a_trace_id(tmp_path: Path) -> None:
    first = read_document(LANGSMITH.path("flat", "identical", "baseline"))
    second = read_document(LANGSMITH.path("flat", "detour", "candidate"))
    runs = first + second
    ids = LangSmithAdapter.trace_ids(runs)
    assert ids == [first[0]["trace_id"], second[0]["trace_id"]]
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(runs), encoding="utf-8")
    with pytest.raises(MultipleTracesError, match=r"runs\.json"):
        load_trace(path)
    picked = load_trace(path, trace_id=ids[1])
    assert [t.name for t in of_type(picked, StepType.TOOL_CALL)] == [
        "geocode",
        "web_search",
        "get_weather",
    ]
    assert not LangSmithAdapter.detect({"runs": runs})  # an envelope of traces is not a run
    assert LangSmithAdapter.detect({"runs": first})
    one = parse_trace_data({"runs": first})
    assert one.trace_id == first[0]["trace_id"]


def test_detection_rejects_empty_envelopes_and_observations() -> None:
    assert not LangSmithAdapter.detect({"runs": []})
    assert not LangSmithAdapter.detect([{"id": "x", "type": "GENERATION"}])


def _drop_child_id(d: Any) -> None:
    d["child_runs"][1].pop("id")


def _break_child_runs(d: Any) -> None:
    d["child_runs"][0]["child_runs"] = "oops"


def _drop_flat_run_type(d: Any) -> None:
    d[3].pop("run_type")


@pytest.mark.parametrize(
    ("shape", "broken", "where"),
    [
        ("nested", _drop_child_id, "child_runs[1].id"),
        ("nested", _break_child_runs, "child_runs[0].child_runs: expected a list"),
        ("flat", _drop_flat_run_type, "[3].run_type"),
    ],
)
def test_malformed_document_names_the_json_path(
    shape: str, broken: Any, where: str, tmp_path: Path
) -> None:
    data = read_document(LANGSMITH.path(shape, "identical", "baseline"))
    broken(data)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TraceFormatError) as info:
        load_trace(path, adapter_name="langsmith")
    assert where in str(info.value)
    assert "broken.json" in str(info.value)


_VALIDATION = (
    "1 validation error for get_weather\nlat\n  Field required [type=missing, "
    "input_value={'lon': 2.35}, input_type=dict]\n    For further information visit "
    "https://errors.pydantic.dev/2.11/v/missing"
)


_PYDANTIC = (  # a multi-line exception message (pydantic's), as LangChain's tracer writes it
    f"{_VALIDATION}Traceback (most recent call last):\n\n\n"
    '  File "/app/tools/base.py", line 1099, in run\n'
    "    response = context.run(self._run, *tool_args)\n"
    "               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n\n\n"
    f"pydantic_core._pydantic_core.ValidationError: {_VALIDATION}"
)
_PYDANTIC_MESSAGE = (
    "pydantic_core._pydantic_core.ValidationError: 1 validation error for get_weather "
    "lat Field required [type=missing, input_value={'lon': 2.35}, input_type=dict] "
    "For further information visit https://errors.pydantic.dev/2.11/v/missing"
)
_CHAINED = (  # the last exception is the message
    "RuntimeError('wrapped')Traceback (most recent call last):\n"
    "  File \"a.py\", line 1, in f\n    g()\nKeyError: 'lat'\n\n"
    "The above exception was the direct cause of the following exception:\n\n"
    'Traceback (most recent call last):\n  File "a.py", line 3, in h\n    f()\n'
    "RuntimeError: wrapped"
)


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (_PYDANTIC, _PYDANTIC_MESSAGE),
        (_CHAINED, "RuntimeError: wrapped"),
        ("ValueError('no traceback here')", "ValueError('no traceback here')"),
        ("1 validation error\nlat\n  Field required", "1 validation error lat Field required"),
    ],
)
def test_failed_run_message_is_the_whole_exception(error: str, message: str) -> None:
    tree = _tree("error_retry", "candidate")
    failed = next(r for r in _runs(tree) if r.get("error"))
    failed["error"] = error
    trace = parse_trace_data(tree, adapter_name="langsmith")
    (step,) = [s for s in trace.steps if s.step_id == str(failed["id"])]
    assert step.error_message == message
