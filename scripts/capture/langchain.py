"""Capture real LangGraph / LangSmith / OpenInference traces offline: `python langchain.py OUT_ROOT`.

A LangGraph `create_react_agent` weather assistant (tools geocode / get_weather / web_search /
calculator, a `ToolNode(handle_tool_errors=True)`) runs on a scripted `BaseChatModel` that plays
back `AIMessage(tool_calls=..., usage_metadata=...)`. Each of the 5 scenarios × 2 sides is ONE
real run, observed at once by an `InMemorySaver` checkpointer, a `LangChainTracer` (a
`langsmith.Client` that sends nothing; the finished root run is kept) and the OpenInference
LangChain instrumentor on an OTel `TracerProvider` with an `InMemorySpanExporter`.

Writes, under OUT_ROOT:
- `langgraph/<scenario>/<side>.{messages,lc_dumps,model_dump,openai,state,checkpoint,
  channel_values,debug}.json` (`debug`: the `stream_mode="debug"` events of the same run)
- `langsmith/<scenario>/<side>.{nested,flat,ingest,server}.json` (`ingest`: the SDK's
  `{"post", "patch"}` batch body; `server`: emulated `read_run` records with server-side
  token totals and costs)
- `openinference/<scenario>/<side>.{spans,otlp,otlp_b64,phoenix,wrapped}.json` and
  `<side>.otlp_jsonl.jsonl` (`otlp_b64`: protobuf's own JSON mapping, base64 ids; `phoenix`:
  emulated Phoenix REST `{"data": [...]}`; `wrapped`: `{"spans": [...]}`)
- `<source>/<scenario>/<side>.facts.json` (recorded inside the tools and the scripted model) and
  `<source>/manifest.json`.

`CAPTURE_ONLY=shape,shape` writes only those shapes, and only after checking that the run's
facts equal the facts already on disk (so new shapes join fixtures captured earlier).
`CAPTURE_SCENARIOS=parallel` runs only the named scenarios (the others stay as captured).

Besides the five scenarios every source has, `parallel` is a fan-out: one `AIMessage` asks for
`geocode` and `web_search` at once (the candidate lists them in the other order). Its facts
record, per model message, the tool calls it issued (`model_messages`). Without `PHOENIX_URL`
the `parallel` scenario has no `phoenix` file (it would be emulated).
"""

from __future__ import annotations

import base64
import json
import os
import re
import sys
import time
import urllib.request
import uuid
import warnings
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.load import dumpd
from langchain_core.messages import AIMessage, BaseMessage, messages_to_dict
from langchain_core.messages.utils import convert_to_openai_messages
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langchain_core.tracers.langchain import LangChainTracer
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import ToolNode, create_react_agent
from langsmith import Client
from langsmith._internal._background_thread import _ensure_ingest_config
from langsmith._internal._serde import dumps_json
from langsmith.schemas import LangSmithInfo
from langsmith.schemas import Run as ServerRun
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

PACKAGES = (
    "langgraph",
    "langgraph-prebuilt",
    "langgraph-checkpoint",
    "langchain-core",
    "langsmith",
    "openinference-instrumentation-langchain",
    "opentelemetry-sdk",
    "opentelemetry-exporter-otlp-proto-common",
    "protobuf",
)
PRODUCED_BY = {name: version(name) for name in PACKAGES}
SCENARIOS = ("identical", "detour", "loop", "error_retry", "reworded", "parallel")
AGENT = "weather_agent"
TASK = "What's the weather like in Paris right now? Give me the temperature in Fahrenheit."
PROMPT = "You are a weather assistant. Use the tools to answer."
WEATHER_ARGS = {"lat": 48.8566, "lon": 2.3522, "units": "imperial"}
FINAL = "It is 65.1°F in Paris right now, with light rain and 81% humidity."
REWORDED = "Paris is at about 65°F at the moment; expect light rain (humidity 81%)."
TIMEOUT = "weather service timeout"


