"""OTLP JSON Lines are decoded as they are read: the same trace and errors as the whole route.

The whole route parses every line, then detects, selects and decodes (`load_trace` with the
stream turned off, and `parse_trace_data(read_document(path))`). `load_trace` streams OTLP
lines instead (`loader._stream_spans`); these tests prove it built the trace itself (the
whole-route parser is made to fail) and that what it builds, and every error it gives, is what
the whole route gives, on the real OTLP fixtures (one export request per line as the file
exporter writes them, and each span on its own line).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentdiff import loader
from agentdiff.errors import AgentDiffError, TraceFormatError
from agentdiff.loader import load_trace, parse_trace_data, read_document
from agentdiff.models.trace import AgentTrace
from tests.realdata import REAL, SHARED

OTLP_LINES = sorted(REAL.glob("openinference/*/*.otlp_jsonl.jsonl"))
OTLP_DOCUMENTS = [
    *sorted(REAL.glob("openinference/*/*.otlp.json")),
    *sorted(REAL.glob("openinference/*/*.otlp_b64.json")),
    *sorted(REAL.glob("genai/*/*.otlp.json")),
    *sorted((SHARED / "otlp_json").glob("*/*.json")),
]


def _whole(path: Path, trace_id: str | None = None) -> AgentTrace:
    return parse_trace_data(read_document(path), trace_id=trace_id, source=path)


def _unstreamed(
    path: Path, monkeypatch: pytest.MonkeyPatch, trace_id: str | None = None
) -> AgentTrace:
    """`load_trace` with the stream turned off: the whole route, file name in its errors."""
    with monkeypatch.context() as patch:
        patch.setattr(loader, "_stream_spans", lambda *_: None)
        return load_trace(path, trace_id=trace_id)


def _streamed(
    path: Path, monkeypatch: pytest.MonkeyPatch, trace_id: str | None = None
) -> AgentTrace:
    """`load_trace`, failing if it parses the lines whole instead of streaming them."""

    def whole_parse(*_: Any) -> list[Any]:
        raise AssertionError("the lines were parsed whole, not streamed")

    with monkeypatch.context() as patch:
        patch.setattr(loader, "_parse_lines", whole_parse)
        return load_trace(path, trace_id=trace_id)


def _meta(trace: AgentTrace, key: str) -> Any:
    return (trace.metadata or {})[key]


def _per_span_lines(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One export request per span, each with its resource and scope (a chatty exporter)."""
    lines = []
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                scope = {**ss, "spans": [span]}
                lines.append({"resourceSpans": [{**rs, "scopeSpans": [scope]}]})
    return lines


def _write_lines(path: Path, documents: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in documents))
    return path


def _error(action: Any) -> str:
    with pytest.raises(AgentDiffError) as info:
        action()
    return str(info.value)


@pytest.mark.parametrize("path", OTLP_LINES, ids=lambda p: f"{p.parent.name}-{p.name}")
def test_real_otlp_lines_stream_to_the_whole_route_trace(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    streamed = _streamed(path, monkeypatch)
    assert streamed.model_dump() == _whole(path).model_dump()
    assert _meta(streamed, "source_format") == "openinference"


@pytest.mark.parametrize("original", OTLP_DOCUMENTS, ids=lambda p: f"{p.parent.name}-{p.name}")
def test_each_span_on_its_own_line_streams_to_the_same_trace(
    original: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write_lines(tmp_path / "spans.jsonl", _per_span_lines(read_document(original)))
    streamed = _streamed(path, monkeypatch)
    assert len(streamed.steps) > 1
    assert streamed.model_dump() == _whole(path).model_dump()
    as_document = load_trace(original)
    assert [s.name for s in streamed.steps] == [s.name for s in as_document.steps]


def test_several_traces_give_the_whole_route_error_and_selection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = REAL / "openinference" / "detour"
    sides = [
        read_document(folder / f"{side}.otlp_jsonl.jsonl") for side in ("baseline", "candidate")
    ]
    path = _write_lines(tmp_path / "both.jsonl", [line for side in sides for line in side])
    message = _error(lambda: _streamed(path, monkeypatch))
    assert message == _error(lambda: _unstreamed(path, monkeypatch))
    assert "holds 2 traces" in message
    assert "both.jsonl" in message
    candidate_id = _meta(load_trace(folder / "candidate.otlp_jsonl.jsonl"), "otel_trace_id")
    picked = _streamed(path, monkeypatch, trace_id=f"0x{candidate_id.upper()}")
    assert picked.model_dump() == _whole(path, candidate_id).model_dump()
    alone = load_trace(folder / "candidate.otlp_jsonl.jsonl")
    assert [s.step_id for s in picked.steps] == [s.step_id for s in alone.steps]
    missing = _error(lambda: _streamed(path, monkeypatch, trace_id="feed"))
    assert "no trace 'feed'" in missing
    assert missing == _error(lambda: _unstreamed(path, monkeypatch, trace_id="feed"))


def _broken(lines: list[dict[str, Any]], line: int, key: str, value: Any) -> list[dict[str, Any]]:
    changed = copy.deepcopy(lines)
    changed[line]["resourceSpans"][0]["scopeSpans"][0]["spans"][0][key] = value
    return changed


def test_a_bad_span_gives_the_whole_route_error_naming_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = read_document(REAL / "openinference" / "loop" / "candidate.otlp_jsonl.jsonl")
    path = _write_lines(tmp_path / "bad.jsonl", _broken(lines, 2, "startTimeUnixNano", {"x": 1}))
    message = _error(lambda: load_trace(path))
    assert "[2].resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano" in message
    assert "bad.jsonl" in message
    assert message == _error(lambda: _unstreamed(path, monkeypatch))
    assert message == _error(lambda: load_trace(path, "openinference"))
    with pytest.raises(TraceFormatError):
        _whole(path)


def test_a_bad_span_of_the_trace_not_chosen_does_not_matter(tmp_path: Path) -> None:
    folder = REAL / "openinference" / "detour"
    base = read_document(folder / "baseline.otlp_jsonl.jsonl")
    cand = read_document(folder / "candidate.otlp_jsonl.jsonl")
    path = _write_lines(tmp_path / "both.jsonl", _broken(base, 1, "endTimeUnixNano", [1]) + cand)
    wanted = _meta(load_trace(folder / "candidate.otlp_jsonl.jsonl"), "otel_trace_id")
    picked = load_trace(path, trace_id=wanted)
    assert picked.model_dump() == _whole(path, wanted).model_dump()


def test_invalid_json_on_a_later_line_is_the_same_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = read_document(REAL / "openinference" / "loop" / "candidate.otlp_jsonl.jsonl")
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in lines) + b'{"resourceSpans": [')
    message = _error(lambda: load_trace(path))
    assert f"invalid JSON on line {len(lines) + 1}" in message
    assert message == _error(lambda: _unstreamed(path, monkeypatch))


