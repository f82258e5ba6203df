"""`crew.kickoff()` output (`CrewOutput.model_dump()`) → an `AgentTrace` (see `adapter`)."""

from __future__ import annotations

from typing import Any

from agentdiff.adapters._kit.payloads import as_optional_payload, content_id, parse_json_string
from agentdiff.adapters._kit.shapes import mapping, text
from agentdiff.adapters._kit.tokens import usage_from
from agentdiff.adapters.crewai.events import USAGE_KEYS, failure_text
from agentdiff.adapters.messages import conversation_steps, normalize_messages
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TokenUsage, TraceStep

__all__ = ["kickoff_trace"]


def kickoff_trace(data: dict[str, Any]) -> AgentTrace:
    """The trace of a `CrewOutput.model_dump()` document."""
    tasks = data["tasks_output"]
    if not isinstance(tasks, list):
        msg = f"tasks_output: expected a list of task outputs, got {type(tasks).__name__}"
        raise TraceFormatError(msg)
    steps: list[TraceStep] = []
    for i, task in enumerate(tasks):
        steps.extend(_task_steps(task, i, len(steps)))
    roles = [str(t["agent"]) for t in tasks if isinstance(t, dict) and t.get("agent")]
    usage = data.get("token_usage")
    return AgentTrace(
        trace_id=f"crewai-{content_id(data)}",
        agent_name=", ".join(dict.fromkeys(roles)) or "crew",
        task_input=_task_input(tasks),
        final_output=as_optional_payload(data.get("raw")),
        steps=steps,
        total_tokens=_token_usage(usage),
        metadata={"crewai_token_usage": usage} if isinstance(usage, dict) else None,
    )


def _task_steps(task: Any, i: int, start: int) -> list[TraceStep]:
    path = f"tasks_output[{i}]"
    if not isinstance(task, dict):
        msg = f"{path}: expected a task output object, got {type(task).__name__}"
        raise TraceFormatError(msg)
    role = text(task.get("agent"), f"{path}.agent") or "agent"
    title = text(task.get("name"), f"{path}.name") or text(task.get("summary"), f"{path}.summary")
    task_id = f"task-{i}"
    head = TraceStep(
        step_id=task_id,
        step_index=start,
        step_type=StepType.ROUTING,
        name=f"{role}/{title or f'task {i}'}",
        input_payload={k: task[k] for k in ("description", "expected_output") if k in task},
        output_payload=as_optional_payload(task.get("json_dict") or task.get("raw")),
        metadata={
            "agent_role": role,
            "output_format": task.get("output_format"),
            "summary": task.get("summary"),
        },
    )
    steps = [head]
    messages = task.get("messages")
    if messages is not None:
        steps += conversation_steps(
            normalize_messages(messages, path=f"{path}.messages"),
            name_prefix=f"{role}/",
            id_prefix=f"{task_id}/",
            parent_id=task_id,
            start_index=start + 1,
        )
    failures = _failures(task.get("tool_failures"), f"{path}.tool_failures")
    return _apply_failures(steps, failures, role, task_id)


def _failures(raw: Any, path: str) -> list[dict[str, Any]]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(f, dict) for f in raw):
        msg = f"{path}: expected a list of ToolFailureRecord objects"
        raise TraceFormatError(msg)
    return raw


def _apply_failures(
    steps: list[TraceStep], failures: list[dict[str, Any]], role: str, task_id: str
) -> list[TraceStep]:
    """Mark the tool step of each failure as an error, or add one when no message shows it."""
    taken: set[int] = set()
    for failure in failures:
        name = f"{role}/{failure.get('tool_name') or 'tool'}"
        args = parse_json_string(failure.get("tool_args"))
        text = failure_text(failure.get("failure"))
        hit = _match(steps, taken, name, args if isinstance(args, dict) else {}, text)
        update = {"status": StepStatus.ERROR, "error_message": text}
        if hit is None:
            steps.append(
                TraceStep(
                    step_id=f"{task_id}/failure-{len(taken)}",
                    parent_id=task_id,
                    step_index=steps[-1].step_index + 1,
                    step_type=StepType.TOOL_CALL,
                    name=name,
                    input_payload=args if isinstance(args, dict) else {},
                    output_payload=None,
                    metadata={"tool_failure": failure},
                    **update,
                )
            )
            hit = len(steps) - 1
        else:
            meta = {**(steps[hit].metadata or {}), "tool_failure": failure}
            steps[hit] = steps[hit].model_copy(update={**update, "metadata": meta})
        taken.add(hit)
    return steps


def _match(
    steps: list[TraceStep], taken: set[int], name: str, args: dict[str, Any], text: str
) -> int | None:
    """The first untaken tool step with this name and arguments, preferring one showing `text`."""
    candidates = [
        i
        for i, s in enumerate(steps)
        if i not in taken
        and s.step_type is StepType.TOOL_CALL
        and s.name == name
        and s.input_payload == args
    ]
    showing = [i for i in candidates if text and text in str(steps[i].output_payload)]
    found = showing or candidates
    return found[0] if found else None


def _task_input(tasks: list[Any]) -> dict[str, Any]:
    keys = ("name", "agent", "description", "expected_output")
    return {"tasks": [{k: t.get(k) for k in keys} for t in tasks if isinstance(t, dict)]}


def _token_usage(usage: Any) -> TokenUsage | None:
    """`UsageMetrics` → `TokenUsage`; all zeros with no successful request means untracked."""
    found = usage_from(usage, USAGE_KEYS, "token_usage")
    if found is None or mapping(usage, "token_usage").get("successful_requests"):
        return found
    return (
        found if any((found.prompt_tokens, found.completion_tokens, found.total_tokens)) else None
    )
