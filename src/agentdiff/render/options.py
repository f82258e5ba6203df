"""`RenderOptions`: how a report is shown (never what it says)."""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field

from agentdiff.redact import Redactor

__all__ = ["RenderOptions"]


class RenderOptions(BaseModel):
    """Presentation knobs shared by every renderer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    width: int | None = Field(None, ge=1)
    """Terminal width (at least 1); `None` = the console's own."""
    color: bool | None = None
    """Force colour on/off; `None` = auto (TTY and no `NO_COLOR`)."""
    max_rows: int = Field(400, ge=1)
    """Alignment rows shown before eliding the unchanged middle (at least 1)."""
    redact: bool | None = None
    """Redact secrets (see `agentdiff.redact`); `None` = on, except in the JSON report."""
    redact_patterns: tuple[str, ...] = ()
    """Extra regexes to redact."""
    redact_keys: tuple[str, ...] = ()
    """Extra key names whose values are redacted."""

    def redactor(self, *, default: bool = True) -> Redactor:
        """The redactor these options ask for (`default` applies when `redact` is `None`)."""
        enabled = default if self.redact is None else self.redact
        return _redactor(enabled, self.redact_patterns, self.redact_keys)


@lru_cache(maxsize=16)
def _redactor(enabled: bool, patterns: tuple[str, ...], keys: tuple[str, ...]) -> Redactor:
    return Redactor(enabled=enabled, patterns=patterns, keys=keys)
