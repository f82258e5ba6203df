"""OTel span shapes from the spec and the wild, each checked against the same real run.

The captured shapes (base64-id OTLP, Phoenix `{"data": [...]}`, `{"spans": [...]}`, JavaScript
`ReadableSpan` dumps of the Vercel AI SDK) come through the contract test like every manifest
shape; here each is also compared with its hex/ISO/Python twin, and the variants no SDK writes
as a file of its own (one span, numeric times in other units, payloads already objects, upper-case
ids) are derived from a real file and must give the same trace.
"""

from __future__ import annotations

import copy
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from tests.realdata import RealSource, tool_steps
from typer.testing import CliRunner

from agentdiff import compare
from agentdiff.cli.app import app
from agentdiff.loader import load_trace, parse_trace_data, read_document
from agentdiff.models.trace import AgentTrace, StepStatus, StepType

OI = RealSource("openinference")
JS = RealSource("js_otel")
runner = CliRunner()


def _shape(trace: AgentTrace) -> list[tuple[str, str, str, Any, str | None]]:
    """What a user sees of each step (ids aside)."""
    return [
        (s.step_type.value, s.name, s.status.value, s.input_payload, s.parent_id and "child")
        for s in trace.steps
    ]


@pytest.mark.parametrize("shape", ["otlp_b64", "phoenix"])
def test_captured_variants_give_the_trace_of_their_twin(shape: str) -> None:
    """The three shapes were written from one run: they must give one trace."""
    for scenario in ("detour", "error_retry"):
        variant = OI.load(shape, scenario, "candidate")
        original = OI.load("wrapped", scenario, "candidate")
        assert _shape(variant) == _shape(original)
        assert [s.step_id for s in variant.steps] == [s.step_id for s in original.steps]
        assert variant.total_tokens == original.total_tokens


