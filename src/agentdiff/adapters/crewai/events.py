"""CrewAI's trace-event batch → an `AgentTrace` (used by the `crewai` adapter).

The batch is what CrewAI's `TraceBatchManager` posts to its tracing backend:
`{"events": [TraceEvent, ...], "batch_metadata": {...}}`, each event
`{"event_id", "timestamp", "type", "event_data", "emission_sequence", "parent_event_id", ...}`,
in emission order. Mapping:

- `task_started` … `task_completed` / `task_failed` → a `routing` step `<role>/<task name>`
  (a root);
- `llm_call_started` … `llm_call_completed` / `llm_call_failed` (paired by `call_id`) → the
  model turn under its task, as the kickoff dump's messages give it: a `routing` step
  `<role>/<tools it called, sorted>` when the model asked for tools, else a `response` step
  `<role>/final_answer` (an unfinished or failed call stays an `llm_call` `<role>/<model>`), with
  that call's `usage` and `metadata["model"]` — so a kickoff dump and the event batch of one run
  give the same steps;
- `tool_usage_started` … `tool_usage_finished` / `tool_usage_error` (paired by
  `started_event_id`) → a `tool_call` step `<role>/<tool>` under the LLM call that asked for it
  (`metadata["turn_id"]` = that call's step id);
- `tool_failure_detected` marks the matching tool step `error` with the failure message.

Crew, agent, flow and log events give the trace its name, input, output and times, and are not
steps. Times come from each event's `timestamp` (UTC); tokens are counted once per LLM call.
Credential-like keys (`api_key`, `authorization`, ...) in event data never reach a step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agentdiff.adapters._kit.payloads import (
    as_optional_payload,
    as_payload,
    content_id,
    parse_json_string,
    without_secrets,
)
from agentdiff.adapters._kit.shapes import identifier, text
from agentdiff.adapters._kit.tokens import KeySets, count, sum_usage, usage_from
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TokenUsage, TraceStep
from agentdiff.timeparse import duration_ms, parse_iso, timing_metadata

__all__ = ["USAGE_KEYS", "events_trace", "failure_text", "is_event_batch"]

USAGE_KEYS = KeySets(("prompt_tokens",), ("completion_tokens",), ("total_tokens",))
"""CrewAI's `UsageMetrics` names (kickoff output and LLM-call events alike)."""

_SNIFF = 5
_CREWAI_TYPES = frozenset(
    {
        "default_env",
        "crew_kickoff_started",
        "crew_kickoff_completed",
        "crew_kickoff_failed",
        "task_started",
        "task_completed",
        "task_failed",
        "agent_execution_started",
        "llm_call_started",
        "llm_call_completed",
        "tool_usage_started",
        "tool_usage_finished",
        "tool_usage_error",
        "flow_started",
        "flow_created",
        "method_execution_started",
    }
)


def is_event_batch(data: Any) -> bool:
    """`{"events": [...]}` whose first items are CrewAI trace events (`type` + `event_data`)."""
    events = data.get("events") if isinstance(data, dict) else None
    if not isinstance(events, list) or not events:
        return False
    head = events[:_SNIFF]
    return all(
        isinstance(e, dict)
        and isinstance(e.get("event_data"), dict)
        and isinstance(e.get("type"), str)
        for e in head
    ) and any(e["type"] in _CREWAI_TYPES for e in head)


@dataclass
class _Draft:
    """A step under construction: the fields of a `TraceStep`, finished by later events."""

    fields: dict[str, Any]
    started: datetime | None = None
    ended: datetime | None = None
    task_key: str | None = None