@dataclass
class Facts:
    """What the live run did, recorded where it happened."""

    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    model_messages: list[list[str]] = field(default_factory=list)
    """The names of the tool calls each model message issued, in its order ([] for none)."""
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    fail_next_weather: bool = False
    final_output: str | None = None


FACTS = Facts()


# ---------------------------------------------------------------- tools (fixed data)


def _record(name: str, arguments: dict[str, Any], error: str | None = None) -> None:
    FACTS.tool_calls.append({"name": name, "arguments": arguments, "error": error})


@tool
def geocode(city: str) -> str:
    """Find the coordinates of a city."""
    _record("geocode", {"city": city})
    return json.dumps({"city": city, "country": "FR", "lat": 48.8566, "lon": 2.3522})


@tool
def get_weather(lat: float, lon: float, units: str = "metric") -> str:
    """Current weather at a position."""
    arguments = {"lat": lat, "lon": lon, "units": units}
    if FACTS.fail_next_weather:
        FACTS.fail_next_weather = False
        _record("get_weather", arguments, TIMEOUT)
        raise TimeoutError(TIMEOUT)
    _record("get_weather", arguments)
    return json.dumps(
        {"temperature": 65.1, "units": units, "conditions": "light rain", "humidity": 81}
    )


@tool
def web_search(query: str) -> str:
    """Search the web."""
    _record("web_search", {"query": query})
    return json.dumps(
        [
            {
                "title": "Weather forecast - Meteo",
                "url": "https://weather.example/f",
                "snippet": f"Hourly forecast and current conditions for: {query}.",
            }
        ]
    )


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    _record("calculator", {"expression": expression})
    return "65.1"


TOOLS = [geocode, get_weather, web_search, calculator]


# ---------------------------------------------------------------- the scripted model

Turn = tuple[str, list[tuple[str, dict[str, Any]]]]
"""(text, [(tool name, args)]) — one model turn; no tool calls = the final answer."""

GEOCODE: Turn = ("", [("geocode", {"city": "Paris"})])
WEATHER: Turn = ("", [("get_weather", WEATHER_ARGS)])
SEARCH: Turn = (
    "Let me search for recent reports first.",
    [("web_search", {"query": "Paris weather right now"})],
)
FAN_OUT = [GEOCODE[1][0], ("web_search", {"query": "Paris weather right now"})]
BASELINE: list[Turn] = [GEOCODE, WEATHER, (FINAL, [])]
SCRIPTS: dict[tuple[str, str], list[Turn]] = {
    ("detour", "candidate"): [GEOCODE, SEARCH, WEATHER, (FINAL, [])],
    ("loop", "candidate"): [GEOCODE, WEATHER, WEATHER, WEATHER, WEATHER, (FINAL, [])],
    ("error_retry", "candidate"): [
        GEOCODE,
        WEATHER,
        ("The service timed out; retrying.", WEATHER[1]),
        (FINAL, []),
    ],
    ("parallel", "baseline"): [("", FAN_OUT), WEATHER, (FINAL, [])],
    ("parallel", "candidate"): [("", FAN_OUT[::-1]), WEATHER, (FINAL, [])],
    ("reworded", "candidate"): [
        ("I'll look up Paris first.", GEOCODE[1]),
        ("Now the current conditions.", WEATHER[1]),
        (REWORDED, []),
    ],
}


