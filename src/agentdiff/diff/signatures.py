"""Interned step signatures, shared by both sides of one comparison.

- **base** — step type and name (plus the sorted input keys, volatile ones left out, with strict
  tool signatures): two steps with equal base signatures are the same action;
- **exact** — base plus failed-or-not and, for tool calls, the normalized arguments: two steps
  with equal exact signatures also behaved the same.

A tool call's **call key** (name + normalized arguments as canonical JSON) also drives loop
detection and the canonical order of concurrent calls.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from itertools import repeat
from operator import add, mul
from typing import Any

import orjson

from agentdiff.diff.normalize import Normalizer, strip_volatile, volatile_free_keys
from agentdiff.models.trace import TraceStep

__all__ = ["Signer"]


class Signer:
    """Interns signatures to small integers (ids are comparable across both sides)."""

    def __init__(self, normalizer: Normalizer, *, strict: bool) -> None:
        self._normalizer = normalizer
        self._strict = strict
        self._paths = normalizer.has_ignores
        self._ids: dict[Hashable, int] = _Interner()
        self._calls: dict[tuple[int, bool, str], int] = {}

    def base(self, step: TraceStep) -> int:
        """The interned type + name (+ the sorted non-volatile input keys when strict)."""
        # `_value_`: the plain string (an enum's hash and `.value` run Python code)
        key: tuple[Hashable, ...] = (step.step_type._value_, step.name)
        if self._strict:
            key = (*key, volatile_free_keys(step.input_payload))
        return self._ids[key]

    def base_keys(self) -> list[Hashable]:
        """The base keys interned so far, in the order of their ids (id i: the i-th key)."""
        return list(self._ids)

    def base_ids(self, keys: list[Hashable]) -> list[int]:
        """The ids of base `keys`, the new ones interned in the order listed."""
        return list(map(self._ids.__getitem__, keys))

    @property
    def base_of_kind(self) -> Callable[[tuple[str, str]], int] | None:
        """`base` from a step's (type value, name) alone, at C speed.

        None when strict: the input keys count too.
        """
        return None if self._strict else self._ids.__getitem__

    def exacts(self, base: list[int], failed: list[bool], calls: dict[int, str]) -> list[int]:
        """Each step's exact signature: base + failed-or-not (+ the call key of a tool call).

        `calls` maps the positions of the tool calls to their call keys. Other steps need no
        interning (`2·base + failed`, never negative: made in bulk at C speed); tool calls intern
        (base, failed, call key) into negative ids, so the two kinds never collide. The interning
        is inline: a method call per tool call cost more than the interning itself.
        """
        out = list(map(add, map(mul, base, repeat(2)), failed))
        interned = self._calls
        intern = interned.setdefault
        for i, call in calls.items():
            out[i] = -1 - intern((base[i], failed[i], call), len(interned))
        return out

    def succeeded(
        self, base: list[int], failed: list[int], calls: dict[int, str]
    ) -> dict[int, int | None]:
        """Each failed position → the exact signature of the same step not failing.

        `failed` lists the failed positions. For a tool call that is the call with the same
        normalized arguments (None when no such call has been signed); for another step,
        `2·base`.
        """
        interned = self._calls
        out: dict[int, int | None] = {}
        for i in failed:
            call = calls.get(i)
            if call is None:
                out[i] = 2 * base[i]
            else:
                found = interned.get((base[i], False, call))
                out[i] = None if found is None else -1 - found
        return out

    def call_key(self, name: str, arguments: Any) -> str:
        """A tool call's name and normalized arguments (its input payload), as one string."""
        if self._paths:
            args = self._normalizer.normalize(arguments, ("input_payload",))
        else:  # no ignores to match: skip the dispatch (one call per tool call of a trace)
            args = strip_volatile(arguments)
        try:
            text = orjson.dumps(args, option=_SORTED, default=str).decode()
        except TypeError:  # built in Python, not read from JSON: an int key, a 65-bit int
            text = _canonical(args)
        return f"{name}\x00{text}"


_SORTED = orjson.OPT_SORT_KEYS


def _canonical(args: Any) -> str:
    """Canonical JSON of arguments orjson refuses by default.

    Non-text keys (as text), integers past 64 bits (exact, by the standard library).
    """
    try:
        return orjson.dumps(args, option=_SORTED | orjson.OPT_NON_STR_KEYS, default=str).decode()
    except TypeError:
        return json.dumps(args, sort_keys=True, default=str)


class _Interner(dict[Hashable, int]):
    """Hands out the next integer to a key it has not seen (a lookup miss interns)."""

    def __missing__(self, key: Hashable) -> int:
        value = self[key] = len(self)
        return value