@dataclass
class _Walk:
    """State while walking the events in order."""

    drafts: list[_Draft] = field(default_factory=list)
    tasks: dict[str, _Draft] = field(default_factory=dict)
    llm_calls: dict[str, _Draft] = field(default_factory=dict)
    tools: dict[str, _Draft] = field(default_factory=dict)
    last_llm: dict[str | None, _Draft] = field(default_factory=dict)
    current_task: str | None = None
    crew: dict[str, Any] = field(default_factory=dict)
    where: str = ""
    """The JSON path of the event being read (`events[7]`)."""

    def read(self, data: dict[str, Any], key: str, reader: Any = text) -> Any:
        """`event_data[key]` of the current event, checked by `reader` against its path."""
        return reader(data.get(key), f"{self.where}.event_data.{key}")

    def event_id(self, event: dict[str, Any]) -> str | None:
        return identifier(event.get("event_id"), f"{self.where}.event_id")

    def moment(self, event: dict[str, Any]) -> datetime | None:
        return parse_iso(text(event.get("timestamp"), f"{self.where}.timestamp"))

    def add(
        self,
        event: dict[str, Any],
        step_type: StepType,
        name: str,
        parent: _Draft | None,
        **fields: Any,
    ) -> _Draft:
        draft = _Draft(
            {
                "step_id": self.event_id(event) or f"event-{len(self.drafts)}",
                "parent_id": parent.fields["step_id"] if parent else None,
                "step_type": step_type,
                "name": name,
                **fields,
            },
            started=self.moment(event),
            task_key=self.current_task,
        )
        self.drafts.append(draft)
        return draft

    def task_of(self, data: dict[str, Any]) -> _Draft | None:
        key = self.read(data, "task_id", identifier)
        return self.tasks.get(key) if key else self.tasks.get(self.current_task or "")


def _role(walk: _Walk, data: dict[str, Any]) -> str:
    task = walk.task_of(data)
    role = walk.read(data, "agent_role") or (
        task.fields["metadata"]["agent_role"] if task else None
    )
    return str(role or "agent")


def _finish(walk: _Walk, draft: _Draft | None, event: dict[str, Any], **update: Any) -> None:
    if draft is not None:
        draft.ended = walk.moment(event)
        draft.fields.update(update)


# --------------------------------------------------------------------------- handlers
def _task_started(walk: _Walk, event: dict[str, Any], data: dict[str, Any]) -> None:
    key = str(walk.read(data, "task_id", identifier) or walk.event_id(event))
    walk.current_task = key
    role = walk.read(data, "agent_role") or "agent"
    name = walk.read(data, "task_name") or walk.read(data, "task_display_name") or "task"
    walk.tasks[key] = walk.add(
        event,
        StepType.ROUTING,
        f"{role}/{name}",
        None,
        input_payload={
            k: data[k] for k in ("task_description", "expected_output", "context") if data.get(k)
        },
        metadata={"agent_role": role, "task_id": data.get("task_id")},
    )


def _task_ended(walk: _Walk, event: dict[str, Any], data: dict[str, Any]) -> None:
    failed = event["type"] == "task_failed"
    _finish(
        walk,
        walk.task_of(data),
        event,
        output_payload=as_optional_payload(data.get("output_raw")),
        **_error_fields(data.get("error")) if failed else {},
    )


def _llm_started(walk: _Walk, event: dict[str, Any], data: dict[str, Any]) -> None:
    draft = walk.add(
        event,
        StepType.LLM_CALL,
        f"{_role(walk, data)}/{walk.read(data, 'model') or 'llm'}",
        walk.task_of(data),
        input_payload={"messages": data.get("messages")},
        metadata={
            "call_id": data.get("call_id"),
            "model": data.get("model"),
            "agent_role": _role(walk, data),
        },
    )
    walk.llm_calls[str(walk.read(data, "call_id", identifier) or walk.event_id(event))] = draft
    walk.last_llm[walk.current_task] = draft


def _llm_ended(walk: _Walk, event: dict[str, Any], data: dict[str, Any]) -> None:
    key = walk.read(data, "call_id", identifier) or walk.read(data, "started_event_id", identifier)
    draft = walk.llm_calls.pop(str(key), None)
    if event["type"] == "llm_call_failed":
        _finish(walk, draft, event, **_error_fields(data.get("error")))
        return
    output = {
        "response": _clean_response(data.get("response")),
        "call_type": data.get("call_type"),
        "finish_reason": data.get("finish_reason"),
    }
    tokens = usage_from(data.get("usage"), USAGE_KEYS, f"{walk.where}.event_data.usage")
    _finish(walk, draft, event, output_payload=output, tokens=tokens)
    if draft is not None:
        _as_turn(draft, output["response"])


