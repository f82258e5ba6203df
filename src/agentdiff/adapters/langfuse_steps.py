"""Langfuse `Observation`s → canonical `TraceStep`s and one `AgentTrace`.

Observation type → step type:

| Langfuse type            | step type   | notes                                              |
|--------------------------|-------------|----------------------------------------------------|
| GENERATION, EMBEDDING    | `llm_call`  | the only types whose tokens and cost are counted   |
| TOOL, RETRIEVER          | `tool_call` |                                                    |
| AGENT, CHAIN             | `routing`   |                                                    |
| SPAN                     | `routing`   | `tool_call` when its name contains "tool"          |
| EVENT, GUARDRAIL, EVALUATOR | `thought` |                                                   |
| anything else            | `routing`   | the original type stays in `metadata.langfuse_type` |

Level ERROR → status `error` with the `statusMessage`. Steps are ordered chronologically by start
time with every parent before its children (a heap over the ready observations), and
`step_index` is that position. The step id is the observation id. `@observe` records inputs as
`{"args": [...], "kwargs": {...}}`; with no positional args the input payload is the kwargs.
"""

from __future__ import annotations

import heapq
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from agentdiff.adapters.payloads import as_optional_payload, as_payload
from agentdiff.adapters.timestamps import duration_ms, timing_metadata
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TokenUsage, TraceStep

if TYPE_CHECKING:
    from agentdiff.adapters.langfuse_records import Observation, TraceHeader

__all__ = ["STEP_TYPES", "build_trace", "step_type_of"]

STEP_TYPES: dict[str, StepType] = {
    "GENERATION": StepType.LLM_CALL,
    "EMBEDDING": StepType.LLM_CALL,
    "TOOL": StepType.TOOL_CALL,
    "RETRIEVER": StepType.TOOL_CALL,
    "AGENT": StepType.ROUTING,
    "CHAIN": StepType.ROUTING,
    "SPAN": StepType.ROUTING,
    "EVENT": StepType.THOUGHT,
    "GUARDRAIL": StepType.THOUGHT,
    "EVALUATOR": StepType.THOUGHT,
}
_TOKEN_TYPES = frozenset({"GENERATION", "EMBEDDING"})
_NEVER = datetime.max.replace(tzinfo=timezone.utc)


def step_type_of(obs: Observation) -> StepType:
    """The step type of an observation (see the module table)."""
    if obs.type == "SPAN" and "tool" in obs.name.lower():
        return StepType.TOOL_CALL
    return STEP_TYPES.get(obs.type, StepType.ROUTING)


def chronological(observations: list[Observation]) -> list[Observation]:
    """Earliest start first, parents always before their children, ties in source order."""
    ids = {o.id for o in observations}
    children: dict[str | None, list[int]] = {}
    for i, obs in enumerate(observations):
        parent = obs.parent_id if obs.parent_id in ids else None
        children.setdefault(parent, []).append(i)
    heap: list[tuple[datetime, int]] = []

    def release(parent: str | None) -> None:
        for i in children.get(parent, []):
            heapq.heappush(heap, (observations[i].start or _NEVER, i))

    release(None)
    ordered: list[Observation] = []
    while heap:
        _, i = heapq.heappop(heap)
        ordered.append(observations[i])
        release(observations[i].id)
    return ordered


def _unwrap_observe_input(value: Any) -> Any:
    if (
        isinstance(value, dict)
        and set(value) == {"args", "kwargs"}
        and not value["args"]
        and isinstance(value["kwargs"], dict)
    ):
        return value["kwargs"]
    return value


def _step(obs: Observation, index: int) -> TraceStep:
    failed = obs.level == "ERROR"
    metadata: dict[str, Any] = {
        "langfuse_type": obs.type,
        "level": obs.level,
        **timing_metadata(obs.start, obs.end),
    }
    if obs.model:
        metadata["model"] = obs.model
    if obs.status_message and not failed:
        metadata["status_message"] = obs.status_message
    metadata.update(obs.extra)
    return TraceStep(
        step_id=obs.id,
        parent_id=obs.parent_id,
        step_index=index,
        step_type=step_type_of(obs),
        name=obs.name,
        input_payload=as_payload(_unwrap_observe_input(obs.input)),
        output_payload=as_optional_payload(obs.output),
        status=StepStatus.ERROR if failed else StepStatus.SUCCESS,
        error_message=(obs.status_message or f"{obs.type} ended with level ERROR")
        if failed
        else None,
        latency_ms=duration_ms(obs.start, obs.end),
        tokens=obs.usage if obs.type in _TOKEN_TYPES else None,
        metadata=metadata,
    )


def _sum(values: list[int | float | None]) -> Any:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def total_usage(steps: list[TraceStep]) -> TokenUsage | None:
    """Sum of the steps' token usage; each field stays `None` when no step knows it."""
    usages = [s.tokens for s in steps if s.tokens is not None]
    total = TokenUsage(
        prompt_tokens=_sum([u.prompt_tokens for u in usages]),
        completion_tokens=_sum([u.completion_tokens for u in usages]),
        total_tokens=_sum([u.total_tokens for u in usages]),
        estimated_cost_usd=_sum([u.estimated_cost_usd for u in usages]),
    )
    return None if total.is_empty else total


def build_trace(header: TraceHeader, observations: list[Observation]) -> AgentTrace:
    """The canonical trace of one Langfuse trace (its header and its observations).

    An observation listed twice (overlapping API pages, re-sent OTel spans) is kept once, in its
    last version.
    """
    ordered = chronological(list({o.id: o for o in observations}.values()))
    steps = [_step(obs, i) for i, obs in enumerate(ordered)]
    root = ordered[0] if ordered else None
    task_input = header.input if header.input is not None or root is None else root.input
    final = header.output if header.output is not None or root is None else root.output
    trace_id = header.trace_id or (root.trace_id if root else None) or "langfuse-trace"
    starts = [o.start for o in ordered if o.start is not None]
    ends = [o.end for o in ordered if o.end is not None]
    latency = duration_ms(min(starts), max(ends)) if starts and ends else header.latency_ms
    return AgentTrace(
        trace_id=trace_id,
        agent_name=header.name or (root.name if root else None) or "langfuse",
        agent_version=header.version,
        task_input=as_payload(task_input),
        final_output=as_optional_payload(final),
        steps=steps,
        total_latency_ms=latency,
        total_tokens=total_usage(steps),
        metadata={"langfuse": header.metadata} if header.metadata else None,
    )
