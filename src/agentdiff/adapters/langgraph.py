"""The `langgraph` adapter: what LangGraph users have on disk, no OTel needed.

Accepted documents (each auto-detected), all holding `result["messages"]` in any serialization
the shared engine reads (`agentdiff.adapters.messages`):

- a bare message list;
- a result dict `{"messages": [...]}` (also as written by `dumpd(result)`, or as a constructor
  dump whose `kwargs` hold the messages);
- a state snapshot `{"values": {"messages": [...]}, "next", "config", "created_at", ...}`;
- a checkpoint `{"channel_values": {"messages": [...]}, "ts", "id", ...}`;
- a dumped `CheckpointTuple` `{"config", "checkpoint": {...checkpoint...}, "metadata", ...}`;
- a `stream_mode="debug"` event stream: a list of `{"type": "checkpoint" | "task" |
  "task_result", "step", "timestamp", "payload"}` events. The conversation is the last
  checkpoint's `values.messages`; each message a node wrote (`task_result`) takes that node's
  run as its step's times (`task` → `task_result` timestamps), and a node that failed is an
  `error` step.

Messages alone carry no per-step times, so their step latency stays unknown; the snapshot /
checkpoint time goes to `trace.metadata["created_at"]`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agentdiff.adapters._kit.payloads import as_optional_payload, as_payload
from agentdiff.adapters.base import BaseAdapter
from agentdiff.adapters.messages import (
    Message,
    conversation_steps,
    is_message_like,
    normalize_messages,
    sum_usage,
)
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TraceStep
from agentdiff.timeparse import duration_ms, iso_utc, parse_iso, timing_metadata

__all__ = ["LangGraphAdapter"]

_SNIFF_ITEMS = 3
_DEFAULT_AGENT = "langgraph_agent"


@dataclass
class _Found:
    """Where the messages sit in a document, plus what the container says about the run."""

    shape: str
    messages: list[Any]
    path: str
    config: dict[str, Any] = field(default_factory=dict)
    created_at: Any = None
    checkpoint_id: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
    node_runs: list[_NodeRun] = field(default_factory=list)
    """Debug streams only: each node run, with the ids of the messages it wrote."""


@dataclass(frozen=True)
class _NodeRun:
    """One node run of a debug stream (`task` → `task_result`)."""

    name: str
    started: Any
    ended: Any
    error: Any
    message_ids: tuple[str, ...]


_DEBUG_TYPES = frozenset(("checkpoint", "task", "task_result"))


def _dict_at(data: Any, *keys: str) -> dict[str, Any] | None:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else None


def _messages_in(container: dict[str, Any] | None) -> list[Any] | None:
    messages = container.get("messages") if container is not None else None
    return messages if isinstance(messages, list) else None


def _as_list(data: Any) -> _Found | None:
    return _Found("messages", data, "") if isinstance(data, list) else None


def _is_debug_event(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and item.get("type") in _DEBUG_TYPES
        and isinstance(item.get("payload"), dict)
        and "step" in item
    )


def _as_debug_stream(data: Any) -> _Found | None:
    if not (isinstance(data, list) and data and all(map(_is_debug_event, data[:_SNIFF_ITEMS]))):
        return None
    events = [e for e in data if _is_debug_event(e)]
    checkpoints = [e for e in events if e["type"] == "checkpoint"]
    last = checkpoints[-1]["payload"] if checkpoints else {}
    messages = _messages_in(_dict_at(last, "values"))
    if messages is None:
        return None
    index = data.index(checkpoints[-1])
    return _Found(
        "debug",
        messages,
        f"[{index}].payload.values.messages",
        _dict_at(last, "config") or {},
        checkpoints[-1].get("timestamp"),
        extra={"graph_metadata": last.get("metadata"), "debug_events": len(events)},
        node_runs=_node_runs(events),
    )


def _node_runs(events: list[dict[str, Any]]) -> list[_NodeRun]:
    started = {
        str(e["payload"].get("id")): e.get("timestamp") for e in events if e["type"] == "task"
    }
    runs = []
    for event in (e for e in events if e["type"] == "task_result"):
        payload = event["payload"]
        written = _messages_in(
            payload.get("result") if isinstance(payload.get("result"), dict) else None
        )
        ids = tuple(
            str(m.get("id") or _dict_at(m, "kwargs", "id") or _dict_at(m, "data", "id") or "")
            for m in written or []
            if isinstance(m, dict)
        )
        runs.append(
            _NodeRun(
                name=str(payload.get("name") or "node"),
                started=started.get(str(payload.get("id"))),
                ended=event.get("timestamp"),
                error=payload.get("error"),
                message_ids=tuple(i for i in ids if i),
            )
        )
    return runs


def _as_result(data: Any) -> _Found | None:
    messages = _messages_in(data)
    return None if messages is None else _Found("result", messages, "messages")


def _as_constructor_result(data: Any) -> _Found | None:
    if not (isinstance(data, dict) and data.get("lc") == 1):
        return None
    messages = _messages_in(_dict_at(data, "kwargs"))
    return None if messages is None else _Found("result", messages, "kwargs.messages")


def _as_state(data: Any) -> _Found | None:
    messages = _messages_in(_dict_at(data, "values"))
    if messages is None:
        return None
    config = _dict_at(data, "config") or {}
    return _Found(
        "state",
        messages,
        "values.messages",
        config,
        data.get("created_at"),
        extra={"next": data.get("next"), "graph_metadata": data.get("metadata")},
    )


def _as_checkpoint(data: Any) -> _Found | None:
    messages = _messages_in(_dict_at(data, "channel_values"))
    if messages is None:
        return None
    return _Found(
        "checkpoint", messages, "channel_values.messages", {}, data.get("ts"), data.get("id")
    )


def _as_checkpoint_tuple(data: Any) -> _Found | None:
    found = _as_checkpoint(_dict_at(data, "checkpoint"))
    if found is None:
        return None
    found.shape, found.path = "checkpoint_tuple", f"checkpoint.{found.path}"
    found.config = _dict_at(data, "config") or {}
    found.extra = {"graph_metadata": data.get("metadata")}
    return found


_LOCATORS: tuple[Callable[[Any], _Found | None], ...] = (
    _as_debug_stream,
    _as_list,
    _as_checkpoint_tuple,
    _as_state,
    _as_checkpoint,
    _as_constructor_result,
    _as_result,
)
"""Container shapes, most specific first; the first that finds a message list wins."""


def _locate(data: Any) -> _Found | None:
    return next((found for loc in _LOCATORS if (found := loc(data)) is not None), None)


class LangGraphAdapter(BaseAdapter):
    """LangGraph message lists, result dicts, state snapshots and checkpoints."""

    name: ClassVar[str] = "langgraph"
    aliases: ClassVar[tuple[str, ...]] = ("langchain_messages",)
    description: ClassVar[str] = (
        "LangGraph/LangChain message lists, state snapshots and checkpoint dumps (no OTel)"
    )

    @classmethod
    def detect(cls, data: Any) -> bool:
        """Claims documents whose message list starts with LangChain-family role messages."""
        found = _locate(data)
        if found is None or not found.messages:
            return False
        head = found.messages[:_SNIFF_ITEMS]
        return all(is_message_like(item) for item in head)

    @classmethod
    def from_dict(cls, data: Any) -> AgentTrace:
        """Normalize the conversation with the shared engine and wrap it as one trace."""
        found = _locate(data)
        if found is None:
            keys = ", ".join(sorted(map(str, data))[:8]) if isinstance(data, dict) else ""
            msg = (
                "expected a message list, {'messages': [...]}, {'values': {'messages'}}, "
                "{'channel_values': {'messages'}} or {'checkpoint': {...}}; "
                f"got {type(data).__name__}" + (f" with keys {keys}" if keys else "")
            )
            raise TraceFormatError(msg)
        messages = normalize_messages(found.messages, path=found.path)
        if not messages:
            msg = f"{found.path}: the conversation is empty; expected at least one message"
            raise TraceFormatError(msg)
        return _build_trace(found, messages)


def _build_trace(found: _Found, messages: list[Message]) -> AgentTrace:
    steps = _timed(conversation_steps(messages), found.node_runs)
    final = next((s for s in reversed(steps) if s.step_type is StepType.RESPONSE), None)
    human = next((m for m in messages if m.role == "human"), None)
    return AgentTrace(
        trace_id=_trace_id(found, messages),
        agent_name=next((m.name for m in messages if m.role == "ai" and m.name), _DEFAULT_AGENT),
        task_input=as_payload(human.content) if human is not None else {},
        final_output=as_optional_payload(
            final.output_payload.get("content") if final and final.output_payload else None
        ),
        steps=steps,
        total_tokens=sum_usage(messages),
        total_latency_ms=_run_latency(found.node_runs),
        metadata=_trace_metadata(found, messages),
    )


def _timed(steps: list[TraceStep], runs: list[_NodeRun]) -> list[TraceStep]:
    """Steps of messages a debug-stream node wrote get that node's times (and its error)."""
    by_message = {mid: run for run in runs for mid in run.message_ids}
    out = []
    for step in steps:
        run = by_message.get(str((step.metadata or {}).get("message_id")))
        if run is None:
            out.append(step)
            continue
        start, end = (
            parse_iso(t) if isinstance(t, str) else None for t in (run.started, run.ended)
        )
        update: dict[str, Any] = {
            "latency_ms": duration_ms(start, end),
            "metadata": {**(step.metadata or {}), **timing_metadata(start, end), "node": run.name},
        }
        if run.error:
            update |= {
                "status": StepStatus.ERROR,
                "error_message": " ".join(str(run.error).split()),
            }
        out.append(step.model_copy(update=update))
    return out


