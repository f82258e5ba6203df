"""`StepList`: steps appended in the order a source reports them, with unique source ids.

For adapters that read an event log (session transcripts, rollouts) and build steps as they
go: `add` names a step by the source's own id (made unique with `#2`, `#3`, … when a log
repeats one), numbers `step_index` in order, and `update` replaces a step's fields once its
result arrives (steps are immutable pydantic models).
"""

from __future__ import annotations

from typing import Any

from agentdiff.models.trace import StepType, TraceStep

__all__ = ["StepList"]


class StepList:
    """The steps of one trace under construction."""

    def __init__(self) -> None:
        self.steps: list[TraceStep] = []
        self._seen: dict[str, int] = {}

    def add(
        self,
        source_id: str | None,
        step_type: StepType,
        name: str,
        parent: str | None,
        **fields: Any,
    ) -> TraceStep:
        """Append a step named by `source_id` (or its position when the source has none)."""
        step = TraceStep(
            step_id=self._unique(source_id or f"step-{len(self.steps)}"),
            parent_id=parent,
            step_index=len(self.steps),
            step_type=step_type,
            name=name,
            **fields,
        )
        self.steps.append(step)
        return step

    def update(self, index: int, **changes: Any) -> TraceStep:
        """Replace fields of the step at `index`; returns the new step."""
        self.steps[index] = self.steps[index].model_copy(update=changes)
        return self.steps[index]

    def _unique(self, wanted: str) -> str:
        count = self._seen.get(wanted, 0) + 1
        self._seen[wanted] = count
        return wanted if count == 1 else f"{wanted}#{count}"
