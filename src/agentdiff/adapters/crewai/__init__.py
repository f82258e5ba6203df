"""The `crewai` adapter: CrewAI kickoff output and CrewAI's own trace-event batch.

- `adapter`: `CrewAIAdapter` and the documents it claims.
- `kickoff`: `CrewOutput.model_dump()` → the trace (tasks, their conversations, tool failures).
- `events`: the trace-event batch `{"events": [...]}` → the trace.
"""

from agentdiff.adapters.crewai.adapter import CrewAIAdapter

__all__ = ["CrewAIAdapter"]
