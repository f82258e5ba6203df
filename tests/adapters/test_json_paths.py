"""A value an adapter needs, written with the wrong type, is an error naming its JSON path.

Each case takes a real captured file, puts one wrong value where the adapter reads it, and
loads it from disk like the CLI does: the error is one line, `<file>: <JSON path>: expected
..., got <value>` — never a silently unknown count, a stringified object used as a name, or a
number passed off as an id. Absent optional fields stay tolerated (`test_contract` loads every
real file, and `test_absent_values_stay_tolerated` drops some).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from tests.realdata import REAL

from agentdiff.errors import TraceFormatError
from agentdiff.loader import load_trace, read_document

Mutate = Callable[[Any], str]
"""Changes the document in place; returns the JSON path it broke."""

COUNT = "expected a token count (a whole number from 0 to 10^12), got"


def _first(items: list[Any], test: Callable[[Any], bool]) -> int:
    return next(i for i, item in enumerate(items) if test(item))


# ---------------------------------------------------------------- OpenInference / OTLP


def _span_json_tokens(doc: Any) -> str:
    i = _first(doc, lambda s: "llm.token_count.prompt" in (s.get("attributes") or {}))
    doc[i]["attributes"]["llm.token_count.prompt"] = "abc"
    return f'[{i}].attributes.llm.token_count.prompt: {COUNT} "abc"'


def _otlp_spans(doc: Any) -> list[Any]:
    spans: list[Any] = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    return spans


def _otlp_tokens(doc: Any) -> str:
    spans = _otlp_spans(doc)
    i = _first(spans, lambda s: any(a["key"] == "llm.token_count.prompt" for a in s["attributes"]))
    attr = next(a for a in spans[i]["attributes"] if a["key"] == "llm.token_count.prompt")
    attr["value"] = {"stringValue": "12 tokens"}
    where = f"resourceSpans[0].scopeSpans[0].spans[{i}].attributes.llm.token_count.prompt"
    return f'{where}: {COUNT} "12 tokens"'


def _otlp_trace_id(doc: Any) -> str:
    _otlp_spans(doc)[1]["traceId"] = 12345
    return "resourceSpans[0].scopeSpans[0].spans[1].traceId: expected a string, got 12345"


def _span_json_trace_id(doc: Any) -> str:
    doc[2]["context"]["trace_id"] = 1e308
    return "[2].context.trace_id: expected a string, got 1e+308"


def _wrapped_name(doc: Any) -> str:
    doc["spans"][0]["name"] = {"a": 1}
    return "spans[0].name: expected a string, got an object"


# ---------------------------------------------------------------- OpenAI Agents SDK


def _agents_usage(doc: Any) -> str:
    i = _first(doc["spans"], lambda s: s["span_data"]["type"] == "generation")
    doc["spans"][i]["span_data"]["usage"]["input_tokens"] = -3
    return f"spans[{i}].span_data.usage.input_tokens: {COUNT} -3"


def _agents_ingest_name(doc: Any) -> str:
    i = _first(doc["data"], lambda s: (s.get("span_data") or {}).get("type") == "function")
    doc["data"][i]["span_data"]["name"] = 7
    return f"data[{i}].span_data.name: expected a string, got 7"


def _agents_time(doc: Any) -> str:
    doc["spans"][0]["started_at"] = ["2026"]
    return "spans[0].started_at: expected a string, got an array"


# ---------------------------------------------------------------- Langfuse


def _langfuse_usage(doc: Any) -> str:
    i = _first(doc["observations"], lambda o: o["type"] == "GENERATION")
    doc["observations"][i]["usageDetails"]["input"] = "many"
    return f'observations[{i}].usageDetails.input: {COUNT} "many"'


def _langfuse_snake_cost(doc: Any) -> str:
    i = _first(doc["observations"], lambda o: o["type"] == "GENERATION")
    doc["observations"][i]["cost_details"]["total"] = "cheap"
    return f'observations[{i}].cost_details.total: expected a number, got "cheap"'


def _langfuse_v2_parent(doc: Any) -> str:
    doc["data"][3]["parentObservationId"] = True
    return "data[3].parentObservationId: expected an id (a string), got true"


def _langfuse_download_name(doc: Any) -> str:
    doc["trace"]["name"] = ["weather"]
    return "trace.name: expected a string, got an array"


# ---------------------------------------------------------------- LangSmith


def _llm_run_path(run: dict[str, Any], where: str = "") -> str | None:
    if run["run_type"] == "llm":
        return where
    for i, child in enumerate(run.get("child_runs") or []):
        found = _llm_run_path(child, f"{where}.child_runs[{i}]" if where else f"child_runs[{i}]")
        if found is not None:
            return found
    return None


def _dig(doc: Any, where: str) -> Any:
    node = doc
    for part in where.replace("]", "").replace("[", ".").split("."):
        if part:
            node = node[int(part)] if part.isdigit() else node[part]
    return node


def _langsmith_nested_tokens(doc: Any) -> str:
    where = _llm_run_path(doc)
    assert where is not None
    _dig(doc, where)["prompt_tokens"] = 1.5
    return f"{where}.prompt_tokens: {COUNT} 1.5"


def _langsmith_patch_time(doc: Any) -> str:
    i = len(doc["patch"]) - 1
    doc["patch"][i]["end_time"] = {"at": 1}
    return f"patch[{i}].end_time: expected a timestamp, got an object"


def _langsmith_flat_cost(doc: Any) -> str:
    i = _first(doc, lambda r: r["run_type"] == "llm")
    doc[i]["total_cost"] = "a lot"
    return f'[{i}].total_cost: expected a cost in USD (a number), got "a lot"'


# ---------------------------------------------------------------- LangGraph messages


def _langgraph_usage(doc: Any) -> str:
    i = _first(doc, lambda m: m["type"] == "ai")
    doc[i]["data"]["usage_metadata"]["output_tokens"] = "18"  # numeric text is a count
    doc[i]["data"]["usage_metadata"]["input_tokens"] = "lots"
    return f'[{i}].data.usage_metadata.input_tokens: {COUNT} "lots"'


def _langgraph_tool_call_id(doc: Any) -> str:
    i = _first(doc, lambda m: m["type"] == "tool")
    doc[i]["data"]["tool_call_id"] = {"id": "x"}
    return f"[{i}].data.tool_call_id: expected an id (a string), got an object"


# ---------------------------------------------------------------- CrewAI


def _crewai_event_usage(doc: Any) -> str:
    events = doc["events"]
    i = _first(events, lambda e: e["type"] == "llm_call_completed")
    events[i]["event_data"]["usage"] = {"prompt_tokens": [1]}
    return f"events[{i}].event_data.usage.prompt_tokens: {COUNT} an array"


def _crewai_kickoff_usage(doc: Any) -> str:
    doc["token_usage"]["total_tokens"] = 10**13
    return f"token_usage.total_tokens: {COUNT} {10**13}"


def _crewai_kickoff_agent(doc: Any) -> str:
    doc["tasks_output"][1]["agent"] = 42
    return "tasks_output[1].agent: expected a string, got 42"


# ---------------------------------------------------------------- coding agents (JSON Lines)


def _claude_usage(doc: Any) -> str:
    i = _first(doc, lambda r: r.get("type") == "assistant" and "usage" in r.get("message", {}))
    doc[i]["message"]["usage"]["output_tokens"] = "x"
    return f'[{i}].message.usage.output_tokens: {COUNT} "x"'


def _codex_usage(doc: Any) -> str:
    i = _first(
        doc,
        lambda r: (
            r.get("type") == "event_msg"
            and r["payload"].get("type") == "token_count"
            and isinstance(r["payload"].get("info"), dict)
        ),
    )
    info = doc[i]["payload"]["info"]
    key = "total_token_usage" if info.get("total_token_usage") else "last_token_usage"
    info[key]["input_tokens"] = -1
    return f"[{i}].payload.info.{key}.input_tokens: {COUNT} -1"


CASES: list[tuple[str, Mutate]] = [
    ("openinference/detour/baseline.spans.json", _span_json_tokens),
    ("openinference/detour/baseline.spans.json", _span_json_trace_id),
    ("openinference/detour/baseline.otlp.json", _otlp_tokens),
    ("openinference/detour/baseline.otlp.json", _otlp_trace_id),
    ("openinference/detour/baseline.wrapped.json", _wrapped_name),
    ("openai_agents/detour/baseline.json", _agents_usage),
    ("openai_agents/detour/baseline.json", _agents_time),
    ("openai_agents/detour/baseline.ingest.json", _agents_ingest_name),
    ("langfuse/detour/baseline.json", _langfuse_usage),
    ("langfuse/detour/baseline.snake.json", _langfuse_snake_cost),
    ("langfuse/detour/baseline.v2_observations.json", _langfuse_v2_parent),
    ("langfuse/detour/baseline.download.json", _langfuse_download_name),
    ("langsmith/detour/baseline.nested.json", _langsmith_nested_tokens),
    ("langsmith/detour/baseline.ingest.json", _langsmith_patch_time),
    ("langsmith/detour/baseline.flat.json", _langsmith_flat_cost),
    ("langgraph/detour/baseline.messages.json", _langgraph_usage),
    ("langgraph/detour/baseline.messages.json", _langgraph_tool_call_id),
    ("crewai/detour/baseline.events.json", _crewai_event_usage),
    ("crewai/detour/baseline.kickoff.json", _crewai_kickoff_usage),
    ("crewai/detour/baseline.kickoff.json", _crewai_kickoff_agent),
    ("claude_code/detour/baseline.session.jsonl", _claude_usage),
    ("codex/detour/baseline.rollout.jsonl", _codex_usage),
]


def _write(target: Path, document: Any) -> None:
    if target.suffix == ".jsonl":
        target.write_bytes(b"\n".join(orjson.dumps(row) for row in document))
    else:
        target.write_bytes(orjson.dumps(document))


@pytest.mark.parametrize(("name", "mutate"), CASES, ids=[f"{n}-{m.__name__}" for n, m in CASES])
def test_a_wrong_value_is_an_error_naming_its_json_path(
    tmp_path: Path, name: str, mutate: Mutate
) -> None:
    document = copy.deepcopy(read_document(REAL / name))
    expected = mutate(document)
    target = tmp_path / Path(name).name
    _write(target, document)
    with pytest.raises(TraceFormatError) as info:
        load_trace(target)
    assert str(info.value) == f"{target}: {expected}"


def test_absent_values_stay_tolerated(tmp_path: Path) -> None:
    """Dropping optional fields (usage, times, names) loads; unknown stays unknown."""
    document = copy.deepcopy(read_document(REAL / "openai_agents/detour/baseline.json"))
    for span in document["spans"]:
        span["span_data"].pop("usage", None)
        (span["span_data"].get("data") or {}).pop("usage", None)  # the `turn` spans' usage
        span.pop("started_at")
    target = tmp_path / "baseline.json"
    _write(target, document)
    trace = load_trace(target)
    assert trace.total_tokens is None
    assert all("started_at" not in (s.metadata or {}) for s in trace.steps)
