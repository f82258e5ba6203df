"""Tiny builders for hand-made traces in engine unit tests."""

from __future__ import annotations

from typing import Any

from agentdiff import AgentTrace, StepStatus, StepType, TokenUsage, TraceStep


def step(
    i: int, kind: str, name: str, parent: int | None = None, prefix: str = "s", **extra: Any
) -> TraceStep:
    status = extra.pop("status", "success")
    tokens = extra.pop("tokens", None)
    return TraceStep(
        step_id=f"{prefix}{i}",
        parent_id=None if parent is None else f"{prefix}{parent}",
        step_index=i,
        step_type=StepType(kind),
        name=name,
        status=StepStatus(status),
        tokens=TokenUsage(**tokens) if tokens else None,
        **extra,
    )


def trace(steps: list[TraceStep], trace_id: str = "t", **extra: Any) -> AgentTrace:
    return AgentTrace(trace_id=trace_id, agent_name="agent", steps=steps, **extra)


def tools(
    *calls: tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], str], prefix: str = "s"
) -> AgentTrace:
    """An LLM turn before each tool call, then a final response."""
    steps = []
    for call in calls:
        name, args = call[0], call[1]
        status = call[2] if len(call) > 2 else "success"
        llm = len(steps)
        steps.append(
            step(
                llm, "llm_call", "model", prefix=prefix, output_payload={"text": f"calling {name}"}
            )
        )
        steps.append(
            step(
                llm + 1,
                "tool_call",
                name,
                llm,
                prefix=prefix,
                input_payload=args,
                status=status,
                error_message="boom" if status == "error" else None,
            )
        )
    steps.append(
        step(len(steps), "response", "final", prefix=prefix, output_payload={"text": "done"})
    )
    return trace(steps, trace_id=prefix)