class ScriptedChatModel(BaseChatModel):
    """Plays back a fixed list of turns; reports token usage like a provider would."""

    turns: list[Turn]
    position: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        text, calls = self.turns[self.position]
        self.position += 1
        prompt = 250 + 60 * len(messages)
        completion = 10 + len(text) // 4 + 8 * len(calls)
        FACTS.llm_calls += 1
        FACTS.model_messages.append([name for name, _ in calls])
        FACTS.prompt_tokens += prompt
        FACTS.completion_tokens += completion
        if not calls:
            FACTS.final_output = text
        usage = {
            "input_tokens": prompt,
            "output_tokens": completion,
            "total_tokens": prompt + completion,
        }
        message = AIMessage(
            content=text,
            tool_calls=[
                {"name": n, "args": a, "id": f"call_{uuid.uuid4().hex[:24]}", "type": "tool_call"}
                for n, a in calls
            ],
            usage_metadata=usage,
            response_metadata={
                "token_usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
                "model_name": "scripted-chat-1",
                "finish_reason": "tool_calls" if calls else "stop",
            },
        )
        return ChatResult(
            generations=[ChatGeneration(message=message)],
            llm_output={"token_usage": usage, "model_name": "scripted-chat-1"},
        )


# ---------------------------------------------------------------- observers


class QueueingClient(Client):
    """The SDK's batching client (`/runs/batch`, no multipart); what it queues for upload is
    kept here, and the body it would POST is caught instead of sent."""

    def __init__(self) -> None:
        self.queued: list[Any] = []
        self.bodies: list[dict[str, Any]] = []
        super().__init__(
            api_key="none",
            api_url="http://localhost:1",
            auto_batch_tracing=True,
            info=LangSmithInfo(
                batch_ingest_config={
                    **_ensure_ingest_config(LangSmithInfo()),
                    "use_multipart_endpoint": False,
                }
            ),
        )

    def _put_tracing_queue(self, item: Any) -> None:
        self.queued.append(item)

    def _post_batch_ingest_runs(self, body: bytes, **_: Any) -> None:
        self.bodies.append(json.loads(body))


