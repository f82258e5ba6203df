"""Capture real Langfuse v4 SDK traces offline: `python langfuse.py OUT_ROOT`.

A weather agent (`@observe(as_type="agent")`) asks a scripted model (`@observe(as_type=
"generation")`, which reports usage and cost through `update_current_generation`) what to do and
runs the tools geocode / get_weather / web_search (`@observe(as_type="tool")`), then formats the
answer in a `chain` observation. The Langfuse client is the real SDK with its own span processor;
its exporter is an `InMemorySpanExporter`, so nothing leaves the process.

Per scenario and side this writes into `OUT_ROOT/langfuse/<scenario>/`:
- `<side>.otlp.json`: the OTLP/JSON the SDK would POST (its spans through the OTel encoder);
- `<side>.json`, `<side>.snake.json`, `<side>.v2_observations.json`: emulated server responses
  (`GET /api/public/traces/{id}` in camelCase and the SDK's snake_case, `GET
  /api/public/v2/observations`), built from those spans with the SDK's own `langfuse.api` models,
  mapped the way the Langfuse server ingests OTel spans;
- `<side>.download.json`: the trace as the UI's download and the API give it side by side,
  `{"trace": {...}, "observations": [...]}` (the same emulated trace, observations beside it);
- `<side>.facts.json`: what the live run did (recorded inside the tools and the scripted model).

`CAPTURE_ONLY=shape,shape` writes only those shapes, after checking that the run's facts equal
the facts already on disk (so new shapes join fixtures captured earlier).
`CAPTURE_SCENARIOS=parallel` runs only the named scenarios (the others stay as captured).

Besides the five scenarios every source has, `parallel` is a fan-out: one model message asks for
`geocode` and `web_search` at once (the candidate lists them in the other order); the agent runs
them one after the other. Its facts record, per model message, the tool calls it issued
(`model_messages`).
"""

from __future__ import annotations

import base64
import json
import os
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path
from typing import Any

# This file is called langfuse.py: keep its own folder off sys.path so `import langfuse` is the SDK.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from google.protobuf.json_format import MessageToDict  # noqa: E402
from langfuse import Langfuse, observe, propagate_attributes  # noqa: E402
from langfuse.api import (  # noqa: E402
    ObservationsV2Meta,
    ObservationsV2Response,
    ObservationsView,
    ObservationV2,
    TraceWithFullDetails,
)
from langfuse.api.core.pydantic_utilities import parse_obj_as  # noqa: E402
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans  # noqa: E402
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

SOURCE = "langfuse"
PACKAGES = ("langfuse", "opentelemetry-sdk", "opentelemetry-exporter-otlp-proto-common", "protobuf")
PRODUCED_BY = {name: version(name) for name in PACKAGES}
SCENARIOS = ("identical", "detour", "loop", "error_retry", "reworded", "parallel")
TRACE_NAME = "weather-assistant"
MODEL = "gpt-4o-mini-2024-07-18"
PRICE = {"input": 0.15e-6, "output": 0.6e-6}
PARIS = {"lat": 48.8566, "lon": 2.3522}
TASK = "What's the weather in Paris right now, in Fahrenheit?"
FINAL = "It is 65.1°F (18.4°C) in Paris right now, with light rain and 81% humidity."
REWORDED = "Paris has light rain at about 65°F (18.4°C) right now; humidity is 81%."
PROJECT = "cmoffline0proj0000000000"


@dataclass
class Facts:
    """What the live run did, recorded where it happened."""

    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    model_messages: list[list[str]] = field(default_factory=list)
    """The names of the tool calls each model message issued, in its order ([] for none)."""
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    final_output: str | None = None


