"""Langfuse `Observation`s → canonical `TraceStep`s and one `AgentTrace`.

Observation type → step type:

| Langfuse type            | step type   | notes                                              |
|--------------------------|-------------|----------------------------------------------------|
| GENERATION, EMBEDDING    | `llm_call`  | the only types whose tokens and cost are counted   |
| TOOL, RETRIEVER          | `tool_call` |                                                    |
| AGENT, CHAIN             | `routing`   |                                                    |
| SPAN                     | `routing`   | `tool_call` when its name contains "tool", unless  |
|                          |             | its children are the tool calls (a "running 3      |
|                          |             | tools" wrapper, LangGraph's `tools` node)          |
| EVENT, GUARDRAIL, EVALUATOR | `thought` |                                                   |
| anything else            | `routing`   | the original type stays in `metadata.langfuse_type` |

Level ERROR → status `error` with the `statusMessage`. A tool step records the GENERATION that
issued it as `metadata["turn_id"]`: the last one before it under the same parent, when that
generation's output lists a call of the tool's name (or does not say which calls it made; see
`_kit.turns`). A tool observation nested under its GENERATION is in that turn by its parent. An
observation without start and end takes its latency from the API's `latency` (seconds). Steps
are ordered chronologically by start time with every parent before its children
(`_kit.ordering.parents_first`), and `step_index` is that position. The step id is the
observation id. `@observe` records inputs as `{"args": [...], "kwargs": {...}}`; with no
positional args the input payload is the kwargs.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from agentdiff.adapters._kit.ordering import parents_first
from agentdiff.adapters._kit.payloads import as_optional_payload, as_payload
from agentdiff.adapters._kit.tokens import sum_usage
from agentdiff.adapters._kit.turns import mark_turns
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TraceStep
from agentdiff.timeparse import duration_ms, timing_metadata, wall_clock_ms

if TYPE_CHECKING:
    from agentdiff.adapters.langfuse.observations import Observation, TraceHeader

__all__ = ["STEP_TYPES", "build_trace", "step_type_of", "tool_parents"]

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


def _named_tool(obs: Observation) -> bool:
    return obs.type == "SPAN" and "tool" in obs.name.lower()


def tool_parents(observations: list[Observation]) -> set[str]:
    """Ids of observations with a tool call among their children (TOOL, RETRIEVER, a tool SPAN)."""
    return {
        o.parent_id
        for o in observations
        if o.parent_id and (STEP_TYPES.get(o.type) is StepType.TOOL_CALL or _named_tool(o))
    }


def step_type_of(obs: Observation, wraps_tools: bool = False) -> StepType:
    """The step type of an observation (see the module table).

    `wraps_tools`: its children include tool calls, so a SPAN named like a tool is their
    wrapper, not a call.
    """
    if _named_tool(obs) and not wraps_tools:
        return StepType.TOOL_CALL
    return STEP_TYPES.get(obs.type, StepType.ROUTING)


def _unwrap_observe_input(value: Any) -> Any:
    if (
        isinstance(value, dict)
        and set(value) == {"args", "kwargs"}
        and not value["args"]
        and isinstance(value["kwargs"], dict)
    ):
        return value["kwargs"]
    return value


def _step(obs: Observation, index: int, wrappers: set[str]) -> TraceStep:
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
        step_type=step_type_of(obs, obs.id in wrappers),
        name=obs.name,
        input_payload=as_payload(_unwrap_observe_input(obs.input)),
        output_payload=as_optional_payload(obs.output),
        status=StepStatus.ERROR if failed else StepStatus.SUCCESS,
        error_message=(obs.status_message or f"{obs.type} ended with level ERROR")
        if failed
        else None,
        latency_ms=_latency(obs),
        tokens=obs.usage if obs.type in _TOKEN_TYPES else None,
        metadata=metadata,
    )


def _latency(obs: Observation) -> float | None:
    measured = duration_ms(obs.start, obs.end)
    seconds = obs.extra.get("latency_seconds")
    if measured is None and isinstance(seconds, float):
        return round(seconds * 1000.0, 3)
    return measured


def build_trace(header: TraceHeader, observations: list[Observation]) -> AgentTrace:
    """The canonical trace of one Langfuse trace (its header and its observations).

    An observation listed twice (overlapping API pages, re-sent OTel spans) is kept once, in its
    last version.
    """
    ordered = parents_first(
        list({o.id: o for o in observations}.values()),
        id_of=lambda o: o.id,
        parent_of=lambda o: o.parent_id,
        key=lambda o: o.start or _NEVER,
    )
    wrappers = tool_parents(ordered)
    steps = [_step(obs, i, wrappers) for i, obs in enumerate(ordered)]
    mark_turns(steps)
    root = ordered[0] if ordered else None
    task_input = header.input if header.input is not None or root is None else root.input
    final = header.output if header.output is not None or root is None else root.output
    trace_id = header.trace_id or (root.trace_id if root else None) or "langfuse-trace"
    latency = wall_clock_ms((o.start for o in ordered), (o.end for o in ordered))
    if latency is None:
        latency = header.latency_ms
    return AgentTrace(
        trace_id=trace_id,
        agent_name=header.name or (root.name if root else None) or "langfuse",
        agent_version=header.version,
        task_input=as_payload(task_input),
        final_output=as_optional_payload(final),
        steps=steps,
        total_latency_ms=latency,
        total_tokens=sum_usage(s.tokens for s in steps),
        metadata={"langfuse": header.metadata} if header.metadata else None,
    )