class KeepingTracer(LangChainTracer):
    """`LangChainTracer` that keeps the finished root run (with its `child_runs`)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.roots: list[Any] = []

    def _persist_run(self, run: Any) -> None:
        self.roots.append(run)


warnings.filterwarnings("ignore", message="create_react_agent has been moved")
PROVIDER = TracerProvider()
SPANS = InMemorySpanExporter()
PROVIDER.add_span_processor(SimpleSpanProcessor(SPANS))
LangChainInstrumentor().instrument(tracer_provider=PROVIDER)


# ---------------------------------------------------------------- one run → all shapes


def run_once(scenario: str, side: str) -> dict[str, Any]:
    """Run the agent once; return every shape plus the facts."""
    global FACTS  # noqa: PLW0603 - the tools record into the run's facts
    FACTS = Facts(fail_next_weather=(scenario, side) == ("error_retry", "candidate"))
    SPANS.clear()
    model = ScriptedChatModel(turns=SCRIPTS.get((scenario, side), BASELINE))
    saver = InMemorySaver()
    graph = create_react_agent(
        model,
        ToolNode(TOOLS, handle_tool_errors=True),
        prompt=PROMPT,
        checkpointer=saver,
        name=AGENT,
    )
    client = QueueingClient()
    tracer = KeepingTracer(client=client, project_name="agentdiff-capture")
    config = {"configurable": {"thread_id": str(uuid.uuid4())}, "callbacks": [tracer]}
    debug: list[Any] = []
    result: dict[str, Any] = {}
    for mode, chunk in graph.stream(
        {"messages": [("user", TASK)]}, config, stream_mode=["debug", "values"]
    ):
        if mode == "debug":
            debug.append(jsonable(chunk))
        else:
            result = chunk
    tracer.wait_for_futures()
    messages = result["messages"]
    state = graph.get_state({"configurable": config["configurable"]})
    checkpoint = saver.get_tuple({"configurable": config["configurable"]})
    spans = SPANS.get_finished_spans()
    root = tracer.roots[-1]
    return {
        "langgraph": {
            "messages": messages_to_dict(messages),
            "lc_dumps": dumpd(result),
            "model_dump": [m.model_dump() for m in messages],
            "openai": convert_to_openai_messages(messages),
            "state": jsonable(state._asdict()),
            "checkpoint": dumpd(checkpoint._asdict()),
            "channel_values": dumpd(checkpoint.checkpoint),
            "debug": debug,
        },
        "langsmith": {
            "nested": run_dump(root),
            "flat": flat_runs(root),
            "ingest": ingest_body(client),
            "server": server_runs(flat_runs(root)),
        },
        "openinference": {
            "spans": [json.loads(s.to_json()) for s in spans],
            "otlp": otlp_document(spans),
            "otlp_jsonl": [otlp_document(spans[i : i + 4]) for i in range(0, len(spans), 4)],
            "otlp_b64": MessageToDict(encode_spans(spans)),
            "phoenix": phoenix_document(spans),
            "wrapped": {"spans": [json.loads(s.to_json()) for s in spans]},
        },
        "facts": facts(scenario, side),
    }


def facts(scenario: str, side: str) -> dict[str, Any]:
    """The live-run facts (without `source`, added per source)."""
    return {
        "scenario": scenario,
        "side": side,
        "agent_name": AGENT,
        "tool_calls": FACTS.tool_calls,
        **({"model_messages": FACTS.model_messages} if scenario == "parallel" else {}),
        "llm_calls": FACTS.llm_calls,
        "prompt_tokens": FACTS.prompt_tokens,
        "completion_tokens": FACTS.completion_tokens,
        "total_tokens": FACTS.prompt_tokens + FACTS.completion_tokens,
        "cost_usd": None,
        "final_output": FACTS.final_output,
        "produced_by": PRODUCED_BY,
    }


def jsonable(value: Any) -> Any:
    """Messages → `model_dump()`, named tuples → dicts, other objects → strings."""
    if isinstance(value, BaseMessage):
        return value.model_dump()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if hasattr(value, "_asdict"):
        return jsonable(value._asdict())
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return value.isoformat() if isinstance(value, datetime) else str(value)


RUN_INTERNALS = {
    "child_runs",
    "parent_run",
    "parent_dotted_order",
    "ls_client",
    "address",
    "replicas",
}


def run_dump(run: Any) -> dict[str, Any]:
    """The run's fields as LangSmith's own serializer writes them, `child_runs` nested."""
    dump = json.loads(dumps_json({k: v for k, v in run if k not in RUN_INTERNALS}))
    dump["child_runs"] = [run_dump(child) for child in run.child_runs]
    return dump


def flat_runs(root: Any) -> list[dict[str, Any]]:
    """Emulated `Client.list_runs` output: every run without `child_runs`, in dotted order."""
    out: list[dict[str, Any]] = []

    def walk(node: dict[str, Any]) -> None:
        children = node.pop("child_runs", None) or []
        out.append(node)
        for child in children:
            walk(child)

    walk(run_dump(root))
    return sorted(out, key=lambda r: r["dotted_order"])


def ingest_body(client: QueueingClient) -> dict[str, Any]:
    """The `{"post": [...], "patch": [...]}` body of every run's create and update ops.

    The SDK serialized each op as the tracer called `create_run` / `update_run`; its own
    `_batch_ingest_run_ops` builds the body. Live uploads split the ops over several batches (and
    merge a post with its patch when both fall in one); here they are one body, uncombined.
    """
    client._batch_ingest_run_ops([item.item for item in client.queued])  # noqa: SLF001
    if len(client.bodies) != 1:
        msg = f"expected one ingest body, got {len(client.bodies)}"
        raise RuntimeError(msg)
    return client.bodies[0]


PRICE_PER_MILLION = {"prompt": 0.15, "completion": 0.60}
"""The price the emulated LangSmith server charges for `scripted-chat-1` (USD per 1M tokens)."""


def _usage_of(run: dict[str, Any]) -> tuple[int, int] | None:
    usage = ((run.get("extra") or {}).get("metadata") or {}).get("usage_metadata")
    if run["run_type"] != "llm" or not usage:
        return None
    return int(usage["input_tokens"]), int(usage["output_tokens"])


def server_runs(flat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Emulated `Client.read_run` / `list_runs` records (the SDK's `schemas.Run`): the server
    adds status, token counts (an LLM run's own, rolled up into every ancestor) and costs."""
    totals: dict[str, list[int]] = {r["id"]: [0, 0] for r in flat}
    parents = {r["id"]: r.get("parent_run_id") for r in flat}
    for run in flat:
        usage = _usage_of(run)
        node = run["id"] if usage else None
        while node is not None and usage is not None:
            totals[node][0] += usage[0]
            totals[node][1] += usage[1]
            node = parents.get(node)
    out = []
    for run in flat:
        prompt, completion = totals[run["id"]]
        cost_in = prompt * PRICE_PER_MILLION["prompt"] / 1e6
        cost_out = completion * PRICE_PER_MILLION["completion"] / 1e6
        record = ServerRun(
            **{k: v for k, v in run.items() if k in ServerRun.model_fields},
            status="error" if run.get("error") else "success",
            prompt_tokens=prompt,
            completion_tokens=completion,
            total_tokens=prompt + completion,
            prompt_cost=round(cost_in, 12),
            completion_cost=round(cost_out, 12),
            total_cost=round(cost_in + cost_out, 12),
        )
        out.append(json.loads(record.model_dump_json(exclude={"child_runs"})))
    return out


