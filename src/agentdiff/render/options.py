"""`RenderOptions`: how a report is shown (never what it says)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["RenderOptions"]


class RenderOptions(BaseModel):
    """Presentation knobs shared by every renderer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    width: int | None = None
    """Terminal width; `None` = the console's own."""
    color: bool | None = None
    """Force colour on/off; `None` = auto (TTY and no `NO_COLOR`)."""
    max_rows: int = 400
    """Alignment rows shown before eliding the unchanged middle."""