def _run_latency(runs: list[_NodeRun]) -> float | None:
    """From the first node's start to the last node's end (debug streams only)."""
    starts = [t for r in runs if isinstance(r.started, str) and (t := parse_iso(r.started))]
    ends = [t for r in runs if isinstance(r.ended, str) and (t := parse_iso(r.ended))]
    return duration_ms(min(starts), max(ends)) if starts and ends else None


def _trace_id(found: _Found, messages: list[Message]) -> str:
    configurable = _dict_at(found.config, "configurable") or {}
    for candidate in (
        configurable.get("thread_id"),
        found.checkpoint_id,
        configurable.get("checkpoint_id"),
    ):
        if isinstance(candidate, str) and candidate:
            return candidate
    digest = hashlib.sha256()
    for i, message in enumerate(messages):
        digest.update(f"{i}|{message.role}|{message.id or message.content}\n".encode())
    return f"langgraph-{digest.hexdigest()[:16]}"


def _trace_metadata(found: _Found, messages: list[Message]) -> dict[str, Any]:
    meta: dict[str, Any] = {"langgraph_shape": found.shape, "message_count": len(messages)}
    configurable = _dict_at(found.config, "configurable") or {}
    for key in ("thread_id", "checkpoint_id", "checkpoint_ns"):
        if configurable.get(key) is not None:
            meta[key] = configurable[key]
    if found.checkpoint_id is not None:
        meta["checkpoint_id"] = found.checkpoint_id
    created = parse_iso(found.created_at)
    if created is not None:
        meta["created_at"] = iso_utc(created)
    meta.update({k: v for k, v in found.extra.items() if v is not None})
    return meta