def _hex_id(value: int, width: int) -> str:
    return format(value, f"0{width}x")


PHOENIX_URL = os.environ.get("PHOENIX_URL")
"""A Phoenix server (`scripts/capture/phoenix.sh` starts one): the `phoenix` shape is then what
its REST API returns for the run's spans; without one it is emulated from the spans."""


def phoenix_document(spans: Any) -> dict[str, Any]:
    """`GET /v1/projects/default/spans` for this run's trace, or its emulation."""
    if not PHOENIX_URL:
        return {"data": [phoenix_span(s) for s in spans], "next_cursor": None}
    post = urllib.request.Request(  # what OTLPSpanExporter (HTTP, protobuf) sends
        f"{PHOENIX_URL}/v1/traces",
        data=encode_spans(spans).SerializeToString(),
        headers={"Content-Type": "application/x-protobuf"},
        method="POST",
    )
    urllib.request.urlopen(post, timeout=30).read()
    trace_id = format(spans[0].context.trace_id, "032x")
    for _ in range(300):  # ingestion is asynchronous
        with urllib.request.urlopen(
            f"{PHOENIX_URL}/v1/projects/default/spans?limit=1000", timeout=30
        ) as answer:
            page = json.loads(answer.read())
        mine = [s for s in page["data"] if s["context"]["trace_id"] == trace_id]
        if len(mine) == len(spans):
            return {**page, "data": mine}
        time.sleep(0.1)
    msg = f"Phoenix returned {len(mine)} of {len(spans)} spans of trace {trace_id}"
    raise RuntimeError(msg)


def phoenix_span(span: Any) -> dict[str, Any]:
    """Emulated Phoenix REST span (`GET /v1/projects/{id}/spans` → `{"data": [...]}`): hex ids
    under `context`, `span_kind` from `openinference.span.kind`, ISO times, flat attributes."""
    attrs = dict(span.attributes or {})
    status = span.status.status_code.name
    return {
        "id": _hex_id(span.context.span_id, 16),
        "name": span.name,
        "context": {
            "trace_id": _hex_id(span.context.trace_id, 32),
            "span_id": _hex_id(span.context.span_id, 16),
        },
        "span_kind": attrs.get("openinference.span.kind", "UNKNOWN"),
        "parent_id": _hex_id(span.parent.span_id, 16) if span.parent else None,
        "start_time": datetime.fromtimestamp(span.start_time / 1e9, tz=UTC).isoformat(),
        "end_time": datetime.fromtimestamp(span.end_time / 1e9, tz=UTC).isoformat(),
        "status_code": "UNSET" if status == "UNSET" else status,
        "status_message": span.status.description or "",
        "attributes": attrs,
        "events": [
            {
                "name": e.name,
                "timestamp": datetime.fromtimestamp(e.timestamp / 1e9, tz=UTC).isoformat(),
                "attributes": dict(e.attributes or {}),
            }
            for e in span.events
        ],
    }