def _as_turn(draft: _Draft, response: Any) -> None:
    """A finished model call is the turn the conversation shows: routing or final answer."""
    calls = response if isinstance(response, list) else []
    names = [str(c["name"]) for c in calls if isinstance(c, dict) and c.get("name")]
    role = draft.fields["metadata"].pop("agent_role")
    if names:
        draft.fields["step_type"] = StepType.ROUTING
        draft.fields["name"] = f"{role}/{','.join(sorted(set(names)))}"  # as the kickoff names it
    else:
        draft.fields["step_type"] = StepType.RESPONSE
        draft.fields["name"] = f"{role}/final_answer"


def _tool_started(walk: _Walk, event: dict[str, Any], data: dict[str, Any]) -> None:
    turn = walk.last_llm.get(walk.current_task)
    meta: dict[str, Any] = {"run_attempts": data.get("run_attempts")}
    if turn is not None:
        meta["turn_id"] = turn.fields["step_id"]
    draft = walk.add(
        event,
        StepType.TOOL_CALL,
        f"{_role(walk, data)}/{walk.read(data, 'tool_name')}",
        turn or walk.task_of(data),
        input_payload=as_payload(data.get("tool_args")),
        metadata=meta,
    )
    walk.tools[str(walk.event_id(event))] = draft


def _tool_ended(walk: _Walk, event: dict[str, Any], data: dict[str, Any]) -> None:
    started = walk.read(data, "started_event_id", identifier)
    draft = walk.tools.pop(str(started), None) or _open_tool(walk, data)
    if event["type"] == "tool_usage_error":
        _finish(walk, draft, event, **_error_fields(data.get("error")))
        return
    failure = data.get("failure")
    _finish(
        walk,
        draft,
        event,
        output_payload=as_optional_payload(data.get("output")),
        **_error_fields(failure_text(failure)) if failure else {},
    )
    if draft is not None:
        draft.fields["metadata"]["from_cache"] = data.get("from_cache")


def _tool_failure(walk: _Walk, _event: dict[str, Any], data: dict[str, Any]) -> None:
    """`tool_failure_detected` → the latest matching tool step is an error with the message."""
    name = f"{_role(walk, data)}/{walk.read(data, 'tool_name')}"
    args = as_payload(data.get("tool_args"))
    for draft in reversed(walk.drafts):
        if (
            draft.fields["step_type"] is StepType.TOOL_CALL
            and draft.fields["name"] == name
            and draft.fields["input_payload"] == args
        ):
            draft.fields.update(_error_fields(failure_text(data.get("failure"))))
            draft.fields["metadata"]["tool_failure"] = data.get("failure")
            return


def _open_tool(walk: _Walk, data: dict[str, Any]) -> _Draft | None:
    """An unpaired end event: the oldest open tool step with the same tool name."""
    for key, draft in walk.tools.items():
        if draft.fields["name"].endswith(f"/{walk.read(data, 'tool_name')}"):
            return walk.tools.pop(key)
    return None


def _crew_event(walk: _Walk, event: dict[str, Any], data: dict[str, Any]) -> None:
    walk.crew[event["type"]] = {
        **data,
        "_time": walk.moment(event),
        "_id": walk.event_id(event),
        "_total": walk.read(data, "total_tokens", count),
        "_name": walk.read(data, "crew_name"),
    }


_HANDLERS: dict[str, Callable[[_Walk, dict[str, Any], dict[str, Any]], None]] = {
    "task_started": _task_started,
    "task_completed": _task_ended,
    "task_failed": _task_ended,
    "llm_call_started": _llm_started,
    "llm_call_completed": _llm_ended,
    "llm_call_failed": _llm_ended,
    "tool_usage_started": _tool_started,
    "tool_usage_finished": _tool_ended,
    "tool_usage_error": _tool_ended,
    "tool_failure_detected": _tool_failure,
    "crew_kickoff_started": _crew_event,
    "crew_kickoff_completed": _crew_event,
    "crew_kickoff_failed": _crew_event,
}
"""Event type → handler; other types (flow, agent, log, memory events) are not steps."""


