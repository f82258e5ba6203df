"""OpenAI Agents SDK spans → `TraceStep`s and the trace.

Parsing, placement under kept parents, `turn` usage and ordering; what each span type becomes is
in `span_data`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from agentdiff.adapters._kit.ordering import parents_first
from agentdiff.adapters._kit.shapes import identifier, key_path, text
from agentdiff.adapters._kit.tokens import sum_usage
from agentdiff.adapters._kit.turns import mark_turns
from agentdiff.adapters.openai_agents.span_data import MAPPERS, tokens_of, unknown
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TraceStep
from agentdiff.timeparse import duration_ms, parse_iso, timing_metadata, wall_clock_ms

__all__ = ["build_trace"]

_BOOKKEEPING = frozenset({"task", "turn"})
_EARLIEST = datetime.min.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class _Span:
    span_id: str
    parent_id: str | None
    trace_id: str | None
    started: datetime | None
    ended: datetime | None
    data: dict[str, Any]
    error: dict[str, Any] | None
    position: int
    path: str
    """The span's JSON path in the document (`spans[3]`, `data[7]`)."""

    @property
    def type(self) -> str:
        return str(self.data.get("type") or "unknown")

    @property
    def bookkeeping(self) -> str | None:
        """`task`/`turn` for the SDK's bookkeeping spans, else None."""
        if self.type != "custom":
            return None
        inner = self.data.get("data")
        kind = inner.get("sdk_span_type") if isinstance(inner, dict) else None
        kind = kind if isinstance(kind, str) and kind in _BOOKKEEPING else self.data.get("name")
        return kind if isinstance(kind, str) and kind in _BOOKKEEPING else None


# ---------------------------------------------------------------- parsing


def _parse_span(path: str, item: Any, position: int) -> _Span:
    if not isinstance(item, dict):
        msg = f"{path}: expected a span object, got {type(item).__name__}"
        raise TraceFormatError(msg)
    span_id, parent_id, data = item.get("id"), item.get("parent_id"), item.get("span_data")
    if not isinstance(span_id, str) or not span_id:
        raise TraceFormatError(f"{path}.id: missing span id (expected a string like 'span_...')")
    if parent_id is not None and not isinstance(parent_id, str):
        raise TraceFormatError(f"{path}.parent_id: expected a span id string or null")
    if not isinstance(data, dict):
        raise TraceFormatError(f"{path}.span_data: expected an object with a `type`")
    text(data.get("type"), f"{path}.span_data.type")
    error = item.get("error")
    if error is not None and not isinstance(error, dict):
        error = {"message": str(error)}
    return _Span(
        span_id,
        parent_id,
        identifier(item.get("trace_id"), f"{path}.trace_id"),
        parse_iso(text(item.get("started_at"), f"{path}.started_at")),
        parse_iso(text(item.get("ended_at"), f"{path}.ended_at")),
        data,
        error,
        position,
        path,
    )


# ---------------------------------------------------------------- the trace


@dataclass
class _Placement:
    parent_id: str | None
    turn: _Span | None


def _ancestors(span: _Span, by_id: dict[str, _Span]) -> Iterator[str]:
    """The ids up `span`'s parent chain, nearest first.

    It stops after an id that names no span (a parent the document lacks), and after
    `len(by_id)` ids (a cycle of parent ids).
    """
    parent = span.parent_id
    for _ in range(len(by_id)):
        if parent is None:
            return
        yield parent
        above = by_id.get(parent)
        parent = above.parent_id if above is not None else None


def _place(span: _Span, by_id: dict[str, _Span]) -> _Placement:
    """The nearest kept ancestor (skipping task/turn) and the nearest turn span above `span`."""
    parent, turn = span.parent_id, None
    for ancestor in _ancestors(span, by_id):
        above = by_id.get(ancestor)
        if above is None or above.bookkeeping is None:
            return _Placement(ancestor, turn)
        if turn is None and above.bookkeeping == "turn":
            turn = above
        parent = above.parent_id
    return _Placement(parent, turn)


def _depth(span: _Span, by_id: dict[str, _Span]) -> int:
    return sum(ancestor in by_id for ancestor in _ancestors(span, by_id))


_SAID = frozenset({"error", "tool_name"})
"""Span error data the message already says (the tool's name is its step's name)."""