def otlp_document(spans: Any) -> dict[str, Any]:
    """One OTLP/JSON TracesData document (ids as hex, as OTLP/JSON requires)."""
    doc = MessageToDict(encode_spans(spans))
    for resource in doc.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return doc


# ---------------------------------------------------------------- writing

SHAPES: dict[str, dict[str, tuple[str, str, bool, str]]] = {
    "langgraph": {
        "messages": (
            "langgraph",
            "<side>.messages.json",
            False,
            "messages_to_dict(result['messages'])",
        ),
        "lc_dumps": (
            "langgraph",
            "<side>.lc_dumps.json",
            False,
            "langchain_core.load.dumpd(result): constructor dumps of the result dict",
        ),
        "model_dump": (
            "langgraph",
            "<side>.model_dump.json",
            False,
            "bare list of message.model_dump()",
        ),
        "openai": (
            "langgraph",
            "<side>.openai.json",
            False,
            "convert_to_openai_messages(result['messages']): no ids, usage or status",
        ),
        "state": (
            "langgraph",
            "<side>.state.json",
            False,
            "graph.get_state(config) as JSON (values.messages as model_dump dicts)",
        ),
        "checkpoint": (
            "langgraph",
            "<side>.checkpoint.json",
            False,
            "dumpd(InMemorySaver.get_tuple(config)._asdict()): the CheckpointTuple",
        ),
        "channel_values": (
            "langgraph",
            "<side>.channel_values.json",
            False,
            "dumpd(checkpoint_tuple.checkpoint): the checkpoint dict",
        ),
        "debug": (
            "langgraph",
            "<side>.debug.json",
            False,
            (
                "graph.stream(..., stream_mode='debug') events of the same run (task, task_result, "
                "checkpoint), messages as model_dump dicts"
            ),
        ),
    },
    "langsmith": {
        "nested": (
            "langsmith",
            "<side>.nested.json",
            False,
            "LangChainTracer root run with nested child_runs (LangSmith's serializer)",
        ),
        "flat": (
            "langsmith",
            "<side>.flat.json",
            True,
            (
                "list_runs-style flat list of the same runs without child_runs, sorted by "
                "dotted_order (built from the real run objects)"
            ),
        ),
        "ingest": (
            "langsmith",
            "<side>.ingest.json",
            True,
            (
                "{post, patch} /runs/batch body built by the SDK's own serializer and "
                "_batch_ingest_run_ops from every create_run/update_run op of the run, uncombined "
                "(live uploads spread them over several bodies); usage in "
                "extra.metadata.usage_metadata of the LLM runs' patches"
            ),
        ),
        "server": (
            "langsmith",
            "<side>.server.json",
            True,
            (
                "read_run-style langsmith.schemas.Run records with server-side status, token "
                "counts (rolled up into ancestors) and costs at 0.15/0.60 USD per 1M "
                "prompt/completion tokens"
            ),
        ),
    },
    "openinference": {
        "spans": (
            "openinference",
            "<side>.spans.json",
            False,
            "JSON list of ReadableSpan.to_json() dicts (InMemorySpanExporter)",
        ),
        "otlp": (
            "openinference",
            "<side>.otlp.json",
            False,
            "one OTLP/JSON TracesData document (encode_spans + MessageToDict, hex ids)",
        ),
        "otlp_jsonl": (
            "openinference",
            "<side>.otlp_jsonl.jsonl",
            False,
            "JSON Lines, one TracesData document per 4 spans (file-exporter style)",
        ),
        "otlp_b64": (
            "openinference",
            "<side>.otlp_b64.json",
            False,
            "MessageToDict(encode_spans(spans)) as protobuf writes it: base64 trace/span ids",
        ),
        "phoenix": (
            "openinference",
            "<side>.phoenix.json",
            not PHOENIX_URL,
            (
                "Phoenix REST GET /v1/projects/default/spans {data: [span]} of the run, the spans "
                "sent to a local Phoenix server over OTLP/HTTP (scripts/capture/phoenix.sh)"
                if PHOENIX_URL
                else "Phoenix REST {data: [span]} (context.trace_id/span_id, span_kind, "
                "parent_id, ISO times, flat attributes) emulated from the real spans"
            ),
        ),
        "wrapped": (
            "openinference",
            "<side>.wrapped.json",
            True,
            "{spans: [ReadableSpan.to_json() dicts]}: the real span dicts under a 'spans' key",
        ),
    },
}


