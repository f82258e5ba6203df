"""The `crewai` adapter: CrewAI kickoff output and CrewAI's own trace-event batch.

Accepted documents:

- `crew.kickoff()` output serialized with `CrewOutput.model_dump()`: `raw`, `tasks_output`,
  `token_usage`. Each task is a `routing` step named `<role>/<task name>` that parents the steps
  of its `messages` (read by the shared conversation engine, `adapters.messages`, with every
  name prefixed by the agent's role: `Weather Researcher/get_weather`). `tool_failures` make the
  failed call an `error` step with the failure text even when its message text looks normal
  (matched by tool name + arguments, in order). A task without `messages` (older CrewAI, or a
  simplified export) is one step. `token_usage` becomes the trace's `total_tokens` (no cost);
  the messages carry no per-call usage, so steps have no tokens.
- CrewAI's trace-event batch `{"events": [...]}` (see `events`).

CrewOutput has no ids and no times: its trace id is a stable hash of the document and there is
no latency. The agent name is the crew's roles in task order (the event batch has the crew name).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from agentdiff.adapters.base import BaseAdapter
from agentdiff.adapters.crewai import events as crewai_events
from agentdiff.adapters.crewai.kickoff import kickoff_trace
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import AgentTrace

__all__ = ["CrewAIAdapter"]

_SNIFF = 5


class CrewAIAdapter(BaseAdapter):
    """CrewAI: `CrewOutput.model_dump()` of `crew.kickoff()`, or the trace-event batch."""

    name: ClassVar[str] = "crewai"
    aliases: ClassVar[tuple[str, ...]] = ("crew", "crewai_events")
    description: ClassVar[str] = (
        "CrewAI kickoff output (CrewOutput.model_dump()) or its trace-event batch {events: [...]}"
    )

    @classmethod
    def detect(cls, data: Any) -> bool:
        """A CrewOutput dump (`tasks_output` + `raw`/`token_usage`) or a CrewAI event batch."""
        return _is_kickoff(data) or crewai_events.is_event_batch(data)

    @classmethod
    def from_dict(cls, data: Any) -> AgentTrace:
        """Build the trace from whichever CrewAI document `data` is."""
        if not isinstance(data, dict):
            msg = f"expected a CrewAI JSON object, got {type(data).__name__}"
            raise TraceFormatError(msg)
        for key, build in _SHAPES.items():
            if key in data:
                return build(data)
        msg = "expected a CrewOutput dump (`tasks_output`) or an event batch (`events`)"
        raise TraceFormatError(msg, hint="dump crew.kickoff() with model_dump(mode='json')")


def _is_kickoff(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("tasks_output"), list):
        return False
    tasks = data["tasks_output"][:_SNIFF]
    return ("raw" in data or "token_usage" in data) and all(
        isinstance(t, dict) and ("raw" in t or "agent" in t) for t in tasks
    )


_SHAPES: dict[str, Callable[[dict[str, Any]], AgentTrace]] = {
    "tasks_output": kickoff_trace,
    "events": crewai_events.events_trace,
}
"""Top-level key → builder; the first key present picks the shape."""
