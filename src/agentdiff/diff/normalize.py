"""What counts as behaviour: payloads with volatile fields removed and user ignores applied.

A value is **volatile** (never compared) only when it looks generated:

- under a **time-like key** (`timestamp`, `created`, `updated_at`, `started_at`, `*_at`, `*_time`,
  `ts`, camelCase `createdAt` / `startTime`, …): an ISO 8601 date-time string (a date alone is
  an argument: `{"date": "2026-01-05"}`) or an epoch number in a plausible range (years
  2000–2100 in seconds, milliseconds, microseconds or nanoseconds);
- under a **duration key** (`latency`, `duration`, `elapsed`, with or without a unit suffix such
  as `_ms`): any number — a measurement of the run, not a choice of the agent;
- under an **id-like key** (`id`, `run_id`, `spanId`, `tool_call_id`, `uuid`, …): a UUID, a
  ULID, a hex string of 8+ characters, or a prefixed random token such as `call_a1B2c3D4e5` /
  `run-7f3a9c2e1b` (a letter prefix, `_` or `-`, then 8+ characters with a digit in them).

Everything else is an argument: `user_id: "alice"`, `user_id: 42`, `start: 10`, `end: 20`,
`offset: 100`, `page: 3` (pagination and line ranges are behaviour).

User ignores are dotted-path globs matched against `input_payload.a.b` style paths: `*` matches
one segment, `**` any number (`input_payload.*.request_id`, `**.timestamp`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from agentdiff.globs import segments_match
from agentdiff.limits import check_level

__all__ = ["Normalizer", "is_volatile", "strip_volatile", "volatile_free_keys", "volatile_tests"]

_TIME_KEY = re.compile(
    r"(?:^|[_.-])(?:timestamp|time|date_?time|created|updated|started|ended|start|end|ts)"
    r"(?:_?at|_?time|_?ts)?$|_at$|(?:[a-z](?:At|Time|Timestamp|UnixNano))$",
)
_DURATION_KEY = re.compile(
    r"(?:^|[_.-])(?:latency|duration|elapsed)(?:_?ms|_?s|_?ns|_?us|_?seconds)?$"
    r"|[a-z](?:Latency|Duration|Elapsed)(?:Ms|Ns)?$",
    re.IGNORECASE,
)
_ID_KEY = re.compile(r"(?:^|[_.-])(?:id|ids|uuid|guid|ulid)$|[a-z]Id$|[a-z]Ids$", re.IGNORECASE)
_GENERATED = re.compile(
    r"^(?:[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}"
    r"|[0-9A-HJKMNP-TV-Z]{26}"
    r"|(?:0x)?[0-9a-fA-F]{8,}"
    r"|[A-Za-z]+[_-](?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{8,})$",
)
_ISO_DATETIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$"
)
_EPOCH_SECONDS = (946_684_800, 4_102_444_800)
"""2000-01-01 to 2100-01-01 UTC: an epoch number outside these (at any unit) is an argument."""
_EPOCH_SCALES = (1, 1_000, 1_000_000, 1_000_000_000)


def _epoch_like(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    low, high = _EPOCH_SECONDS
    return any(low * scale <= value <= high * scale for scale in _EPOCH_SCALES)


@lru_cache(maxsize=4096)
def _key_kind(key: str) -> str:
    if _TIME_KEY.search(key.lower()) or _TIME_KEY.search(key):
        return "time"
    if _DURATION_KEY.search(key):
        return "duration"
    if _ID_KEY.search(key):
        return "id"
    return ""


VolatileTest = Callable[[Any], bool]
"""Whether a value under a key of some kind is volatile."""


class _TestCache(dict[Any, VolatileTest | None]):
    """Key → its kind's test, computed on the first lookup (a plain dict read afterwards)."""

    def __missing__(self, key: Any) -> VolatileTest | None:
        test = _CHECKS.get(_key_kind(key)) if isinstance(key, str) else None
        if len(self) < _KIND_CACHE_SIZE:  # hostile inputs with endless distinct keys
            self[key] = test
        return test


_KIND_CACHE_SIZE = 65_536
volatile_tests: Mapping[Any, VolatileTest | None] = _TestCache()
"""Key → the test that says whether a value under it is volatile (None: its values never are):
`is_volatile` for walks that read it per key, at C speed once a key was seen."""
_SCALARS = frozenset((str, int, float, bool, type(None)))


def is_volatile(key: str, value: Any) -> bool:
    """True when `value` under `key` looks generated (an id, a timestamp, a duration)."""
    test = volatile_tests[key]
    return test is not None and test(value)


def _volatile_time(value: Any) -> bool:
    if isinstance(value, str):
        return bool(_ISO_DATETIME.match(value))
    return _epoch_like(value)


