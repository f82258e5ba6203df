"""The `openai_agents` adapter: OpenAI Agents SDK traces.

Accepted documents:

- `{"trace": Trace.export(), "spans": [Span.export(), ...]}` (what a `TracingProcessor` sees);
- the spec's "top-level trace object with a flat list of spans": `{"object": "trace", "id",
  "workflow_name", ..., "spans": [...]}`;
- the ingest body `{"data": [trace, span, ...]}` that `BackendSpanExporter` POSTs (items carry
  `"object": "trace"` / `"trace.span"`); it may hold several traces (`trace_ids`/`select_trace`);
- a bare list of such exported items (e.g. a JSON Lines file written by a custom processor).

Span mapping (`span_data.type` → step type, name):

| type | step | name |
|---|---|---|
| agent, guardrail | routing | the agent / guardrail name |
| handoff | routing | `handoff <from> → <to>` |
| speech_group, mcp_tools | routing | type (SDK plumbing: grouping, listing an MCP server's tools) |
| generation | llm_call | the model (chat messages in, messages out, usage) |
| response | llm_call | `response` (only `response_id` and usage are exported) |
| transcription, speech | llm_call | the model (audio blobs are dropped from the payloads) |
| function | tool_call | the function name; `input` JSON string parsed, `output` parsed |
| custom | thought | the custom span's name |
| anything else | thought | the type; never an error |

`task`/`turn` bookkeeping spans (custom spans whose `data.sdk_span_type` or name is task/turn)
are not steps: their children move to the nearest kept ancestor and the trace counts them in
`metadata["skipped_spans"]`; an error on one (the SDK attaches an input guardrail's tripwire
to its turn span) fails the guardrail that tripped under it, else its nearest kept ancestor. A
guardrail span with `triggered: true` is a failed step ("Guardrail tripwire triggered"); a span
error's data beyond its message is named (`Max turns exceeded (max_turns: 3)`).
Usage missing from an LLM span stays unknown; but the ingest
sanitizer strips `usage` from `response` spans, so an LLM span without usage takes its `turn`
span's usage (once per turn, flagged `metadata["usage_source"] = "turn"`). A function step
inside a `turn` span gets `metadata["turn_id"]` = that turn's id (the SDK opens one turn per
model call and runs the function calls that call asked for inside it); without `turn` spans
(older SDK versions) it is the generation/response span before it under the same agent, when
that generation's output lists a call of its name or names none (`_kit.turns`). Every LLM step
records `metadata["model"]` (`None` for a `response` span, which names no model) and its token
details (`*_tokens_details`) in `metadata["usage"]`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agentdiff.adapters.base import BaseAdapter
from agentdiff.adapters.openai_agents.trace import build_trace
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import AgentTrace

__all__ = ["OpenAIAgentsAdapter"]

_ITEM_OBJECTS = ("trace", "trace.span")
_SNIFF = 5


class OpenAIAgentsAdapter(BaseAdapter):
    """OpenAI Agents SDK traces: {trace, spans}, the ingest body {data: [...]}, item lists."""

    name: ClassVar[str] = "openai_agents"
    aliases: ClassVar[tuple[str, ...]] = ("openai-agents", "agents_sdk")
    description: ClassVar[str] = (
        "OpenAI Agents SDK traces: {trace, spans} export or the {data: [...]} ingest body"
    )

    @classmethod
    def detect(cls, data: Any) -> bool:
        """`{trace, spans}` with `span_data` items, or items whose `object` is trace/trace.span."""
        if isinstance(data, dict) and isinstance(data.get("spans"), list):
            trace, spans = _trace_and_spans(data)
            return (
                isinstance(trace, dict)
                and _all_have(spans[:_SNIFF], "span_data")
                and (bool(spans) or trace.get("object") == "trace")
            )
        items = data.get("data") if isinstance(data, dict) else data
        return (
            isinstance(items, list)
            and bool(items)
            and all(
                isinstance(item, dict) and item.get("object") in _ITEM_OBJECTS
                for item in items[:_SNIFF]
            )
        )

    @classmethod
    def trace_ids(cls, data: Any) -> list[str]:
        """Trace ids of an ingest body or item list (the `{trace, spans}` export holds one)."""
        items = _item_list(data)
        if items is None:
            return []
        ids: dict[str, None] = {}
        for item in items:
            if isinstance(item, dict):
                tid = item.get("id") if item.get("object") == "trace" else item.get("trace_id")
                if isinstance(tid, str):
                    ids[tid] = None
        return list(ids)

    @classmethod
    def select_trace(cls, data: Any, trace_id: str) -> Any:
        """The items of one trace, as an ingest body."""
        return _items_of(data, [trace_id])[0][1]

    @classmethod
    def split_traces(cls, data: Any) -> list[tuple[str, Any]]:
        """Each trace id with its items (as an ingest body), in one pass."""
        return _items_of(data, cls.trace_ids(data))

    @classmethod
    def from_dict(cls, data: Any) -> AgentTrace:
        """Build the trace from any of the accepted documents."""
        trace, at, spans = _split_document(data)
        return build_trace(trace, spans, at)


def _all_have(items: list[Any], key: str) -> bool:
    return all(isinstance(item, dict) and key in item for item in items)


def _item_list(data: Any) -> list[Any] | None:
    if isinstance(data, dict) and "spans" not in data:
        data = data.get("data")
    return data if isinstance(data, list) else None


def _trace_and_spans(data: dict[str, Any]) -> tuple[Any, Any]:
    """`{"trace": {...}, "spans": [...]}`, or a trace object holding its own `spans`."""
    if "trace" not in data and data.get("object") == "trace":
        return {k: v for k, v in data.items() if k != "spans"}, data["spans"]
    return data.get("trace"), data["spans"]


def _split_document(data: Any) -> tuple[dict[str, Any], str, list[tuple[str, Any]]]:
    """The trace object, its JSON path and the spans (each with its JSON path) of any shape."""
    if isinstance(data, dict) and "spans" in data:
        trace, spans = _trace_and_spans(data)
        at = "trace" if "trace" in data else ""
        if not isinstance(trace, dict):
            raise TraceFormatError("trace: expected the Trace.export() object")
        if not isinstance(spans, list):
            raise TraceFormatError("spans: expected a list of Span.export() objects")
        return trace, at, [(f"spans[{i}]", span) for i, span in enumerate(spans)]
    items = _item_list(data)
    if items is None:
        msg = (
            "expected {trace, spans}, an ingest body {data: [...]} or a list of exported "
            f"trace/span items, got {type(data).__name__}"
        )
        raise TraceFormatError(msg)
    prefix = "data" if isinstance(data, dict) else ""
    traces = [
        (f"{prefix}[{i}]", item)
        for i, item in enumerate(items)
        if isinstance(item, dict) and item.get("object") == "trace"
    ]
    spans = [
        (f"{prefix}[{i}]", item)
        for i, item in enumerate(items)
        if not (isinstance(item, dict) and item.get("object") == "trace")
    ]
    at, trace = traces[0] if traces else ("trace", {})
    return trace, at, spans


def _items_of(data: Any, trace_ids: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """Each of `trace_ids` with the items of that trace, as an ingest body (`{"data": [...]}`).

    An item is a trace's by its `trace_id`, or as the trace object of that id.
    """
    groups: dict[str, list[Any]] = {trace_id: [] for trace_id in trace_ids}
    for item in _item_list(data) or []:
        if not isinstance(item, dict):
            continue
        own = item.get("id") if item.get("object") == "trace" else None
        keys = [key for key in (item.get("trace_id"), own) if isinstance(key, str)]
        for key in dict.fromkeys(keys):  # an item whose two ids are one is taken once
            group = groups.get(key)
            if group is not None:
                group.append(item)
    return [(trace_id, {"data": items}) for trace_id, items in groups.items()]
