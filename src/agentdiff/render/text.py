r"""Trace data is data: make any string from a trace safe to show on one line.

Control characters (C0, DEL, C1), and the Unicode bidi overrides that reorder what a reader
sees, are written as visible escapes (`\x1b`, `\n`, `\u202e`), so a name or payload can never
move the cursor, colour the terminal or hide text. Markup is never interpreted by the renderers
that use this (rich `Text`, jinja2 autoescape, markdown escaping), so `[bold red]` stays literal.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

__all__ = ["clip", "multiline", "one_line", "payload_json", "short_json"]

_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"  # noqa: PLR2004


def one_line(text: object) -> str:
    """`text` as a single printable line (control characters escaped)."""
    return _UNSAFE.sub(_escape, str(text))


def clip(text: str, limit: int) -> str:
    """`text`, cut to `limit` characters with an ellipsis."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def short_json(value: Any, limit: int = 80) -> str:
    """A compact, one-line, clipped JSON rendering of a value from a trace."""
    if isinstance(value, str):
        rendered = orjson.dumps(value).decode()
    else:
        rendered = orjson.dumps(value, default=str, option=orjson.OPT_SORT_KEYS).decode()
    return clip(one_line(rendered), limit)


def payload_json(value: Any, limit: int = 20_000) -> str:
    """Indented JSON of a payload (multi-line; control characters escaped by JSON itself)."""
    text = orjson.dumps(
        value, default=str, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
    ).decode()
    return clip(multiline(text), limit)


def multiline(text: object) -> str:
    """`text` with its line breaks kept and every other control character escaped."""
    return _UNSAFE.sub(lambda m: m.group() if m.group() == "\n" else _escape(m), str(text))