def _volatile_duration(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _volatile_id(value: Any) -> bool:
    """`value` is a string that matches `_GENERATED`.

    A plain hex string of 8+ characters (a span or request id, the most common kind) is
    recognized without running the regex (~3x cheaper), and a string shorter than 8 (which no
    branch of the regex matches) without either.
    """
    if not isinstance(value, str) or len(value) < _HEX_MIN:
        return False
    if value.isascii() and not value.encode().translate(None, _HEX_DIGITS):
        return True  # what the regex's `(?:0x)?[0-9a-fA-F]{8,}` branch matches
    return bool(_GENERATED.match(value))


_CHECKS: dict[str, VolatileTest] = {
    "time": _volatile_time,
    "duration": _volatile_duration,
    "id": _volatile_id,
}
"""Each kind's test of a value (a key without a kind never holds a volatile value)."""


_HEX_DIGITS = b"0123456789abcdefABCDEF"
_HEX_MIN = 8
"""The shortest value `_GENERATED` matches (its hex branch; the others need more)."""


def volatile_free_keys(payload: Any) -> tuple[str, ...]:
    """The sorted top-level keys of `payload` whose values are not volatile."""
    if not isinstance(payload, dict):
        return ()
    return tuple(sorted(str(k) for k, v in payload.items() if not is_volatile(str(k), v)))


class Normalizer:
    """Strips volatile fields and ignored paths from payloads (pure, reusable)."""

    def __init__(self, ignore: tuple[str, ...] = ()) -> None:
        self._ignore = tuple(tuple(g.split(".")) for g in ignore)
        self.has_ignores = bool(self._ignore)
        """True when the user gave ignore globs (paths must then be tracked)."""

    def normalize(self, value: Any, path: tuple[str, ...]) -> Any:
        """`value` (found at `path`) without volatile keys or ignored paths.

        Past `MAX_DEPTH` levels of nesting: `RecursionError` (see `strip_volatile`).
        """
        if not self._ignore:
            return strip_volatile(value, len(path))
        if isinstance(value, dict | list):
            check_level(len(path))
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
        return any(segments_match(glob, path) for glob in self._ignore)


def strip_volatile(value: Any, level: int = 1) -> Any:
    """`normalize` without user ignores: no paths to track, so it is much cheaper.

    A dict or list with nothing volatile and only scalars inside is returned as it is (the
    common case for tool arguments); callers never modify what they get. `level` is the
    value's level of nesting (a payload is at level 1).

    Loading refuses a payload nested past `MAX_DEPTH` levels; a trace built in Python may
    hold one, and the walk stops there with a `RecursionError` (which `compare()` turns into
    an error naming the payload) rather than overflow the stack of the compiled engine (where
    no recursion limit is checked).
    """
    if isinstance(value, dict):
        if _SCALARS.issuperset(map(type, value.values())):
            # a flat dict (most tool arguments), inline: one call per tool call of a trace.
            # Only keys of a kind (id-, time- or duration-like) can hold a volatile value; the
            # keys with one, and their kind's test, are kept per key set (`_checks`).
            keys = tuple(value)
            checks = _CHECKED.get(keys)
            if checks is None:
                checks = _checks(keys)
            out = value
            for key, check in checks:
                if check(value[key]):
                    if out is value:
                        out = value.copy()
                    del out[key]
            return out
        return _strip_nested(value, level + 1)
    if isinstance(value, list):
        if _SCALARS.issuperset(map(type, value)):
            return value
        inner = level + 1
        check_level(inner)
        return [
            strip_volatile(item, inner) if isinstance(item, (dict, list)) else item
            for item in value
        ]
    return value


def _strip_nested(value: dict[Any, Any], inner: int) -> dict[Any, Any]:
    """`strip_volatile` of a dict that holds a dict or a list: a stripped copy."""
    check_level(inner)
    tests = volatile_tests
    out = {}
    for key, item in value.items():
        test = tests[key]
        if test is not None and test(item):
            continue
        out[key] = strip_volatile(item, inner) if isinstance(item, (dict, list)) else item
    return out


def _checks(keys: tuple[Any, ...]) -> tuple[tuple[Any, VolatileTest], ...]:
    """The keys of a dict that have a kind, with their kind's test, in key order.

    Kept per key set (the calls of one tool repeat theirs), so a dict's keys are looked at once
    per distinct set: a tuple of the keys and one dict read instead of a kind lookup per key.
    """
    tests = volatile_tests
    found = tuple((key, test) for key in keys if (test := tests[key]) is not None)
    if len(_CHECKED) < _KIND_CACHE_SIZE:  # hostile inputs with endless distinct key sets
        _CHECKED[keys] = found
    return found


_CHECKED: dict[tuple[Any, ...], tuple[tuple[Any, VolatileTest], ...]] = {}