def _error_text(error: dict[str, Any]) -> str:
    """The span error's message, its `data.error` and the rest of its data.

    The rest names which guardrail tripped, or the turn limit a run reached:
    `Guardrail tripwire triggered (guardrail: homework_check)`.
    """
    message = str(error.get("message") or "error")
    data = error.get("data")
    data = data if isinstance(data, dict) else {}
    detail = data.get("error")
    if isinstance(detail, str) and detail and detail not in message:
        message = f"{message}: {detail}"
    rest = [f"{k}: {v}" for k, v in data.items() if k not in _SAID and isinstance(v, str | int)]
    return f"{message} ({', '.join(rest)})" if rest else message


def _tripped(span: _Span) -> bool:
    """A guardrail span whose tripwire triggered (the run stopped there)."""
    return span.type == "guardrail" and span.data.get("triggered") is True


def _carry_errors(spans: list[_Span], steps: list[TraceStep], by_id: dict[str, _Span]) -> None:
    """Put each `task`/`turn` span's error on a step (those spans are no steps).

    The SDK attaches an input guardrail's tripwire to the turn span it ran in: the error goes to
    the guardrail that tripped under it, else to the nearest kept ancestor, else to the first
    step. A step that failed already keeps its own error.
    """
    positions = {step.step_id: i for i, step in enumerate(steps)}
    for span in spans:
        if span.bookkeeping is None or span.error is None or not steps:
            continue
        home = next(
            (
                s.span_id
                for s in spans
                if _tripped(s) and s.span_id in positions and _descends(s, span, by_id)
            ),
            _place(span, by_id).parent_id,
        )
        i = positions.get(str(home), 0)
        if steps[i].status is not StepStatus.ERROR:
            message = _error_text(span.error)
            steps[i] = steps[i].model_copy(
                update={"status": StepStatus.ERROR, "error_message": message}
            )


def _descends(span: _Span, ancestor: _Span, by_id: dict[str, _Span]) -> bool:
    return ancestor.span_id in _ancestors(span, by_id)


def _step(span: _Span, index: int, placement: _Placement) -> TraceStep:
    where = f"{span.path}.span_data"
    step_type, name, inputs, output = MAPPERS.get(span.type, unknown)(span.data, where)
    meta: dict[str, Any] = {"span_type": span.type, **timing_metadata(span.started, span.ended)}
    if placement.parent_id != span.parent_id:
        meta["source_parent_id"] = span.parent_id
    if placement.turn is not None:
        inner = placement.turn.data.get("data")
        meta["turn"] = inner.get("turn") if isinstance(inner, dict) else None
    error = span.error
    if error is None and _tripped(span):
        error = {"message": "Guardrail tripwire triggered"}
    if span.error is not None:
        meta["error"] = span.error
    if span.type == "generation" and isinstance(span.data.get("model_config"), dict):
        meta["model_config"] = {k: v for k, v in span.data["model_config"].items() if v is not None}
    if step_type is StepType.TOOL_CALL and placement.turn is not None:
        meta["turn_id"] = placement.turn.span_id
    llm = step_type is StepType.LLM_CALL
    tokens = tokens_of(span.data.get("usage"), f"{where}.usage") if llm else None
    if llm:
        # a `response` span names no model
        meta["model"] = text(span.data.get("model"), f"{where}.model") or None
        usage = span.data.get("usage")
        detail = {
            k: v
            for k, v in (usage.items() if isinstance(usage, dict) else ())
            if k.endswith("_details") and isinstance(v, dict) and v
        }
        if detail:
            meta["usage"] = detail
    return TraceStep(
        step_id=span.span_id,
        parent_id=placement.parent_id,
        step_index=index,
        step_type=step_type,
        name=name,
        input_payload=inputs,
        output_payload=output,
        status=StepStatus.ERROR if error is not None else StepStatus.SUCCESS,
        error_message=_error_text(error) if error is not None else None,
        latency_ms=duration_ms(span.started, span.ended),
        tokens=tokens,
        metadata=meta,
    )


def _fill_from_turns(steps: list[TraceStep], turns: dict[str, _Span | None]) -> None:
    """LLM steps without usage take their turn's usage, once per turn, when no sibling has any."""
    by_turn: dict[str, tuple[_Span, list[TraceStep]]] = {}
    for step in steps:
        turn = turns[step.step_id]
        if step.step_type is StepType.LLM_CALL and turn is not None:
            by_turn.setdefault(turn.span_id, (turn, []))[1].append(step)
    for turn, llm_steps in by_turn.values():
        inner = turn.data.get("data")
        at = f"{turn.path}.span_data.data"
        usage = tokens_of(inner.get("usage"), f"{at}.usage") if isinstance(inner, dict) else None
        if usage is None or any(s.tokens is not None for s in llm_steps):
            continue
        first = llm_steps[0]
        first.tokens = usage
        first.metadata = {
            **(first.metadata or {}),
            "usage_source": "turn",
            "usage_turn_span_id": turn.span_id,
            "usage_covers_llm_steps": len(llm_steps),
        }


