"""Payload conventions shared by every adapter: payloads are dicts.

A JSON-string payload is parsed; a dict stays as it is; anything else (a list, a number, plain
text) is wrapped as `{"value": ...}`. `without_secrets` drops credential-like keys (`api_key`,
`secret`, `password`, `authorization`, access/refresh tokens) at any depth, for sources that
copy client configuration into their events. `content_id` names a document that carries no id
of its own by a hash of its content.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import orjson

__all__ = [
    "as_optional_payload",
    "as_payload",
    "content_id",
    "parse_json_string",
    "without_secrets",
]

SECRET_KEY = re.compile(
    r"api[_-]?key|secret|passw(or)?d|authorization|(access|refresh|bearer|auth)[_-]?token|"
    r"private[_-]?key|credentials?",
    re.IGNORECASE,
)
"""Key names whose values are credentials: dropped, never shown (`max_tokens` is not one)."""


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


def without_secrets(value: Any) -> Any:
    """`value` with every credential-like key (`SECRET_KEY`) removed, at any depth."""
    if isinstance(value, dict):
        return {
            k: without_secrets(v)
            for k, v in value.items()
            if not (isinstance(k, str) and SECRET_KEY.search(k))
        }
    if isinstance(value, list):
        return [without_secrets(v) for v in value]
    return value


def content_id(data: Any) -> str:
    """16 hex characters of the sha256 of `data` as sorted JSON (the same document, the same id).

    Integers past 64 bits, which orjson refuses, are hashed through the standard library.
    """
    try:
        encoded = orjson.dumps(data, option=orjson.OPT_SORT_KEYS, default=str)
    except TypeError:  # orjson.JSONEncodeError: an integer past 64 bits
        encoded = json.dumps(data, sort_keys=True, default=str).encode()
    return hashlib.sha256(encoded).hexdigest()[:16]