@dataclass
class Run:
    """The state of one run: its model script, its facts and which tool fails once."""

    script: list[dict[str, Any]]
    facts: Facts = field(default_factory=Facts)
    fail_once: set[str] = field(default_factory=set)


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def _script(scenario: str, side: str) -> tuple[list[dict[str, Any]], set[str]]:
    """The model's turns (and the tools that fail once) for one scenario side."""
    geocode, weather = _call("geocode", city="Paris"), _call("get_weather", **PARIS)
    final = {"content": FINAL}
    if scenario == "parallel":
        fan_out = [
            {"name": "geocode", "arguments": {"city": "Paris"}},
            {"name": "web_search", "arguments": {"query": "Paris weather today"}},
        ]
        calls = fan_out if side == "baseline" else fan_out[::-1]
        return [{"tool_calls": calls}, weather, final], set()
    if side == "baseline" or scenario == "identical":
        return [geocode, weather, final], set()
    scripts = {
        "detour": [geocode, _call("web_search", query="Paris weather today"), weather, final],
        "loop": [geocode, weather, weather, weather, weather, final],
        "error_retry": [geocode, weather, weather, final],
        "reworded": [geocode, weather, {"content": REWORDED}],
    }
    return scripts[scenario], ({"get_weather"} if scenario == "error_retry" else set())