# --------------------------------------------------------------------------- values
def _error_fields(error: Any) -> dict[str, Any]:
    return {"status": StepStatus.ERROR, "error_message": str(error or "error")}


def failure_text(failure: Any) -> str:
    """The message of a CrewAI tool failure (a `{message, reason, code}` dict or, earlier, text)."""
    if isinstance(failure, dict):
        return str(failure.get("message") or failure.get("reason") or failure)
    return str(failure)


def _unquote(value: Any) -> Any:
    """CrewAI's event serializer writes some strings as their repr (`"'geocode'"`)."""
    if isinstance(value, str) and len(value) > 1 and value.startswith("'") and value.endswith("'"):
        return value[1:-1]
    return value


def _clean_response(response: Any) -> Any:
    if not isinstance(response, list):
        return response
    calls = []
    for call in response:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            calls.append(call)
            continue
        calls.append(
            {
                "id": call.get("id"),
                "name": _unquote(function.get("name")),
                "arguments": parse_json_string(_unquote(function.get("arguments"))),
            }
        )
    return calls


def _sum_usage(steps: list[TraceStep], crew_total: int | None) -> TokenUsage | None:
    usage = sum_usage(s.tokens for s in steps)
    if usage is None and crew_total is not None:
        return TokenUsage(total_tokens=crew_total)
    return usage


# --------------------------------------------------------------------------- the trace
def _walk(events: Any) -> _Walk:
    if not isinstance(events, list):
        msg = f"events: expected a list of CrewAI trace events, got {type(events).__name__}"
        raise TraceFormatError(msg)
    walk = _Walk()
    for i, event in enumerate(events):
        walk.where = f"events[{i}]"
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            msg = f"events[{i}]: expected a trace event object with a string `type`"
            raise TraceFormatError(msg)
        data = event.get("event_data")
        if not isinstance(data, dict):
            msg = f"events[{i}].event_data: expected an object, got {type(data).__name__}"
            raise TraceFormatError(msg)
        handler = _HANDLERS.get(event["type"])
        if handler is not None:
            handler(walk, event, data)
    return walk


def _step(draft: _Draft, index: int) -> TraceStep:
    meta = {**draft.fields.pop("metadata", {}), **timing_metadata(draft.started, draft.ended)}
    fields = {
        k: without_secrets(v) if k in ("input_payload", "output_payload") else v
        for k, v in draft.fields.items()
    }
    return TraceStep(
        step_index=index,
        latency_ms=duration_ms(draft.started, draft.ended),
        metadata=without_secrets(meta),
        **fields,
    )


def events_trace(data: dict[str, Any]) -> AgentTrace:
    """The trace of a CrewAI trace-event batch."""
    walk = _walk(data["events"])
    steps = [_step(draft, i) for i, draft in enumerate(walk.drafts)]
    started = walk.crew.get("crew_kickoff_started", {})
    ended = walk.crew.get("crew_kickoff_completed") or walk.crew.get("crew_kickoff_failed") or {}
    roles = [
        role
        for s in steps
        if s.step_type is StepType.ROUTING and (role := (s.metadata or {}).get("agent_role"))
    ]
    output = ended.get("output")
    final = output.get("raw") if isinstance(output, dict) else output
    if final is None:
        final = next(
            (
                s.output_payload
                for s in reversed(steps)
                if s.step_type is StepType.ROUTING and s.output_payload
            ),
            None,
        )
    trace_id = (
        identifier(data.get("trace_id"), "trace_id")
        or identifier(data.get("batch_id"), "batch_id")
        or started.get("_id")
    )
    return AgentTrace(
        trace_id=trace_id or f"crewai-{content_id(data)}",
        agent_name=started.get("_name") or ", ".join(dict.fromkeys(roles)) or "crew",
        task_input=as_payload(started.get("inputs")),
        final_output=as_optional_payload(final),
        steps=steps,
        total_latency_ms=duration_ms(started.get("_time"), ended.get("_time")),
        total_tokens=_sum_usage(steps, ended.get("_total")),
        metadata={
            "batch_metadata": data.get("batch_metadata"),
            **({"crew_error": str(ended["error"])} if ended.get("error") else {}),
        },
    )
