"""Where every string from a trace is prepared for display, once, for every renderer.

`text()` makes a value one printable line (control characters and bidi overrides escaped, see
`render.text`), `block()` keeps its line breaks, and payloads and changed values pass
`shown_value()` before they are written as JSON. The three redact secrets first (see
`agentdiff.redact`; `RenderOptions.redact`), with the redactor `redacting()` sets: `render()`
and `report_view()` set it from the options, and it redacts with the defaults otherwise.
The view model (`render.view`), its sentences (`render.sentences`), the DAG picture and the
`inspect` tree call these and nothing else; renderers only add markup to what they receive.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from agentdiff.redact import DEFAULT_REDACTOR, Redactor
from agentdiff.render.text import clip, multiline, one_line

__all__ = ["ERROR_CHARS", "block", "redacting", "shown_value", "text", "text_parts"]

ERROR_CHARS = 300
"""Longest error message shown inline (the HTML step details show more)."""

_REDACTOR: ContextVar[Redactor | None] = ContextVar("agentdiff_redactor", default=None)


def _redactor() -> Redactor:
    return _REDACTOR.get() or DEFAULT_REDACTOR


@contextmanager
def redacting(redactor: Redactor) -> Iterator[None]:
    """Within the block, `text()`, `block()` and `shown_value()` redact with `redactor`."""
    token = _REDACTOR.set(redactor)
    try:
        yield
    finally:
        _REDACTOR.reset(token)


def text(value: object, limit: int | None = None) -> str:
    """Text from a trace, ready to show on one line (optionally cut to `limit` characters)."""
    prepared = one_line(_redactor().text(str(value)))
    return prepared if limit is None else clip(prepared, limit)


def text_parts(parts: Sequence[str], separator: str) -> list[tuple[str, int]]:
    """`parts` of one text (joined by `separator`), each ready to show as `text()` shows it.

    Redacted as their whole is (`Redactor.parts`): a secret that spans parts shows in none, as
    the parts it spans are one. Each: (shown, how many of `parts` it holds).
    """
    return [(one_line(shown), n) for shown, n in _redactor().parts(parts, separator)]


def block(value: object, limit: int) -> str:
    """Multi-line text from a trace (line breaks kept, everything else escaped), cut."""
    return clip(multiline(_redactor().text(str(value))), limit)


def shown_value(value: Any, path: str = "") -> Any:
    """A payload or changed value (found at dotted `path`) with its secrets redacted."""
    return _redactor().at(path, value)
