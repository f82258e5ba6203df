"""Payload conventions shared by every adapter: payloads are dicts.

A JSON-string payload is parsed; a dict stays as it is; anything else (a list, a number, plain
text) is wrapped as `{"value": ...}`.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["as_optional_payload", "as_payload", "parse_json_string"]


def parse_json_string(value: Any) -> Any:
    """Parse `value` when it is a string holding a JSON object or array; otherwise return it."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "["):
            try:
                return orjson.loads(text)
            except orjson.JSONDecodeError:
                return value
    return value


def as_payload(value: Any) -> dict[str, Any]:
    """The payload convention: dicts pass, JSON strings are parsed, other values are wrapped."""
    parsed = parse_json_string(value)
    if isinstance(parsed, dict):
        return parsed
    if parsed is None:
        return {}
    return {"value": parsed}


def as_optional_payload(value: Any) -> dict[str, Any] | None:
    """Like `as_payload`, but an absent value stays `None` (unknown output)."""
    return None if value is None else as_payload(value)
