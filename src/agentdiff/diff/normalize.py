"""What counts as behaviour: payloads with volatile fields removed and user ignores applied.

Volatile, never compared:

- **timestamps and durations**: values under keys such as `timestamp`, `created_at`,
  `start_time`, `*_at`, `*Time`, `latency`, `duration`, `elapsed`, `*_ms`;
- **ids**: values under id-like keys (`id`, `run_id`, `spanId`, `tool_call_id`, `uuid`, …) that
  look generated — UUIDs, hex strings of 8+ characters, or prefixed tokens such as
  `call_a1B2c3D4` / `span_…` / `run-…` with a digit in them. `user_id: "alice"` is kept.

User ignores are dotted-path globs matched against `input_payload.a.b` style paths: `*` matches
one segment, `**` any number (`input_payload.*.request_id`, `**.timestamp`).
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any

__all__ = ["Normalizer", "is_volatile"]

_TIME_KEY = re.compile(
    r"(?:^|[_.-])(?:timestamp|time|date_?time|created|updated|started|ended|start|end)"
    r"(?:_?at|_?time|_?ts)?$|(?:^|_)(?:ts|latency|duration|elapsed)(?:_?ms|_?s|_?ns)?$|_ms$"
    r"|(?:[a-z](?:At|Time|Timestamp|UnixNano|Ms))$",
)
_ID_KEY = re.compile(r"(?:^|[_.-])(?:id|ids|uuid|guid)$|[a-z]Id$|[a-z]Ids$|^id$", re.IGNORECASE)
_GENERATED = re.compile(
    r"^(?:[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}"
    r"|(?:0x)?[0-9a-fA-F]{8,}"
    r"|[A-Za-z]+[_-](?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{4,})$",
)


def _time_key(key: str) -> bool:
    return bool(_TIME_KEY.search(key))


@lru_cache(maxsize=4096)
def _key_kind(key: str) -> str:
    if _time_key(key.lower()) or _time_key(key):
        return "time"
    if _ID_KEY.search(key):
        return "id"
    return ""


def is_volatile(key: str, value: Any) -> bool:
    """True when `value` under `key` is an id or a timestamp/duration: never behaviour."""
    return _volatile(_key_kind(key), value)


def _volatile(kind: str, value: Any) -> bool:
    """`is_volatile` once the key's kind is known."""
    if kind == "time":
        return True
    if kind == "id":
        if isinstance(value, int) and not isinstance(value, bool):
            return True
        return isinstance(value, str) and bool(_GENERATED.match(value))
    return False


class Normalizer:
    """Strips volatile fields and ignored paths from payloads (pure, reusable)."""

    def __init__(self, ignore: tuple[str, ...] = ()) -> None:
        self._ignore = tuple(tuple(g.split(".")) for g in ignore)

    @property
    def has_ignores(self) -> bool:
        """True when the user gave ignore globs (paths must then be tracked)."""
        return bool(self._ignore)

    def normalize(self, value: Any, path: tuple[str, ...]) -> Any:
        """`value` (found at `path`) without volatile keys or ignored paths."""
        if not self._ignore:
            return _strip(value)
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                sub = (*path, str(key))
                if is_volatile(str(key), item) or self._ignored(sub):
                    continue
                out[key] = self.normalize(item, sub)
            return out
        if isinstance(value, list):
            return [self.normalize(item, (*path, str(i))) for i, item in enumerate(value)]
        return value

    def _ignored(self, path: tuple[str, ...]) -> bool:
        return any(_match(glob, path) for glob in self._ignore)


def _strip(value: Any) -> Any:
    """`normalize` without user ignores: no paths to track, so it is much cheaper."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            kind = _key_kind(key) if isinstance(key, str) else ""
            if kind and _volatile(kind, item):
                continue
            out[key] = _strip(item) if isinstance(item, (dict, list)) else item
        return out
    if isinstance(value, list):
        return [_strip(item) if isinstance(item, (dict, list)) else item for item in value]
    return value


@lru_cache(maxsize=65536)
def _match(glob: tuple[str, ...], path: tuple[str, ...]) -> bool:
    if not glob:
        return not path
    head, rest = glob[0], glob[1:]
    if head == "**":
        return any(_match(rest, path[i:]) for i in range(len(path) + 1))
    return bool(path) and fnmatchcase(path[0], head) and _match(rest, path[1:])
