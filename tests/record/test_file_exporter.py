"""`agentdiff.otel.FileSpanExporter` on a real OpenTelemetry SDK `TracerProvider`."""

from __future__ import annotations

import json
import threading

import pytest

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.common")

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from agentdiff import load_trace, parse_trace_data
from agentdiff.otel import FileSpanExporter


def tool_attributes(name: str, arguments: dict) -> dict:
    return {
        "openinference.span.kind": "TOOL",
        "tool.name": name,
        "input.value": json.dumps(arguments),
        "input.mime_type": "application/json",
    }


@pytest.fixture
def provider(tmp_path):
    provider = TracerProvider()
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    files = FileSpanExporter.attach(provider, tmp_path / "traces")
    yield provider, files, memory
    provider.shutdown()


def run_agent(tracer, tools=("geocode", "get_weather"), fail: str | None = None) -> int:
    with tracer.start_as_current_span(
        "agent", attributes={"openinference.span.kind": "AGENT", "input.value": "weather?"}
    ) as root:
        for name in tools:
            with tracer.start_as_current_span(name, attributes=tool_attributes(name, {"q": name})):
                if name == fail:
                    error = TimeoutError("upstream 504")
                    trace.get_current_span().record_exception(error)
                    trace.get_current_span().set_status(trace.StatusCode.ERROR, str(error))
        return root.get_span_context().trace_id


def test_writes_one_otlp_file_per_trace_when_the_root_ends(provider, tmp_path):
    provider_, _, _ = provider
    tracer = provider_.get_tracer("t")
    folder = tmp_path / "traces"
    with tracer.start_as_current_span("agent", attributes={"openinference.span.kind": "AGENT"}):
        with tracer.start_as_current_span("geocode", attributes=tool_attributes("geocode", {})):
            pass
        assert not folder.exists() or not list(folder.iterdir())  # root still open
    trace_id = trace.get_current_span().get_span_context().trace_id  # no current span now
    assert trace_id == 0
    written = list(folder.iterdir())
    assert len(written) == 1 and written[0].name.endswith(".json")
    document = json.loads(written[0].read_text())
    spans = [s for rs in document["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    assert [s["name"] for s in spans] == ["geocode", "agent"]
    assert all(len(s["traceId"]) == 32 and len(s["spanId"]) == 16 for s in spans)
    assert spans[0]["parentSpanId"] == spans[1]["spanId"]
    assert isinstance(spans[0]["kind"], int)
    assert isinstance(spans[0]["startTimeUnixNano"], str)
    assert written[0].name == f"{spans[0]['traceId']}.json"


def test_file_loads_as_the_same_trace_as_the_in_memory_spans(provider):
    provider_, files, memory = provider
    trace_id = run_agent(provider_.get_tracer("t"), fail="get_weather")
    from_file = load_trace(files.path_for(trace_id))
    from_memory = parse_trace_data([json.loads(s.to_json()) for s in memory.get_finished_spans()])
    assert from_file.metadata["source_format"] == "openinference"

    def untimed(t):
        data = t.model_dump(mode="json", exclude={"metadata", "total_latency_ms"})
        for step in data["steps"]:
            step.pop("latency_ms")
            step["metadata"].pop("started_at")
            step["metadata"].pop("ended_at")
        return data

    assert untimed(from_file) == untimed(from_memory)
    assert [s.name for s in from_file.steps] == ["agent", "geocode", "get_weather"]
    failed = from_file.steps[-1]
    assert failed.status.value == "error"
    assert "upstream 504" in (failed.error_message or "")
    assert from_file.trace_id == f"{trace_id:032x}"


def test_late_span_rewrites_the_file(provider):
    provider_, files, _ = provider
    tracer = provider_.get_tracer("t")
    root = tracer.start_span("agent", attributes={"openinference.span.kind": "AGENT"})
    context = trace.set_span_in_context(root)
    late = tracer.start_span("late_tool", context=context, attributes=tool_attributes("late", {}))
    root.end()
    path = files.path_for(root.get_span_context().trace_id)
    assert [s.name for s in load_trace(path).steps] == ["agent"]
    late.end()
    assert [s.name for s in load_trace(path).steps] == ["agent", "late"]


def test_root_under_a_remote_parent_is_a_local_root(provider):
    provider_, files, _ = provider
    remote = SpanContext(
        trace_id=0xABC, span_id=0xDEF, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED)
    )
    context = trace.set_span_in_context(NonRecordingSpan(remote))
    with provider_.get_tracer("t").start_as_current_span(
        "handler", context=context, attributes=tool_attributes("handler", {})
    ):
        pass
    assert files.path_for(0xABC).is_file()


def test_open_traces_are_flushed_on_shutdown(tmp_path):
    provider = TracerProvider()
    files = FileSpanExporter.attach(provider, tmp_path)
    tracer = provider.get_tracer("t")
    root = tracer.start_span("agent")
    child = tracer.start_span("tool", context=trace.set_span_in_context(root))
    child.end()
    assert list(tmp_path.iterdir()) == []
    provider.shutdown()  # the root never ended: its finished spans are still written
    assert [p.name for p in tmp_path.iterdir()] == [
        files.path_for(root.get_span_context().trace_id).name
    ]


def test_batch_processor_and_many_threads(tmp_path):
    provider = TracerProvider()
    exporter = FileSpanExporter(tmp_path)
    provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=10))
    tracer = provider.get_tracer("t")
    ids: list[int] = []
    lock = threading.Lock()

    def work():
        trace_id = run_agent(tracer)
        with lock:
            ids.append(trace_id)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    provider.shutdown()
    assert sorted(p.name for p in tmp_path.glob("*.json")) == sorted(f"{i:032x}.json" for i in ids)
    for trace_id in ids:
        steps = load_trace(exporter.path_for(trace_id)).steps
        assert [s.name for s in steps] == ["agent", "geocode", "get_weather"]


def test_buffer_limit_writes_early_and_completes_later(tmp_path):
    provider = TracerProvider()
    files = FileSpanExporter(tmp_path, max_buffered_spans=3)
    provider.add_span_processor(SimpleSpanProcessor(files))
    tracer = provider.get_tracer("t")
    root = tracer.start_span("agent", attributes={"openinference.span.kind": "AGENT"})
    context = trace.set_span_in_context(root)
    for i in range(5):
        tracer.start_span(
            f"tool{i}", context=context, attributes=tool_attributes(f"t{i}", {})
        ).end()
    path = files.path_for(root.get_span_context().trace_id)
    assert path.is_file()  # written before the root ended
    root.end()
    assert len(load_trace(path).steps) == 6


def test_export_after_shutdown_fails_and_a_bad_folder_never_raises(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    provider = TracerProvider()
    files = FileSpanExporter.attach(provider, blocker / "sub")
    with provider.get_tracer("t").start_as_current_span("agent"):
        pass  # the write fails: logged, never raised into the app
    provider.shutdown()
    assert not (blocker / "sub").exists()
    assert files.export([]).name == "FAILURE"


def test_attach_keeps_the_apps_own_processors(provider):
    provider_, files, memory = provider
    run_agent(provider_.get_tracer("t"))
    assert len(memory.get_finished_spans()) == 3
    assert len(list(files.directory.glob("*.json"))) == 1
