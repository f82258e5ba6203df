"""Which model message issued which tool calls, for sources that do not link them by id.

`metadata["turn_id"]` tells the engine that sibling tool calls came from one model message (one
concurrent turn). Sources that link a call to its message by id (a `tool_call_id`, a message id)
set it directly; Langfuse observations and OpenAI Agents SDK spans without `turn` spans do not,
but their order does: an agent loop runs the calls one model message asked for before it asks the
model again. `mark_turns` gives a tool step the id of the last `llm_call` before it under the same
parent (in execution order). When that message's output says which calls it asked for
(`tool_call_names`), only tool steps of those names join its turn, as many as it asked for; a
message that asked for none starts no turn, and a tool step with nothing before it gets none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from agentdiff.models.trace import StepType, TraceStep

__all__ = ["mark_turns", "tool_call_names"]


def _call_name(call: Any) -> str | None:
    """`{"name": ...}` (Langfuse, LangChain) or `{"function": {"name": ...}}` (OpenAI)."""
    if not isinstance(call, dict):
        return None
    function = call.get("function")
    name = function.get("name") if isinstance(function, dict) else call.get("name")
    return name if isinstance(name, str) else None


def _names(calls: list[Any]) -> list[str] | None:
    names = [_call_name(call) for call in calls]
    return None if None in names else [n for n in names if n is not None]


def tool_call_names(output: Any) -> list[str] | None:
    """The tool names a model message asked for, in order; None when its shape does not say.

    Reads an assistant message (`tool_calls` absent or null: none), a list of messages or
    `{"messages": [...]}` (the last assistant message), and a Responses API output list
    (`{"type": "function_call", "name": ...}` items).
    """
    if isinstance(output, dict) and isinstance(output.get("messages"), list):
        output = output["messages"]
    if isinstance(output, list):
        items = [item for item in output if isinstance(item, dict)]
        made = [item for item in items if item.get("type") == "function_call"]
        if made:
            return _names(made)
        said = [item for item in items if item.get("role") == "assistant"]
        output = said[-1] if said else None
    if not isinstance(output, dict):
        return None
    calls = output.get("tool_calls")
    if isinstance(calls, list):
        return _names(calls)
    return [] if calls is None and output.get("role") == "assistant" else None


def _from_output(step: TraceStep) -> list[str] | None:
    return tool_call_names(step.output_payload)


def mark_turns(
    steps: Iterable[TraceStep], issued: Callable[[TraceStep], list[str] | None] = _from_output
) -> None:
    """Set `metadata["turn_id"]` on tool steps (in execution order) that have none yet.

    `issued(llm_step)` names the calls that model message asked for (None: unknown).
    """
    open_turns: dict[str | None, tuple[str, list[str] | None]] = {}
    for step in steps:
        if step.step_type is StepType.LLM_CALL:
            open_turns[step.parent_id] = (step.step_id, issued(step))
            continue
        turn = open_turns.get(step.parent_id)
        if step.step_type is not StepType.TOOL_CALL or turn is None:
            continue
        if step.metadata and step.metadata.get("turn_id") is not None:
            continue
        turn_id, wanted = turn
        if wanted is not None:
            if step.name not in wanted:
                continue
            wanted.remove(step.name)
        step.metadata = {**(step.metadata or {}), "turn_id": turn_id}