class Agent:
    """The weather agent, instrumented with the real Langfuse `@observe` decorator."""

    def __init__(self, client: Langfuse) -> None:
        self.client = client
        self.run: Run = Run(script=[])
        self.model = observe(name="chat-model", as_type="generation")(self._model)
        self.tools = {
            name: observe(name=name, as_type="tool")(getattr(self, f"_{name}"))
            for name in ("geocode", "get_weather", "web_search")
        }
        self.compose = observe(name="compose-answer", as_type="chain")(self._compose)
        self.agent = observe(name="weather-agent", as_type="agent")(self._agent)

    def _model(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        turn = self.run.script.pop(0)
        prompt = sum(len(json.dumps(m)) for m in messages) // 4
        completion = max(1, len(json.dumps(turn)) // 4)
        cost = {"input": prompt * PRICE["input"], "output": completion * PRICE["output"]}
        cost["total"] = cost["input"] + cost["output"]
        facts = self.run.facts
        facts.llm_calls += 1
        facts.model_messages.append([call["name"] for call in turn.get("tool_calls", [])])
        facts.prompt_tokens += prompt
        facts.completion_tokens += completion
        facts.cost_usd += cost["total"]
        self.client.update_current_generation(
            model=MODEL,
            model_parameters={"temperature": 0},
            usage_details={
                "input": prompt,
                "output": completion,
                "total": prompt + completion,
                "input_cached_tokens": 0,
            },
            cost_details=cost,
        )
        time.sleep(0.002)
        return {"role": "assistant", **turn}

    def _record(self, name: str, arguments: dict[str, Any]) -> None:
        error = None
        if name in self.run.fail_once:
            self.run.fail_once.discard(name)
            error = "weather service unavailable (HTTP 503), please retry"
        self.run.facts.tool_calls.append({"name": name, "arguments": arguments, "error": error})
        time.sleep(0.001)
        if error:
            raise RuntimeError(error)

    def _geocode(self, city: str) -> dict[str, Any]:
        self._record("geocode", {"city": city})
        return {"lat": PARIS["lat"], "lon": PARIS["lon"], "display_name": "Paris, France"}

    def _get_weather(self, lat: float, lon: float) -> dict[str, Any]:
        self._record("get_weather", {"lat": lat, "lon": lon})
        return {"temperature_c": 18.4, "condition": "light rain", "humidity": 81}

    def _web_search(self, query: str) -> dict[str, Any]:
        self._record("web_search", {"query": query})
        return {"results": [{"title": "Paris weather today", "snippet": "Light rain, 18°C"}]}

    def _compose(self, answer: str) -> str:
        return answer.strip()

    def _agent(self, question: str) -> str:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": "You are a weather assistant. Use the tools."},
            {"role": "user", "content": question},
        ]
        while True:
            reply = self.model(messages)
            messages.append(reply)
            if not reply.get("tool_calls"):
                return str(self.compose(reply["content"]))
            for call in reply["tool_calls"]:
                try:
                    result = json.dumps(self.tools[call["name"]](**call["arguments"]))
                except RuntimeError as exc:
                    result = f"Error: {exc}"
                messages.append({"role": "tool", "name": call["name"], "content": result})


def run_once(agent: Agent, scenario: str, side: str) -> tuple[str, Facts]:
    """Run the agent once; returns its trace id and facts."""
    script, fail_once = _script(scenario, side)
    agent.run = Run(script=script, fail_once=fail_once)
    with (
        agent.client.start_as_current_observation(name=TRACE_NAME, as_type="span") as root,
        propagate_attributes(
            trace_name=TRACE_NAME,
            user_id="user-4821",
            session_id=f"sess-{scenario}",
            tags=["weather", "capture"],
            metadata={"scenario": scenario, "side": side},
        ),
    ):
        root.update(input={"question": TASK})
        answer = agent.agent(TASK)
        root.update(output={"answer": answer})
        trace_id = root.trace_id
    agent.run.facts.final_output = answer
    return trace_id, agent.run.facts


# --- OTLP/JSON: the SDK's spans through the OTel protobuf encoder --------------------------------


def _hex(value: str) -> str:
    return base64.b64decode(value).hex()


def otlp_json(spans: list[ReadableSpan]) -> dict[str, Any]:
    """OTLP/JSON as the exporter would send it (ids converted to hex, as OTLP/JSON requires)."""
    doc = MessageToDict(encode_spans(spans))
    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = _hex(span[key])
    return doc


# --- emulated server: OTel spans → observations, as Langfuse ingests them ------------------------


def _ns(value: int | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value / 1e9, tz=timezone.utc)


def _loads(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


def _attrs(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def _observation(span: ReadableSpan, created: datetime) -> dict[str, Any]:
    """One observation (camelCase API fields) from one SDK span."""
    attrs, obs = _attrs(span), "langfuse.observation."
    status = span.status
    level = attrs.get(f"{obs}level") or (
        "ERROR" if status.status_code.name == "ERROR" else "DEFAULT"
    )
    usage = {k: int(v) for k, v in (_loads(attrs.get(f"{obs}usage_details")) or {}).items()}
    cost = {k: float(v) for k, v in (_loads(attrs.get(f"{obs}cost_details")) or {}).items()}
    start, end = _ns(span.start_time), _ns(span.end_time)
    resource = dict(span.resource.attributes)
    scope = span.instrumentation_scope
    return {
        "id": format(span.context.span_id, "016x"),
        "traceId": format(span.context.trace_id, "032x"),
        "parentObservationId": format(span.parent.span_id, "016x") if span.parent else None,
        "type": str(attrs.get(f"{obs}type") or "span").upper(),
        "name": span.name,
        "startTime": start,
        "endTime": end,
        "input": _loads(attrs.get(f"{obs}input")),
        "output": _loads(attrs.get(f"{obs}output")),
        "metadata": {
            "resourceAttributes": resource,
            "scope": {
                "name": scope.name if scope else None,
                "version": scope.version if scope else None,
            },
        },
        "level": level,
        "statusMessage": attrs.get(f"{obs}status_message") or status.description,
        "model": attrs.get(f"{obs}model.name"),
        "modelParameters": _loads(attrs.get(f"{obs}model.parameters")),
        "usageDetails": usage,
        "costDetails": cost,
        "environment": attrs.get("langfuse.environment") or "default",
        "latency": (end - start).total_seconds() if start and end else None,  # seconds
        "createdAt": created,
        "updatedAt": created,
    }


def _observation_view(obs: dict[str, Any]) -> ObservationsView:
    usage, cost = obs["usageDetails"], obs["costDetails"]
    view = {
        **obs,
        "usage": {
            "input": usage.get("input", 0),
            "output": usage.get("output", 0),
            "total": usage.get("total", 0),
            "unit": "TOKENS",
            "inputCost": cost.get("input"),
            "outputCost": cost.get("output"),
            "totalCost": cost.get("total"),
        },
        "calculatedInputCost": cost.get("input"),
        "calculatedOutputCost": cost.get("output"),
        "calculatedTotalCost": cost.get("total", 0.0),
        "promptTokens": usage.get("input", 0),
        "completionTokens": usage.get("output", 0),
        "totalTokens": usage.get("total", 0),
        "unit": "TOKENS",
        "projectId": PROJECT,
    }
    return parse_obj_as(ObservationsView, view)


def _trace_attrs(spans: list[ReadableSpan]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for span in spans:
        for key, value in _attrs(span).items():
            merged.setdefault(key, value)
    return merged


def server_trace(spans: list[ReadableSpan], created: datetime) -> TraceWithFullDetails:
    """`GET /api/public/traces/{id}`: trace fields from the trace attributes / root span."""
    observations = [_observation(s, created) for s in spans]
    root = next(o for o in observations if o["parentObservationId"] is None)
    attrs = _trace_attrs(spans)
    meta = {
        k.removeprefix("langfuse.trace.metadata."): _loads(v)
        for k, v in attrs.items()
        if k.startswith("langfuse.trace.metadata.")
    }
    costs = [o["costDetails"].get("total", 0.0) for o in observations]
    ends = [o["endTime"] for o in observations if o["endTime"]]
    return parse_obj_as(
        TraceWithFullDetails,
        {
            "id": root["traceId"],
            "timestamp": root["startTime"],
            "name": attrs.get("langfuse.trace.name") or root["name"],
            "input": _loads(attrs.get("langfuse.trace.input")) or root["input"],
            "output": _loads(attrs.get("langfuse.trace.output")) or root["output"],
            "sessionId": attrs.get("session.id"),
            "userId": attrs.get("user.id"),
            "release": attrs.get("langfuse.release"),
            "version": attrs.get("langfuse.version"),
            "metadata": meta,
            "tags": list(attrs.get("langfuse.trace.tags") or []),
            "public": False,
            "environment": root["environment"],
            "htmlPath": f"/project/{PROJECT}/traces/{root['traceId']}",
            "latency": (max(ends) - root["startTime"]).total_seconds(),
            "totalCost": sum(costs),
            "scores": [],
            "observations": [_observation_view(o) for o in observations],
        },
    )


def server_v2(spans: list[ReadableSpan], created: datetime) -> ObservationsV2Response:
    """`GET /api/public/v2/observations?traceId=...`: flat observations, IO as JSON strings."""
    attrs = _trace_attrs(spans)
    data = []
    for obs in (_observation(s, created) for s in spans):
        cost = obs["costDetails"]
        data.append(
            parse_obj_as(
                ObservationV2,
                {
                    **obs,
                    "projectId": PROJECT,
                    "isRootObservation": obs["parentObservationId"] is None,
                    "input": json.dumps(obs["input"]) if obs["input"] is not None else None,
                    "output": json.dumps(obs["output"]) if obs["output"] is not None else None,
                    "metadata": obs["metadata"],
                    "totalCost": cost.get("total"),
                    "latency": obs["latency"],
                    "traceName": attrs.get("langfuse.trace.name"),
                    "userId": attrs.get("user.id"),
                    "sessionId": attrs.get("session.id"),
                    "tags": list(attrs.get("langfuse.trace.tags") or []),
                    "release": attrs.get("langfuse.release"),
                },
            )
        )
    return ObservationsV2Response(data=data, meta=ObservationsV2Meta(cursor=None))


# --- writing -----------------------------------------------------------------------------------


def _write(path: Path, data: Any) -> None:
    path.write_text(
        json.dumps(data, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
    )


def _dump(model: Any, *, snake: bool = False) -> Any:
    if snake:
        return json.loads(json.dumps(model.model_dump(by_alias=False), default=_iso))
    return json.loads(model.json())


def _iso(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(type(value).__name__)


SHAPES = {
    "json": ("<side>.json", True, "GET /api/public/traces/{id} (TraceWithFullDetails), camelCase"),
    "snake": (
        "<side>.snake.json",
        True,
        "the same trace as the SDK's pydantic models dump it (snake_case)",
    ),
    "v2_observations": (
        "<side>.v2_observations.json",
        True,
        "GET /api/public/v2/observations: {data: [ObservationV2], meta}",
    ),
    "otlp": (
        "<side>.otlp.json",
        False,
        "OTLP/JSON the v4 SDK exports (InMemorySpanExporter spans, OTel protobuf encoder)",
    ),
    "download": (
        "<side>.download.json",
        True,
        (
            "trace download {trace: Trace fields, observations: [ObservationsView]}: the same "
            "TraceWithFullDetails with its observations beside the trace, not inside"
        ),
    ),
}


def download(trace: dict[str, Any]) -> dict[str, Any]:
    """`{"trace": ..., "observations": [...]}` from a `TraceWithFullDetails` dump."""
    rest = {k: v for k, v in trace.items() if k != "observations"}
    return {"trace": rest, "observations": trace["observations"]}


def write_side(folder: Path, side: str, spans: list[ReadableSpan], facts: dict[str, Any]) -> None:
    """All shapes of one run, plus its facts."""
    created = datetime.now(tz=timezone.utc)
    trace = server_trace(spans, created)
    outputs = {
        "json": _dump(trace),
        "snake": _dump(trace, snake=True),
        "v2_observations": _dump(server_v2(spans, created)),
        "otlp": otlp_json(spans),
        "download": download(_dump(trace)),
    }
    only = set(filter(None, os.environ.get("CAPTURE_ONLY", "").split(",")))
    if only:
        stored = json.loads((folder / f"{side}.facts.json").read_text(encoding="utf-8"))
        if stored != json.loads(json.dumps(facts, default=str)):
            msg = f"{folder}/{side}: facts differ from the stored ones; capture all"
            raise RuntimeError(msg)
    for shape, (pattern, _, _) in SHAPES.items():
        if not only or shape in only:
            _write(folder / pattern.replace("<side>", side), outputs[shape])
    if not only:
        _write(folder / f"{side}.facts.json", facts)


def facts_json(scenario: str, side: str, facts: Facts) -> dict[str, Any]:
    """The facts file of one run."""
    return {
        "source": SOURCE,
        "scenario": scenario,
        "side": side,
        "agent_name": TRACE_NAME,
        "tool_calls": facts.tool_calls,
        **({"model_messages": facts.model_messages} if scenario == "parallel" else {}),
        "llm_calls": facts.llm_calls,
        "prompt_tokens": facts.prompt_tokens,
        "completion_tokens": facts.completion_tokens,
        "total_tokens": facts.prompt_tokens + facts.completion_tokens,
        "cost_usd": round(facts.cost_usd, 12),
        "final_output": facts.final_output,
        "produced_by": PRODUCED_BY,
    }


def manifest() -> dict[str, Any]:
    """What produced the fixtures and which adapter reads each shape."""
    return {
        "source": SOURCE,
        "capture_script": "scripts/capture/langfuse.py",
        "produced_by": PRODUCED_BY,
        "shapes": {
            name: {
                "adapter": "langfuse",
                "file": pattern,
                "emulated": emulated,
                "description": text,
            }
            for name, (pattern, emulated, text) in SHAPES.items()
        },
    }


def main(out_root: Path) -> None:
    """Run every scenario and side; write fixtures under `out_root/langfuse`."""
    exporter = InMemorySpanExporter()
    client = Langfuse(
        public_key="pk-lf-offline",
        secret_key="sk-lf-offline",
        base_url="http://127.0.0.1:9",
        environment="production",
        release="2025.06.1",
        tracer_provider=TracerProvider(),
        span_exporter=exporter,
    )
    agent = Agent(client)
    root = out_root / SOURCE
    chosen = set(filter(None, os.environ.get("CAPTURE_SCENARIOS", "").split(",")))
    for scenario in [s for s in SCENARIOS if not chosen or s in chosen]:
        folder = root / scenario
        folder.mkdir(parents=True, exist_ok=True)
        for side in ("baseline", "candidate"):
            exporter.clear()
            trace_id, facts = run_once(agent, scenario, side)
            client.flush()
            spans = [
                s
                for s in exporter.get_finished_spans()
                if format(s.context.trace_id, "032x") == trace_id
            ]
            spans.sort(key=lambda s: s.start_time or 0)
            write_side(folder, side, spans, facts_json(scenario, side, facts))
    _write(root / "manifest.json", manifest())
    client.shutdown()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
