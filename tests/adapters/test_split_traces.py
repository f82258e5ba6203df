"""A file of many runs is split into its traces in one pass (`BaseAdapter.split_traces`).

Each adapter's split gives every trace id the part `select_trace` gives it, and `load_traces`
reads each trace as `--trace-id` reads it; a part keeps what errors name (a document's place
in a JSON Lines file), and the document is read a bounded number of times, whatever the count
of traces (a part per trace read off the whole document took 26 s for 800 traces).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from tests.realdata import REAL, SIDES, RealSource

from agentdiff import AgentTrace, BaseAdapter, TraceStep
from agentdiff.adapters import registry
from agentdiff.adapters.otel import documents as otel_documents
from agentdiff.errors import MultipleTracesError, TraceFormatError
from agentdiff.loader import load_trace, load_traces, parse_trace_data, read_document

OPENINFERENCE = REAL / "openinference" / "detour"
GENAI = REAL / "genai" / "loop"


def _both(read: Callable[[str], Any]) -> list[Any]:
    return [read(side) for side in SIDES]


def _otlp_one_document() -> Any:
    docs = _both(lambda side: read_document(OPENINFERENCE / f"{side}.otlp.json"))
    return {"resourceSpans": [rs for doc in docs for rs in doc["resourceSpans"]]}


def _otlp_json_lines() -> Any:
    return _both(lambda side: read_document(GENAI / f"{side}.otlp.json"))


def _span_list() -> Any:
    return [
        s
        for spans in _both(lambda side: read_document(OPENINFERENCE / f"{side}.spans.json"))
        for s in spans
    ]


def _langfuse(shape: str, *, page: bool = True) -> Callable[[], Any]:
    def made() -> Any:
        source = RealSource("langfuse")
        found = _both(lambda side: read_document(source.path(shape, "detour", side)))
        if shape == "otlp":
            return found
        items = [item for each in found for item in each["data"]]
        return {"data": items, "meta": {}} if page else items

    return made


def _langsmith_flat() -> Any:
    source = RealSource("langsmith")
    return [run for side in SIDES for run in read_document(source.path("flat", "detour", side))]


def _langsmith_ingest() -> Any:
    source = RealSource("langsmith")
    bodies = _both(lambda side: read_document(source.path("ingest", "detour", side)))
    return {key: [r for body in bodies for r in body.get(key, [])] for key in ("post", "patch")}


def _agents_ingest() -> Any:
    source = RealSource("openai_agents")
    bodies = _both(lambda side: read_document(source.path("ingest", "detour", side)))
    return {"data": [item for body in bodies for item in body["data"]]}


def _canonical_lines() -> Any:
    return [
        load_trace(OPENINFERENCE / f"{side}.otlp.json").model_dump(mode="json") for side in SIDES
    ]


DOCUMENTS: dict[str, tuple[str, str, Callable[[], Any]]] = {
    "otlp document": ("openinference", "runs.json", _otlp_one_document),
    "otlp json lines": ("openinference", "runs.jsonl", _otlp_json_lines),
    "span json": ("openinference", "runs.json", _span_list),
    "langfuse v2 page": ("langfuse", "runs.json", _langfuse("v2_observations")),
    "langfuse v2 list": ("langfuse", "runs.json", _langfuse("v2_observations", page=False)),
    "langfuse otlp": ("langfuse", "runs.jsonl", _langfuse("otlp")),
    "langsmith flat": ("langsmith", "runs.json", _langsmith_flat),
    "langsmith ingest": ("langsmith", "runs.json", _langsmith_ingest),
    "openai agents ingest": ("openai_agents", "runs.json", _agents_ingest),
    "canonical json lines": ("generic", "runs.jsonl", _canonical_lines),
}


def _write(path: Path, data: Any) -> Path:
    if path.suffix == ".jsonl":
        path.write_bytes(b"\n".join(map(orjson.dumps, data)) + b"\n")
    else:
        path.write_bytes(orjson.dumps(data))
    return path


@pytest.mark.parametrize("case", DOCUMENTS)
def test_each_trace_gets_the_part_select_trace_gives_it(case: str) -> None:
    name, _, made = DOCUMENTS[case]
    adapter, data = registry.get_adapter(name), made()
    ids = adapter.trace_ids(data)
    assert len(ids) == 2
    assert adapter.split_traces(data) == [(i, adapter.select_trace(data, i)) for i in ids]


SIDE_FILES: dict[str, Callable[[str], Path]] = {
    "otlp document": lambda side: OPENINFERENCE / f"{side}.otlp.json",
    "otlp json lines": lambda side: GENAI / f"{side}.otlp.json",
    "span json": lambda side: OPENINFERENCE / f"{side}.spans.json",
    "langfuse v2 page": lambda side: RealSource("langfuse").path("v2_observations", "detour", side),
    "langfuse v2 list": lambda side: RealSource("langfuse").path("v2_observations", "detour", side),
    "langfuse otlp": lambda side: RealSource("langfuse").path("otlp", "detour", side),
    "langsmith flat": lambda side: RealSource("langsmith").path("flat", "detour", side),
    "langsmith ingest": lambda side: RealSource("langsmith").path("ingest", "detour", side),
    "openai agents ingest": lambda side: RealSource("openai_agents").path("ingest", "detour", side),
    "canonical json lines": lambda side: OPENINFERENCE / f"{side}.otlp.json",
}


def _steps(trace: Any) -> list[dict[str, Any]]:
    return [step.model_dump(mode="json") for step in trace.steps]


@pytest.mark.parametrize("case", DOCUMENTS)
def test_each_run_of_a_file_of_runs_is_the_run_its_own_file_holds(
    case: str, tmp_path: Path
) -> None:
    """An oracle of its own: the two runs, each read from the file it was captured in."""
    _, file_name, made = DOCUMENTS[case]
    found = load_traces(_write(tmp_path / file_name, made()))
    alone = [load_trace(SIDE_FILES[case](side)) for side in SIDES]
    assert [_steps(trace) for _, trace in found] == [_steps(trace) for trace in alone]
    assert [trace.trace_id for _, trace in found] == [trace.trace_id for trace in alone]


@pytest.mark.parametrize("case", DOCUMENTS)
def test_a_file_of_runs_reads_each_as_its_trace_id_picks_it(case: str, tmp_path: Path) -> None:
    name, file_name, made = DOCUMENTS[case]
    path = _write(tmp_path / file_name, made())
    found = load_traces(path)
    document = read_document(path)
    ids = registry.get_adapter(name).trace_ids(document)
    assert [trace_id for trace_id, _ in found] == ids
    for trace_id, trace in found:
        assert trace == parse_trace_data(document, trace_id=trace_id, source=path)
        assert trace == load_trace(path, trace_id=trace_id)


def test_an_error_in_a_part_names_the_document_by_its_place_in_the_file(tmp_path: Path) -> None:
    docs = [*_otlp_json_lines(), *_otlp_json_lines()]
    for n, doc in enumerate(docs[2:]):  # four documents of four traces
        for rs in doc["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for span in ss["spans"]:
                    span["traceId"] = f"{n + 1:032x}"
    docs[3]["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["startTimeUnixNano"] = {"no": 1}
    path = _write(tmp_path / "runs.jsonl", docs)
    where = r"\[3\]\.resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[1\]\.startTimeUnixNano"
    with pytest.raises(TraceFormatError, match=where):
        load_traces(path)


def test_a_file_of_many_traces_is_read_a_bounded_number_of_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = read_document(OPENINFERENCE / "baseline.otlp.json")
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    many = [
        {**span, "traceId": f"{t + 1:032x}", "spanId": f"{t:08x}{span['spanId'][8:]}"}
        | (
            {"parentSpanId": f"{t:08x}{span['parentSpanId'][8:]}"}
            if span.get("parentSpanId")
            else {}
        )
        for t in range(40)
        for span in spans
    ]
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"] = many
    path = _write(tmp_path / "runs.json", doc)
    calls = 0
    real = otel_documents.raw_trace_id

    def counted(raw: dict[str, Any]) -> str:
        nonlocal calls
        calls += 1
        return real(raw)

    monkeypatch.setattr(otel_documents, "raw_trace_id", counted)
    found = load_traces(path)
    assert len(found) == 40
    assert calls <= 5 * len(many)  # a read per trace would be 80 per span


def test_langsmith_runs_whose_ancestors_are_in_another_trace_are_still_listed(
    tmp_path: Path,
) -> None:
    """A run without `trace_id` or `dotted_order` is of its highest ancestor in the file; read
    alone, its part has no such ancestor, and it is listed as that trace all the same."""
    times = {"inputs": {}, "outputs": {}, "start_time": "2024-01-01T00:00:01"}
    runs = [
        {
            "id": "p",
            "name": "agent",
            "run_type": "chain",
            "parent_run_id": "root",
            "dotted_order": "20240101T000000000000Zroot.20240101T000001000000Zp",
            **times,
        },
        {"id": "x", "name": "search", "run_type": "tool", "parent_run_id": "p", **times},
        {"id": "q", "trace_id": "q", "name": "agent", "run_type": "chain", **times},
    ]
    path = _write(tmp_path / "runs.json", runs)
    found = load_traces(path)
    assert [(tid, [s.name for s in t.steps]) for tid, t in found] == [
        ("root", ["agent"]),
        ("p", ["search"]),
        ("q", ["agent"]),
    ]


def test_canonical_lines_sharing_a_trace_id_are_each_a_run(tmp_path: Path) -> None:
    first, second = _canonical_lines()
    second["trace_id"] = first["trace_id"]
    path = _write(tmp_path / "runs.jsonl", [first, second])
    found = load_traces(path)
    assert [len(t.steps) for _, t in found] == [len(first["steps"]), len(second["steps"])]
    assert first["steps"] != second["steps"]
    with pytest.raises(
        MultipleTracesError, match=r"holds 2 traces with the id .* \(\[0\], \[1\]\)"
    ):
        load_trace(path, trace_id=first["trace_id"])


def test_a_line_of_canonical_runs_that_is_no_trace_is_named(tmp_path: Path) -> None:
    first, second = _canonical_lines()
    path = _write(tmp_path / "runs.jsonl", [first, 42, second])
    with pytest.raises(TraceFormatError, match=r"\[1\]: expected a trace object, got int"):
        load_traces(path, "generic")


def test_a_plugin_reading_files_beside_a_file_of_runs_gets_them_for_each_run(
    fresh_registry: Any, tmp_path: Path
) -> None:
    @registry.register_adapter("multiplug")
    class MultiPlug(BaseAdapter):
        @classmethod
        def detect(cls, data: Any) -> bool:
            return isinstance(data, dict) and data.get("kind") == "multi"

        @classmethod
        def trace_ids(cls, data: Any) -> list[str]:
            return [run["id"] for run in data["runs"]]

        @classmethod
        def select_trace(cls, data: Any, trace_id: str) -> Any:
            return {**data, "runs": [r for r in data["runs"] if r["id"] == trace_id]}

        @classmethod
        def companions(cls, path: Path, data: Any) -> list[Path]:
            return [path.with_suffix(".extra.jsonl")]

        @classmethod
        def with_companions(cls, data: Any, records: list[Any]) -> Any:
            runs = [
                {
                    **run,
                    "steps": [
                        *run["steps"],
                        *(r["name"] for r in records if r["run"] == run["id"]),
                    ],
                }
                for run in data["runs"]
            ]
            return {**data, "runs": runs}

        @classmethod
        def from_dict(cls, data: Any) -> AgentTrace:
            (run,) = data["runs"]
            steps = [
                TraceStep(step_id=f"{run['id']}{i}", step_index=i, step_type="tool_call", name=name)
                for i, name in enumerate(run["steps"])
            ]
            return AgentTrace(trace_id=run["id"], agent_name="plug", steps=steps)

    path = _write(
        tmp_path / "runs.json",
        {"kind": "multi", "runs": [{"id": "a", "steps": ["x"]}, {"id": "b", "steps": ["y"]}]},
    )
    _write(
        tmp_path / "runs.extra.jsonl",
        [{"run": "a", "name": "sub-a"}, {"run": "b", "name": "sub-b"}],
    )
    found = {tid: [s.name for s in t.steps] for tid, t in load_traces(path)}
    assert found == {"a": ["x", "sub-a"], "b": ["y", "sub-b"]}
    for tid, names in found.items():
        assert [s.name for s in load_trace(path, trace_id=tid).steps] == names


@pytest.mark.parametrize("name", ["one.json", "lines.jsonl"])
def test_trace_ids_that_differ_only_in_case_are_one_run(tmp_path: Path, name: str) -> None:
    doc = read_document(OPENINFERENCE / "baseline.otlp.json")
    alone = load_trace(OPENINFERENCE / "baseline.otlp.json")
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    for span in spans[::2]:
        span["traceId"] = span["traceId"].upper()
    if name == "one.json":
        path = _write(tmp_path / name, doc)
    else:  # the two spellings on two lines of a stream
        upper = {
            **doc,
            "resourceSpans": [{**doc["resourceSpans"][0], "scopeSpans": [{"spans": spans[::2]}]}],
        }
        lower = {
            **doc,
            "resourceSpans": [{**doc["resourceSpans"][0], "scopeSpans": [{"spans": spans[1::2]}]}],
        }
        path = _write(tmp_path / name, [upper, lower])
    found = load_traces(path)
    assert len(found) == 1
    assert sorted(s.step_id for s in found[0][1].steps) == sorted(s.step_id for s in alone.steps)
    assert len(load_trace(path).steps) == len(alone.steps)
