"""The `openinference` adapter on real SDK output, checked against facts recorded in the live run.

Real fixtures: `tests/fixtures/real/genai/` (pydantic-ai GenAI-semconv spans, formats 2/5/6) and
`tests/fixtures/real/openinference/` (LangChain/LangGraph under the OpenInference instrumentor),
each `<scenario>/<side>.<shape>` beside `<side>.facts.json`. Variants of the real files (an HTTP
span inserted, kinds renamed, two traces in one file) are made in memory or in `tmp_path`.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
from tests.realdata import (
    REAL,
    SCENARIOS,
    SHARED,
    RealSource,
    load,
    of_type,
    other_documents,
)

from agentdiff.adapters.openinference import OpenInferenceAdapter
from agentdiff.errors import MultipleTracesError, TraceFormatError
from agentdiff.loader import load_trace, parse_trace_data, read_document
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TraceStep

SOURCES = {name: RealSource(name) for name in ("genai", "openinference")}
AGENT_KINDS = {"AGENT", "genai:invoke_agent"}
CASES = [
    pytest.param(name, shape, scenario, side, id=f"{name}-{shape}-{scenario}-{side}")
    for name, source in SOURCES.items()
    for shape, scenario, side in source.cases()
]


def test_genai_matrix_is_complete() -> None:
    sources = {c.values[0] for c in CASES}
    assert "genai" in sources
    assert sum(1 for c in CASES if c.values[0] == "genai") == 3 * len(SCENARIOS) * 2


@pytest.mark.parametrize(("source", "shape", "scenario", "side"), CASES)
def test_real_fixture_matches_live_facts(source: str, shape: str, scenario: str, side: str) -> None:
    path = SOURCES[source].path(shape, scenario, side)
    facts = SOURCES[source].facts(scenario, side)
    trace = load(path)
    assert len(of_type(trace, StepType.LLM_CALL)) == facts["llm_calls"]
    _check_tokens(trace, facts)
    assert trace.agent_name == facts["agent_name"]
    if facts["final_output"] is not None:
        assert facts["final_output"] in orjson.dumps(trace.final_output).decode()


def _check_tokens(trace: AgentTrace, facts: dict[str, Any]) -> None:
    if facts["total_tokens"] is None:
        assert trace.total_tokens is None or trace.total_tokens.total_tokens is None
        return
    assert trace.total_tokens is not None
    assert trace.total_tokens.prompt_tokens == facts["prompt_tokens"]
    assert trace.total_tokens.completion_tokens == facts["completion_tokens"]
    assert trace.total_tokens.total_tokens == facts["total_tokens"]
    assert trace.total_tokens.estimated_cost_usd == facts["cost_usd"]
    assert all(s.tokens is None for s in trace.steps if s.step_type is not StepType.LLM_CALL)


@pytest.mark.parametrize(("source", "shape", "scenario", "side"), CASES)
def test_real_fixture_structure(source: str, shape: str, scenario: str, side: str) -> None:
    trace = SOURCES[source].load(shape, scenario, side)
    by_id = trace.step_map()
    assert [s.step_index for s in trace.steps] == list(range(len(trace.steps)))
    assert trace.metadata is not None
    assert not trace.metadata.get("warnings")
    for step in trace.steps:
        assert step.parent_id is None or step.parent_id in by_id
        if step.parent_id is not None:
            assert by_id[step.parent_id].step_index < step.step_index
        assert step.latency_ms is not None
        assert step.metadata is not None
        assert step.metadata["started_at"] <= step.metadata["ended_at"]
    roots = [s for s in trace.steps if s.parent_id is None]
    assert len(roots) == 1
    assert roots[0].metadata is not None
    assert roots[0].metadata["span_kind"] in AGENT_KINDS
    for tool in of_type(trace, StepType.TOOL_CALL):
        assert _ancestors(tool, by_id)[-1] is roots[0]
    leaves = [s for s in trace.steps if s.step_type in (StepType.TOOL_CALL, StepType.LLM_CALL)]
    starts = [s.metadata["started_at"] for s in leaves if s.metadata]
    assert starts == sorted(starts)
    assert trace.total_latency_ms is not None
    assert trace.total_latency_ms >= max(s.latency_ms or 0 for s in trace.steps)


def _ancestors(step: TraceStep, by_id: dict[str, TraceStep]) -> list[TraceStep]:
    chain = []
    while step.parent_id is not None:
        step = by_id[step.parent_id]
        chain.append(step)
    return chain


def _genai_doc(scenario: str = "error_retry", side: str = "candidate") -> list[dict[str, Any]]:
    data = read_document(REAL / "genai" / scenario / f"{side}.spans.json")
    assert isinstance(data, list)
    return data


def _span(doc: list[dict[str, Any]], operation: str) -> dict[str, Any]:
    return next(s for s in doc if s["attributes"].get("gen_ai.operation.name") == operation)


def test_genai_tool_error_comes_from_the_exception_event() -> None:
    doc = _genai_doc()
    failed = next(s for s in doc if s["status"]["status_code"] == "ERROR")
    assert "description" not in failed["status"]
    trace = parse_trace_data(doc)
    step = trace.step_map()[failed["context"]["span_id"].removeprefix("0x")]
    assert step.status is StepStatus.ERROR
    assert step.error_message == failed["events"][0]["attributes"]["exception.message"]


def test_legacy_genai_tool_attributes_are_read() -> None:
    doc = read_document(REAL / "genai" / "detour" / "candidate.legacy.spans.json")
    tool_spans = [s for s in doc if "tool_arguments" in s["attributes"]]
    assert tool_spans
    assert all("gen_ai.tool.call.arguments" not in s["attributes"] for s in tool_spans)
    trace = parse_trace_data(doc)
    search = next(s for s in trace.steps if s.name == "web_search")
    assert search.input_payload == {"query": "Paris weather right now"}
    assert search.output_payload is not None


def test_old_genai_token_and_provider_names() -> None:
    doc = copy.deepcopy(_genai_doc())
    chats = [s for s in doc if s["attributes"].get("gen_ai.operation.name") == "chat"]
    expected = 0
    for span in chats:
        attrs = span["attributes"]
        attrs["gen_ai.usage.prompt_tokens"] = attrs.pop("gen_ai.usage.input_tokens")
        attrs["gen_ai.usage.completion_tokens"] = attrs.pop("gen_ai.usage.output_tokens")
        attrs.pop("gen_ai.provider.name")
        attrs["gen_ai.operation.name"] = "text_completion"
        expected += attrs["gen_ai.usage.prompt_tokens"] + attrs["gen_ai.usage.completion_tokens"]
    trace = parse_trace_data(doc, "otel")
    assert trace.total_tokens is not None
    assert trace.total_tokens.total_tokens == expected
    llm = of_type(trace, StepType.LLM_CALL)
    assert len(llm) == len(chats)
    assert all(s.metadata and s.metadata["provider"] == "function" for s in llm)


@pytest.mark.parametrize(
    ("kind", "step_type"),
    [
        ("RETRIEVER", StepType.TOOL_CALL),
        ("RERANKER", StepType.TOOL_CALL),
        ("EMBEDDING", StepType.LLM_CALL),
        ("GUARDRAIL", StepType.THOUGHT),
        ("EVALUATOR", StepType.THOUGHT),
        ("PROMPT", StepType.THOUGHT),
        ("CHAIN", StepType.ROUTING),
        ("UNKNOWN", StepType.ROUTING),
        ("BRAND_NEW", StepType.ROUTING),
    ],
)
def test_openinference_kinds_are_mapped_deliberately(kind: str, step_type: StepType) -> None:
    doc = copy.deepcopy(_genai_doc())
    span = _span(doc, "execute_tool")
    span["attributes"]["openinference.span.kind"] = kind
    step = parse_trace_data(doc).step_map()[span["context"]["span_id"].removeprefix("0x")]
    assert step.step_type is step_type
    assert step.metadata is not None
    assert step.metadata["span_kind"] == kind


def test_plain_spans_are_dropped_and_children_reparented() -> None:
    doc = copy.deepcopy(_genai_doc())
    root = next(s for s in doc if s["parent_id"] is None)
    chat = _span(doc, "chat")
    http = copy.deepcopy(chat)
    http.update(
        name="POST /v1/chat/completions",
        attributes={"http.method": "POST"},
        parent_id=root["context"]["span_id"],
        events=[],
    )
    http["context"]["span_id"] = "0x00000000000000aa"
    chat["parent_id"] = http["context"]["span_id"]
    leaf = copy.deepcopy(http)
    leaf["context"]["span_id"] = "0x00000000000000bb"
    leaf["parent_id"] = chat["context"]["span_id"]
    trace = parse_trace_data([*doc, http, leaf])
    steps = trace.step_map()
    assert "00000000000000aa" not in steps
    assert "00000000000000bb" not in steps
    assert steps[chat["context"]["span_id"][2:]].parent_id == root["context"]["span_id"][2:]
    assert trace.metadata is not None
    assert trace.metadata["dropped_spans"] == 2


def test_plain_span_above_the_agent_is_kept_as_routing() -> None:
    doc = copy.deepcopy(_genai_doc())
    root = next(s for s in doc if s["parent_id"] is None)
    server = copy.deepcopy(root)
    server.update(
        name="GET /ask",
        attributes={"http.route": "/ask"},
        parent_id=None,
        events=[],
        kind="SpanKind.SERVER",
    )
    server["context"]["span_id"] = "0x00000000000000cc"
    root["parent_id"] = server["context"]["span_id"]
    trace = parse_trace_data([server, *doc])
    first = trace.steps[0]
    assert (first.step_id, first.step_type, first.parent_id) == (
        "00000000000000cc",
        StepType.ROUTING,
        None,
    )
    assert trace.agent_name == "weather_agent"
    assert trace.metadata is not None
    assert trace.metadata["dropped_spans"] == 0


def test_parent_outside_the_file_makes_a_root() -> None:
    doc = copy.deepcopy(_genai_doc())
    root = next(s for s in doc if s["parent_id"] is None)
    root["parent_id"] = "0x1234567890abcdef"
    trace = parse_trace_data(doc)
    step = trace.steps[0]
    assert step.parent_id is None
    assert step.metadata is not None
    assert step.metadata["otel_parent_id"] == "1234567890abcdef"


def test_two_traces_in_one_span_list(tmp_path: Path) -> None:
    folder = REAL / "genai" / "detour"
    base, cand = (
        read_document(folder / f"{side}.spans.json") for side in ("baseline", "candidate")
    )
    path = tmp_path / "both.json"
    path.write_bytes(orjson.dumps([*base, *cand]))
    with pytest.raises(MultipleTracesError, match="holds 2 traces") as info:
        load_trace(path)
    assert "both.json" in str(info.value)
    wanted = cand[0]["context"]["trace_id"]
    picked = load_trace(path, trace_id=wanted.removeprefix("0x"))
    alone = load_trace(folder / "candidate.spans.json")
    assert [s.name for s in picked.steps] == [s.name for s in alone.steps]
    assert picked.trace_id == alone.trace_id


def test_two_traces_in_otlp_json_lines(tmp_path: Path) -> None:
    folder = REAL / "genai" / "loop"
    docs = [read_document(folder / f"{side}.otlp.json") for side in ("baseline", "candidate")]
    path = tmp_path / "both.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(d) for d in docs) + b"\n")
    ids = OpenInferenceAdapter.trace_ids(read_document(path))
    assert len(ids) == 2
    picked = load_trace(path, trace_id=ids[1])
    facts = SOURCES["genai"].facts("loop", "candidate")
    assert [s.name for s in of_type(picked, StepType.TOOL_CALL)] == [
        c["name"] for c in facts["tool_calls"]
    ]


def test_otlp_with_zero_spans_is_a_clear_error(tmp_path: Path) -> None:
    doc = read_document(REAL / "genai" / "identical" / "baseline.otlp.json")
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            ss["spans"] = []
    path = tmp_path / "empty.otlp.json"
    path.write_bytes(orjson.dumps(doc))
    with pytest.raises(TraceFormatError, match="no spans") as info:
        load_trace(path)
    assert "empty.otlp.json" in str(info.value)


def _shape_files() -> list[Path]:
    return [
        source.path(shape, "detour", "candidate")
        for source in SOURCES.values()
        for shape in source.shapes
    ]


@pytest.mark.parametrize("original", _shape_files(), ids=lambda p: p.name)
def test_garbled_spans_give_a_format_error(original: Path, tmp_path: Path) -> None:
    doc = read_document(original)
    otlp = "resourceSpans" in (doc if isinstance(doc, dict) else doc[0])
    documents = ([doc] if isinstance(doc, dict) else doc) if otlp else None
    if documents is None:  # span JSON (a list, or wrapped in spans/data): break the last span
        wrapper = "" if isinstance(doc, list) else "spans" if "spans" in doc else "data"
        spans = doc[wrapper] if wrapper else doc
        spans[-1].pop("context")
        where = f"{wrapper}[{len(spans) - 1}]:"
    else:  # OTLP: break a span of the last document (JSON Lines: `[n]` names the line)
        documents[-1]["resourceSpans"][0]["scopeSpans"][0]["spans"][0].pop("spanId")
        line = f"[{len(documents) - 1}]." if original.suffix == ".jsonl" else ""
        where = f"{line}resourceSpans[0].scopeSpans[0].spans[0]:"
    path = tmp_path / original.name
    lines = documents if original.suffix == ".jsonl" else [doc]
    path.write_bytes(b"\n".join(orjson.dumps(d) for d in lines))
    with pytest.raises(TraceFormatError) as info:
        load_trace(path, "openinference")
    assert original.name in str(info.value)
    assert where in str(info.value)


OTHERS = other_documents("openinference")


def test_detect_claims_reference_span_shapes() -> None:
    for folder in ("openinference_spans", "otlp_json"):
        for path in sorted((SHARED / folder).glob("*/*.json")):
            assert OpenInferenceAdapter.detect(read_document(path)) is True
    assert OpenInferenceAdapter.detect({"resourceSpans": "nope"}) is False
    assert OpenInferenceAdapter.detect([{"role": "user", "content": "hi"}]) is False
    assert OpenInferenceAdapter.detect([]) is False


REFERENCE = [
    ("baseline", 3, 1201, ["geocode", "get_weather"]),
    ("candidate", 4, 1860, ["geocode", "web_search", "get_weather"]),
]


@pytest.mark.parametrize("folder", ["openinference_spans", "otlp_json"])
@pytest.mark.parametrize(("side", "llm_calls", "tokens", "tools"), REFERENCE)
def test_shared_reference_detour(
    folder: str, side: str, llm_calls: int, tokens: int, tools: list[str]
) -> None:
    path = SHARED / folder / "extra_tool_detour" / f"{side}.json"
    trace = load_trace(path)
    assert [s.name for s in of_type(trace, StepType.TOOL_CALL)] == tools
    assert of_type(trace, StepType.TOOL_CALL)[0].input_payload == {"city": "Paris"}
    assert of_type(trace, StepType.TOOL_CALL)[-1].input_payload == {
        "lat": 48.8566,
        "lon": 2.3522,
        "units": "imperial",
    }
    assert len(of_type(trace, StepType.LLM_CALL)) == llm_calls
    assert trace.total_tokens is not None
    assert trace.total_tokens.total_tokens == tokens
    assert trace.agent_name == "weather_agent"


def _nest(flat: dict[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        *path, last = key.split(".")
        node = nested
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return nested


def test_nested_attributes_read_like_flat_ones() -> None:
    path = REAL / "openinference" / "detour" / "candidate.spans.json"
    if not path.exists():
        path = REAL / "genai" / "detour" / "candidate.spans.json"
    doc = read_document(path)
    flat = parse_trace_data(doc)
    nested_doc = copy.deepcopy(doc)
    for span in nested_doc:
        span["attributes"] = _nest(span["attributes"])
    assert isinstance(next(iter(nested_doc[0]["attributes"].values())), dict)
    nested = parse_trace_data(nested_doc)
    assert [(s.step_type, s.name, s.input_payload) for s in nested.steps] == [
        (s.step_type, s.name, s.input_payload) for s in flat.steps
    ]
    assert nested.total_tokens == flat.total_tokens


@pytest.mark.parametrize(
    "read_key", ["gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.details.cache_read_tokens"]
)
def test_genai_cache_reads_price_as_such_under_either_name(read_key: str) -> None:
    """pydantic-ai wrote `gen_ai.usage.details.cache_read_tokens` before the semconv name."""
    doc = _genai_doc()
    chat = _span(doc, "chat")
    attributes = chat["attributes"]
    prompt = attributes["gen_ai.usage.input_tokens"]
    attributes[read_key] = prompt // 2
    step = next(
        s
        for s in parse_trace_data(doc).steps
        if s.step_id == chat["context"]["span_id"].removeprefix("0x")
    )
    assert (step.metadata or {})["usage"] == {"cache_read_input_tokens": prompt // 2}