def test_base64_ids_become_the_hex_ids_otel_tools_show() -> None:
    raw = read_document(OI.path("otlp_b64", "identical", "baseline"))
    first = raw["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert first["spanId"].endswith("=")  # protobuf's JSON mapping: base64
    trace = OI.load("otlp_b64", "identical", "baseline")
    same_run = OI.load("wrapped", "identical", "baseline")
    assert trace.trace_id == same_run.trace_id
    assert [s.step_id for s in trace.steps] == [s.step_id for s in same_run.steps]
    assert all(len(s.step_id) == 16 and int(s.step_id, 16) >= 0 for s in trace.steps)


def test_id_case_is_kept() -> None:
    doc = read_document(OI.path("otlp", "identical", "baseline"))
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for key in ("traceId", "spanId", "parentSpanId"):
            if span.get(key):
                span[key] = span[key].upper()
    trace = parse_trace_data(doc)
    assert all(s.step_id == s.step_id.upper() for s in trace.steps)
    assert trace.trace_id == trace.trace_id.upper()
    assert _shape(trace) == _shape(OI.load("otlp", "identical", "baseline"))


def test_one_span_on_its_own_is_one_step() -> None:
    spans = read_document(OI.path("spans", "identical", "baseline"))
    tool = next(s for s in spans if s["attributes"].get("tool.name") == "get_weather")
    trace = parse_trace_data(tool)
    assert [(s.step_type, s.name) for s in trace.steps] == [(StepType.TOOL_CALL, "get_weather")]
    assert trace.steps[0].input_payload == {"lat": 48.8566, "lon": 2.3522, "units": "imperial"}


def _numeric_times(spans: list[dict[str, Any]], scale: float) -> list[dict[str, Any]]:
    out = copy.deepcopy(spans)
    for span in out:
        for key in ("start_time", "end_time"):
            moment = datetime.fromisoformat(span[key].replace("Z", "+00:00"))
            value = moment.timestamp() * scale
            span[key] = int(value) if scale >= 1e3 else value
    return out


@pytest.mark.parametrize("scale", [1.0, 1e3, 1e6, 1e9], ids=["s", "ms", "us", "ns"])
def test_numeric_times_in_any_unit_are_read_per_trace(scale: float) -> None:
    spans = read_document(OI.path("spans", "detour", "candidate"))
    original = OI.load("spans", "detour", "candidate")
    trace = parse_trace_data(_numeric_times(spans, scale))
    assert _shape(trace) == _shape(original)
    assert trace.total_latency_ms == pytest.approx(original.total_latency_ms, abs=1.0)
    assert not (trace.metadata or {}).get("warnings")


@pytest.mark.parametrize("broken", ["epoch_start", "end_before_start"])
def test_an_impossible_duration_is_unknown_with_a_warning(broken: str) -> None:
    """A start written as 1 s after the epoch would make a 56-year span: unknown instead."""
    spans = _numeric_times(read_document(OI.path("spans", "detour", "candidate")), 1e9)
    tool = next(s for s in spans if s["attributes"].get("openinference.span.kind") == "TOOL")
    if broken == "epoch_start":
        tool["start_time"] = 1_000_000_000
    else:
        tool["start_time"] = tool["end_time"] + 5_000_000_000
    trace = parse_trace_data(spans)
    step = next(
        s for s in trace.steps if s.step_id == tool["context"]["span_id"].removeprefix("0x")
    )
    assert step.latency_ms is None
    assert "started_at" not in (step.metadata or {})
    (warning,) = (trace.metadata or {})["warnings"]
    assert "impossible duration on 1 span" in warning
    assert trace.total_latency_ms is not None
    assert trace.total_latency_ms < 60_000


def test_payloads_that_are_already_objects_stay_whole() -> None:
    spans = copy.deepcopy(read_document(OI.path("spans", "identical", "baseline")))
    for span in spans:
        attrs = span["attributes"]
        for key in ("input.value", "output.value"):
            value = attrs.get(key)
            if isinstance(value, str) and value.startswith("{"):
                attrs[key] = orjson.loads(value)
    trace = parse_trace_data(spans)
    original = OI.load("spans", "identical", "baseline")
    assert [s.input_payload for s in tool_steps(trace)] == [
        s.input_payload for s in tool_steps(original)
    ]
    assert _shape(trace) == _shape(original)


def test_kind_beside_openinference_span_kind() -> None:
    """Phoenix puts the OpenInference kind in `span_kind`: it is read when the attribute is not."""
    spans = read_document(OI.path("phoenix", "identical", "baseline"))
    stripped = copy.deepcopy(spans)
    for span in stripped["data"]:
        span["attributes"].pop("openinference.span.kind", None)
    assert _shape(parse_trace_data(stripped)) == _shape(OI.load("phoenix", "identical", "baseline"))


def test_tool_calls_of_one_model_message_share_its_turn_id() -> None:
    trace = OI.load("spans", "detour", "candidate")
    llm_ids = {s.step_id for s in trace.steps if s.step_type is StepType.LLM_CALL}
    for tool in tool_steps(trace):
        assert (tool.metadata or {})["turn_id"] in llm_ids
    turns = [(t.metadata or {})["turn_id"] for t in tool_steps(trace)]
    assert len(set(turns)) == len(turns)  # this run asks for one tool per model message


@pytest.mark.parametrize("shape", ["readable_spans", "ai5_spans"])
def test_javascript_readable_spans_of_the_vercel_ai_sdk(shape: str) -> None:
    facts = JS.facts("error_retry", "candidate")
    trace = JS.load(shape, "error_retry", "candidate")
    raw = read_document(JS.path(shape, "error_retry", "candidate"))
    assert isinstance(raw[0]["startTime"], list)  # hrtime [seconds, nanoseconds]
    llm = [s for s in trace.steps if s.step_type is StepType.LLM_CALL]
    assert len(llm) == facts["llm_calls"]
    assert all((s.metadata or {})["model"] == "gpt-4o-mini" for s in llm)
    assert trace.total_tokens is not None
    assert trace.total_tokens.prompt_tokens == facts["prompt_tokens"]
    assert trace.total_tokens.completion_tokens == facts["completion_tokens"]
    failed = [s for s in trace.steps if s.status is StepStatus.ERROR]
    assert [(s.name, s.error_message) for s in failed] == [
        ("get_weather", "weather service timed out (HTTP 504)")
    ]
    assert all(s.latency_ms is not None and s.latency_ms < 1000 for s in trace.steps)
    assert trace.agent_name == "weather-assistant"


def test_the_two_ai_sdk_generations_agree_on_the_route() -> None:
    """ai 5 (`ai.*` spans) and ai 7 (`gen_ai.*` spans) of the same script: the same calls."""
    for scenario in ("detour", "loop"):
        old = JS.load("ai5_spans", scenario, "candidate")
        new = JS.load("readable_spans", scenario, "candidate")
        calls = [(s.name, s.input_payload) for s in tool_steps(old)]
        assert calls == [(s.name, s.input_payload) for s in tool_steps(new)]
        assert compare(old, new).candidate.model_turns == compare(new, old).candidate.model_turns


def test_dropped_spans_are_counted_visibly_in_inspect(tmp_path: Path) -> None:
    spans = copy.deepcopy(read_document(OI.path("spans", "identical", "baseline")))
    root = spans[-1]
    http = copy.deepcopy(root)
    http["name"] = "GET /v1/forecast"
    http["context"]["span_id"] = "0x00000000000000aa"
    http["parent_id"] = root["context"]["span_id"]
    http["attributes"] = {"http.method": "GET", "http.url": "https://weather.example/v1"}
    path = tmp_path / "with_http.json"
    path.write_bytes(orjson.dumps([*spans, http]))
    trace = load_trace(path)
    assert (trace.metadata or {})["dropped_spans"] == 1
    assert (trace.metadata or {})["dropped_span_names"] == {"GET /v1/forecast": 1}
    result = runner.invoke(app, ["inspect", str(path)])
    assert result.exit_code == 0, result.output
    assert "dropped spans" in result.stdout
    assert "1 not agent steps (GET /v1/forecast ×1)" in result.stdout
    as_json = runner.invoke(app, ["inspect", str(path), "--format", "json"])
    assert orjson.loads(as_json.stdout)["dropped_spans"] == 1