def scrub(text: str) -> str:
    """Rewrite this machine's paths (in tracebacks) to `/app/...`."""
    for prefix in sorted(
        {sys.prefix, sys.base_prefix, str(Path.cwd()), str(Path.home())}, key=len, reverse=True
    ):
        text = text.replace(prefix, "/app")
    return re.sub(r'File \\"/(?!app/)[^"\\]*/', 'File \\"/app/', text)


def write_json(path: Path, data: Any, *, lines: bool = False, compact: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if lines:
        text = "".join(json.dumps(doc, ensure_ascii=False) + "\n" for doc in data)
    else:
        text = json.dumps(data, indent=None if compact else 1, ensure_ascii=False) + "\n"
    path.write_text(scrub(text), encoding="utf-8")


def write_manifest(out: Path, source: str) -> None:
    shapes = {
        name: {"adapter": adapter, "file": file, "emulated": emulated, "description": description}
        for name, (adapter, file, emulated, description) in SHAPES[source].items()
    }
    write_json(
        out / source / "manifest.json",
        {
            "source": source,
            "capture_script": "scripts/capture/langchain.py",
            "produced_by": PRODUCED_BY,
            "shapes": shapes,
        },
    )


def check_facts(path: Path, facts: dict[str, Any]) -> None:
    """With `CAPTURE_ONLY`, new shapes join old files: the run must have done the same."""
    old = json.loads(path.read_text(encoding="utf-8"))
    keep = ("produced_by",)
    if {k: v for k, v in old.items() if k not in keep} != {
        k: v for k, v in facts.items() if k not in keep
    }:
        msg = f"{path}: this run's facts differ from the stored ones; run a full capture"
        raise RuntimeError(msg)


def main(out: Path) -> None:
    only = set(filter(None, os.environ.get("CAPTURE_ONLY", "").split(",")))
    chosen = set(filter(None, os.environ.get("CAPTURE_SCENARIOS", "").split(",")))
    for scenario in [s for s in SCENARIOS if not chosen or s in chosen]:
        for side in ("baseline", "candidate"):
            captured = run_once(scenario, side)
            for source, shapes in SHAPES.items():
                folder = out / source / scenario
                facts = {"source": source, **captured["facts"]}
                if only:
                    check_facts(folder / f"{side}.facts.json", json.loads(scrub(json.dumps(facts))))
                for shape, (_, file, _, _) in shapes.items():
                    if (only and shape not in only) or (
                        shape == "phoenix" and scenario == "parallel" and not PHOENIX_URL
                    ):
                        continue
                    write_json(
                        folder / file.replace("<side>", side),
                        captured[source][shape],
                        lines=file.endswith(".jsonl"),
                        compact=source != "langgraph",
                    )
                if not only:
                    write_json(folder / f"{side}.facts.json", facts)
            print(
                f"captured {scenario}/{side}: {len(captured['facts']['tool_calls'])} tool "
                f"calls, {captured['facts']['llm_calls']} llm calls"
            )
    if not chosen:  # a partial capture keeps the manifests the full one wrote
        for source in SHAPES:
            write_manifest(out, source)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