def _first_text(value: Any, role: str, pick_last: bool = False) -> str | None:
    messages = value.get("messages") if isinstance(value, dict) else None
    texts = [
        m["content"]
        for m in messages or []
        if isinstance(m, dict) and m.get("role") == role and isinstance(m.get("content"), str)
    ]
    return (texts[-1] if pick_last else texts[0]) if texts else None


def build_trace(
    trace: dict[str, Any], items: list[tuple[str, Any]], at: str = "trace"
) -> AgentTrace:
    """The `AgentTrace` of one SDK trace object and its spans.

    `at` is the trace object's JSON path; each span comes with its own.
    """
    spans = [_parse_span(path, item, i) for i, (path, item) in enumerate(items)]
    by_id = {s.span_id: s for s in spans}
    placements = {s.span_id: _place(s, by_id) for s in spans if s.bookkeeping is None}
    kept = parents_first(
        [s for s in spans if s.bookkeeping is None],
        id_of=lambda s: s.span_id,
        parent_of=lambda s: placements[s.span_id].parent_id,
        key=lambda s: (s.started is None, s.started or _EARLIEST, _depth(s, by_id)),
    )
    steps = [_step(s, i, placements[s.span_id]) for i, s in enumerate(kept)]
    _carry_errors(spans, steps, by_id)
    mark_turns(steps)  # SDK versions without `turn` spans: the model message before the call
    _fill_from_turns(steps, {k: p.turn for k, p in placements.items()})
    trace_id = identifier(trace.get("id"), key_path(at, "id")) or next(
        (s.trace_id for s in spans if s.trace_id), None
    )
    if trace_id is None:
        raise TraceFormatError("trace.id: missing (no trace object and no span has a trace_id)")
    return AgentTrace(
        trace_id=trace_id,
        agent_name=_agent_name(trace, at, spans, steps),
        steps=steps,
        task_input=_task_input(steps),
        final_output=_final_output(steps),
        total_latency_ms=wall_clock_ms((s.started for s in spans), (s.ended for s in spans)),
        total_tokens=sum_usage(s.tokens for s in steps),
        metadata=_trace_metadata(trace, spans),
    )


def _agent_name(trace: dict[str, Any], at: str, spans: list[_Span], steps: list[TraceStep]) -> str:
    task = next((s for s in spans if s.bookkeeping == "task"), None)
    inner = task.data.get("data") if task is not None else None
    candidates = (
        text(trace.get("workflow_name"), key_path(at, "workflow_name")),
        text(inner.get("name"), f"{task.path}.span_data.data.name")
        if task is not None and isinstance(inner, dict)
        else None,
        next((s.name for s in steps if s.metadata and s.metadata["span_type"] == "agent"), None),
    )
    return next((c for c in candidates if c), "openai_agents")


def _task_input(steps: list[TraceStep]) -> dict[str, Any]:
    text = next(
        (
            t
            for s in steps
            if s.step_type is StepType.LLM_CALL and (t := _first_text(s.input_payload, "user"))
        ),
        None,
    )
    return {"input": text} if text is not None else {}


def _final_output(steps: list[TraceStep]) -> dict[str, Any] | None:
    last = next((s for s in reversed(steps) if s.step_type is StepType.LLM_CALL), None)
    text = _first_text(last.output_payload, "assistant", pick_last=True) if last else None
    return {"output": text} if text is not None else None


def _trace_metadata(trace: dict[str, Any], spans: list[_Span]) -> dict[str, Any]:
    meta = {k: trace[k] for k in ("workflow_name", "group_id") if trace.get(k) is not None}
    if isinstance(trace.get("metadata"), dict) and trace["metadata"]:
        meta["trace_metadata"] = trace["metadata"]
    skipped = [s.bookkeeping for s in spans if s.bookkeeping is not None]
    meta["skipped_spans"] = {kind: skipped.count(kind) for kind in sorted(set(skipped))}
    return meta
