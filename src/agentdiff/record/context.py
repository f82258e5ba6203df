"""Which run and which step the running code is inside, per thread and per asyncio task.

Two `contextvars`: asyncio tasks start with a copy of their creator's context, so steps opened
in `asyncio.gather(...)` children nest under the step that created them and never under each
other. A plain thread starts with an empty context: use `Run.bind(fn)` (or
`asyncio.to_thread`, which copies the context) to carry the run and the parent step into it.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentdiff.record.run import Run
    from agentdiff.record.step import Step

__all__ = ["CURRENT_RUN", "CURRENT_STEP", "current_run", "current_step"]

CURRENT_RUN: ContextVar[Run | None] = ContextVar("agentdiff_run", default=None)
CURRENT_STEP: ContextVar[tuple[Run, Step] | None] = ContextVar("agentdiff_step", default=None)


def current_run() -> Run | None:
    """The run being recorded here (`None` outside `record_run`)."""
    return CURRENT_RUN.get()


def current_step() -> Step | None:
    """The innermost open step here, if any."""
    found = CURRENT_STEP.get()
    return found[1] if found else None