def test_lines_that_are_not_all_otlp_take_the_whole_route(tmp_path: Path) -> None:
    lines = read_document(REAL / "openinference" / "loop" / "candidate.otlp_jsonl.jsonl")
    path = _write_lines(tmp_path / "mixed.jsonl", [*lines, {"note": "not a span"}])
    assert load_trace(path).model_dump() == _whole(path).model_dump()


def test_span_json_lines_are_left_to_the_whole_route(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spans = read_document(SHARED / "openinference_spans" / "extra_tool_detour" / "baseline.json")
    path = _write_lines(tmp_path / "spans.jsonl", spans)
    assert load_trace(path).model_dump() == _whole(path).model_dump()
    with pytest.raises(AssertionError, match="parsed whole"):
        _streamed(path, monkeypatch)


def test_langfuse_otlp_lines_still_go_to_the_langfuse_adapter(tmp_path: Path) -> None:
    doc = read_document(REAL / "langfuse" / "detour" / "baseline.otlp.json")
    path = _write_lines(tmp_path / "langfuse.jsonl", _per_span_lines(doc))
    trace = load_trace(path)
    assert _meta(trace, "source_format") == "langfuse"
    assert trace.model_dump() == _whole(path).model_dump()


def _loop_lines_per_span() -> list[dict[str, Any]]:
    lines = read_document(REAL / "openinference" / "loop" / "candidate.otlp_jsonl.jsonl")
    return [line for doc in lines for line in _per_span_lines(doc)]


@pytest.mark.parametrize("where", [1, -1], ids=["in-the-first-lines", "on-the-last-line"])
def test_a_bad_span_is_named_without_reading_the_file_whole(
    where: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _loop_lines_per_span()
    line = where % len(lines)
    path = _write_lines(tmp_path / "bad.jsonl", _broken(lines, line, "endTimeUnixNano", [1]))
    message = _error(lambda: _streamed(path, monkeypatch))
    assert f"[{line}].resourceSpans[0].scopeSpans[0].spans[0].endTimeUnixNano" in message
    assert message == _error(lambda: _unstreamed(path, monkeypatch))


def test_after_a_bad_span_the_whole_route_errors_still_come_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _broken(_loop_lines_per_span(), 2, "spanId", 7)
    other = copy.deepcopy(lines[-1])
    other["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"] = "ab" * 16
    two_traces = _write_lines(tmp_path / "two.jsonl", [*lines, other])
    message = _error(lambda: _streamed(two_traces, monkeypatch))
    assert "holds 2 traces" in message
    assert message == _error(lambda: _unstreamed(two_traces, monkeypatch))
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(two_traces.read_bytes() + b'{"resourceSpans": [')
    message = _error(lambda: _streamed(cut, monkeypatch))
    assert f"invalid JSON on line {len(lines) + 2}" in message
    assert message == _error(lambda: _unstreamed(cut, monkeypatch))
