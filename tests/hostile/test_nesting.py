"""One nesting limit (200 levels of payload) for the whole pipeline: 200 works everywhere, 201
is refused at load, naming the JSON path."""

from __future__ import annotations

import orjson
import pytest

from agentdiff import load_trace
from agentdiff.errors import TraceValidationError
from agentdiff.limits import MAX_DEPTH
from agentdiff.loader import parse_trace_data

from .helpers import SPEC, cli, nested, refused, spec, write

FIELDS = ["input_payload", "output_payload", "metadata"]


def _deep_trace(levels: int, field: str = "input_payload"):
    document = spec()
    document["steps"][1][field] = nested(levels)
    document["task_input"] = {"q": [nested(min(levels, MAX_DEPTH) - 2)]}
    return document


@pytest.mark.parametrize("fmt", ["terminal", "json", "markdown", "html", "junit"])
def test_200_levels_go_through_every_renderer(tmp_path, fmt):
    deep = write(tmp_path / "deep.json", _deep_trace(MAX_DEPTH))
    outcome = cli("compare", SPEC, deep, "--format", fmt)
    assert outcome.code in (0, 1), outcome.stderr
    assert outcome.stdout


def test_200_levels_go_through_convert_and_inspect(tmp_path):
    deep = write(tmp_path / "deep.json", _deep_trace(MAX_DEPTH, "output_payload"))
    converted = cli("convert", deep, "-o", tmp_path / "out.json")
    assert converted.code == 0, converted.stderr
    assert load_trace(tmp_path / "out.json").steps[1].output_payload == nested(MAX_DEPTH)
    for fmt in ("terminal", "json"):
        assert cli("inspect", deep, "--format", fmt).code == 0
    assert cli("compare", deep, deep, "--compare-content").code == 0


@pytest.mark.parametrize("field", FIELDS)
def test_201_levels_are_refused_at_load_naming_the_path(tmp_path, field):
    deep = write(tmp_path / "deep.json", _deep_trace(MAX_DEPTH + 1, field))
    for args in (("compare", SPEC, deep), ("inspect", deep), ("convert", deep)):
        refused(cli(*args), "deep.json", f"steps[1].{field}.a.a", "deeper than 200 levels")


def test_deep_task_input_is_named_too():
    document = spec()
    document["task_input"] = {"q": [nested(MAX_DEPTH - 1)]}
    with pytest.raises(TraceValidationError, match=r"task_input\.q\[0\]\.a"):
        parse_trace_data(document)


def test_a_document_far_too_deep_is_refused_before_any_adapter(tmp_path):
    document = spec()
    document["steps"][0]["input_payload"] = "DEEP"
    text = orjson.dumps(document).decode().replace('"DEEP"', '{"a":' * 600 + "1" + "}" * 600)
    (tmp_path / "d.json").write_text(text)
    refused(cli("inspect", tmp_path / "d.json"), "deeper than 250 levels", "steps[0].input_payload")
    listy = tmp_path / "lists.json"
    listy.write_text("[" * 900 + "]" * 900)
    refused(cli("inspect", listy), "deeper than 250 levels", "$")


def test_a_deep_parent_chain_inspects_with_bounded_lines(tmp_path):
    n = 5000
    steps = [
        {
            "step_id": f"s{i}",
            "parent_id": f"s{i - 1}" if i else None,
            "step_index": i,
            "step_type": "tool_call",
            "name": f"tool_{i % 7}",
        }
        for i in range(n)
    ]
    document = {"schema_version": "1.0.0", "trace_id": "deep", "agent_name": "a", "steps": steps}
    outcome = cli("inspect", write(tmp_path / "chain.json", document))
    assert outcome.code == 0, outcome.stderr
    lines = outcome.stdout.splitlines()
    assert sum("tool_call tool_" in line for line in lines) == n
    assert max(len(line) for line in lines) < 120  # the guides stop growing: linear output
    assert lines[n].lstrip().startswith(f"⋮{n} ")


def _otlp_value(levels: int, kind: str) -> dict[str, object]:
    """An OTLP attribute value nesting `levels` maps (`kvlist`) or lists (`array`)."""
    value: dict[str, object] = {"stringValue": "x"}
    for _ in range(levels):
        if kind == "kvlist":
            value = {"kvlistValue": {"values": [{"key": "a", "value": value}]}}
        else:
            value = {"arrayValue": {"values": [value]}}
    return value


def _otlp(value: dict[str, object]) -> dict[str, object]:
    attributes = [
        {"key": "openinference.span.kind", "value": {"stringValue": "CHAIN"}},
        {"key": "input.value", "value": value},
    ]
    span = {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": "b7ad6b7169203331",
        "name": "root",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000001000000000",
        "attributes": attributes,
    }
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}


@pytest.mark.parametrize(
    ("name", "lists", "maps"), [("deep.otlp.json", 80, 60), ("deep.jsonl", 79, 59)]
)
@pytest.mark.parametrize("kind", ["kvlist", "array"])
def test_the_otlp_depth_hint_tells_how_deep_an_attribute_value_may_nest(
    tmp_path, kind, name, lists, maps
):
    """Each level of an OTLP value costs 3 or 4 levels of JSON: the hint gives the real room."""
    most = maps if kind == "kvlist" else lists
    target = tmp_path / name
    target.write_bytes(orjson.dumps(_otlp(_otlp_value(most, kind))))
    assert cli("inspect", target).code == 0
    target.write_bytes(orjson.dumps(_otlp(_otlp_value(most + 1, kind))))
    outcome = cli("inspect", target)
    refused(outcome, name, f"so it may nest {lists} lists or {maps} maps")
    assert "payloads may nest at most 200" not in outcome.stderr
