"""The limits that keep hostile or broken input from exhausting the machine.

- **Input size** (`--max-input-size`, `AGENTDIFF_MAX_INPUT_SIZE`, default 2 GiB): the most bytes
  read from one file, and the most bytes inflated from a gzip file (counted while streaming, so
  a gzip bomb stops at the limit).
- **Steps** (`--max-steps`, `AGENTDIFF_MAX_STEPS`, default 5,000,000): the most steps one trace
  may have; JSON Lines files stop being read past that many non-blank lines (blank lines
  cost no work per line: `reading.content_lines`).
- **Nesting** (`MAX_DEPTH`, fixed): payloads, task input, final output and metadata may nest 200
  levels; every later stage (validation, normalization, signatures, every report format,
  `convert`) handles that much. A whole document may add `ENVELOPE_DEPTH` levels of its own
  format's wrapping around the payloads.

A limit crossed is a `LimitError` (`InputLimitError` while reading, `TraceLimitError` for the
trace read) naming the file and, for nesting, the JSON path: never taken for a corrupt file.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from agentdiff.errors import ConfigError, TraceLimitError

if TYPE_CHECKING:
    from agentdiff.models.trace import AgentTrace

__all__ = [
    "DEFAULT_MAX_INPUT_SIZE",
    "DEFAULT_MAX_STEPS",
    "DEPTH_HINT",
    "ENVELOPE_DEPTH",
    "MAX_DEPTH",
    "Limits",
    "check_level",
    "check_values",
    "deepest_path",
    "exceeds_depth",
    "nesting_error",
    "parse_size",
    "short_path",
    "too_deep",
]

MAX_DEPTH = 200
"""Levels of nesting a payload (or task input, final output, metadata) may have."""
DEPTH_HINT = f"payloads may nest at most {MAX_DEPTH} levels; flatten or trim the deep value"
ENVELOPE_DEPTH = 50
"""Extra levels a whole document may wrap around its payloads (OTLP, nested run trees)."""
DEFAULT_MAX_INPUT_SIZE = 2 * 1024**3
DEFAULT_MAX_STEPS = 5_000_000

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?)(b?)\s*$", re.IGNORECASE)
_SCALE = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4}


def parse_size(text: str) -> int:
    """A byte count from `2GiB`, `500MB`, `64k` or `1048576` (K/M/G/T, decimal or binary)."""
    match = _SIZE.match(text)
    if match is None:
        raise ValueError(text)
    number, prefix, binary, _ = match.groups()
    base = 1024 if binary or not prefix else 1000
    size = int(float(number) * base ** _SCALE[prefix.lower()])
    if size <= 0:
        raise ValueError(text)
    return size


def _positive_int(text: str) -> int:
    value = int(text.replace("_", "").replace(",", ""))
    if value <= 0:
        raise ValueError(text)
    return value


@dataclass(frozen=True)
class Limits:
    """How much one input may hold; see the module docstring."""

    max_input_size: int = DEFAULT_MAX_INPUT_SIZE
    max_steps: int = DEFAULT_MAX_STEPS

    @classmethod
    def resolve(
        cls,
        max_input_size: str | None = None,
        max_steps: str | None = None,
        *,
        env: Mapping[str, str] | None = None,
    ) -> Limits:
        """Flags (text) first, then `AGENTDIFF_MAX_INPUT_SIZE` / `AGENTDIFF_MAX_STEPS`."""
        env = os.environ if env is None else env
        size = _pick(max_input_size, "--max-input-size", env, "AGENTDIFF_MAX_INPUT_SIZE")
        steps = _pick(max_steps, "--max-steps", env, "AGENTDIFF_MAX_STEPS")
        if size is None and steps is None and cls is Limits:
            return _DEFAULTS  # each load without limits given resolves them: keep that cheap
        return cls(
            max_input_size=_parsed(size, parse_size, "a size such as 2GiB or 500MB")
            or DEFAULT_MAX_INPUT_SIZE,
            max_steps=_parsed(steps, _positive_int, "a positive whole number") or DEFAULT_MAX_STEPS,
        )


_DEFAULTS = Limits()


def _pick(
    flag_value: str | None, flag: str, env: Mapping[str, str], name: str
) -> tuple[str, str] | None:
    if flag_value is not None:
        return flag, flag_value
    text = env.get(name, "").strip()
    return (f"env {name}", text) if text else None


def _parsed(given: tuple[str, str] | None, parse: Any, expected: str) -> int | None:
    if given is None:
        return None
    where, text = given
    try:
        return int(parse(text))
    except (ValueError, OverflowError):
        raise ConfigError(f"must be {expected}, got {text!r}", source=where) from None


def _probe_orjson_depth() -> int:
    """The deepest value `orjson.dumps` writes (254 today), found once by trying."""
    value: Any = 0
    for depth in range(1, 1025):
        value = [value]
        try:
            orjson.dumps(value)
        except orjson.JSONEncodeError:
            return depth - 1
    return 1024


_ORJSON_DEPTH = _probe_orjson_depth()


def exceeds_depth(values: list[Any], limit: int) -> bool:
    """True when any of `values` nests deeper than `limit` (`{"a": 1}` is one level).

    Checked at C speed: orjson refuses to write past a fixed depth, so each value is wrapped in
    as many lists as that depth leaves above `limit`; a refusal means a value is too deep.

    The lists are made once per thread and limit (`_wrapping`) and `values` is put in the
    innermost for the check: making and freeing ~50 lists cost ~30k instructions a call, and
    every file loaded is checked (~0.5% of loading and comparing a pair of 50 steps).
    """
    wrapping = _wrapping(limit)
    if wrapping is None:  # no room left for a wrapping, or this thread's is in use
        wrapped: Any = values
        for _ in range(_ORJSON_DEPTH - limit - 1):
            wrapped = [wrapped]
        return _refused(wrapped)
    outer, inner = wrapping
    inner.append(values)
    try:
        return _refused(outer)
    finally:
        inner.clear()


def _refused(wrapped: Any) -> bool:
    try:
        orjson.dumps(wrapped, default=str)
    except orjson.JSONEncodeError:
        return True
    return False


class _Wrappings(threading.local):
    def __init__(self) -> None:
        self.by_limit: dict[int, tuple[list[Any], list[Any]]] = {}


_WRAPPINGS = _Wrappings()


def _wrapping(limit: int) -> tuple[list[Any], list[Any]] | None:
    """The outermost and the innermost (empty) of `exceeds_depth`'s lists for `limit`.

    One set per thread (a check in another thread never sees this one's values); None when
    the innermost is in use (a check made while writing a value, by `default=str`) or there
    are no lists to make.
    """
    made = _WRAPPINGS.by_limit.get(limit)
    if made is None:
        if _ORJSON_DEPTH - limit - 1 < 1:
            return None
        inner: list[Any] = []
        outer = inner
        for _ in range(_ORJSON_DEPTH - limit - 2):
            outer = [outer]
        made = _WRAPPINGS.by_limit[limit] = (outer, inner)
    return None if made[1] else made


def deepest_path(value: Any, limit: int, root: str = "") -> str | None:
    """The JSON path of the first container nested deeper than `limit` under `value`, if any."""
    stack: list[tuple[Any, int, str]] = [(value, 1, root)]
    while stack:
        node, depth, path = stack.pop()
        if depth > limit:
            return path or "$"
        stack.extend(
            (child, depth + 1, _join(path, key))
            for key, child in reversed(list(_children(node)))
            if isinstance(child, dict | list)
        )
    return None


def _children(node: Any) -> Iterator[tuple[str | int, Any]]:
    if isinstance(node, dict):
        yield from node.items()
    elif isinstance(node, list):
        yield from enumerate(node)


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def short_path(path: str, limit: int = 120) -> str:
    """A JSON path short enough for one line: its start and its end around an ellipsis."""
    if len(path) <= limit:
        return path
    return f"{path[: limit // 2]}…{path[-limit // 3 :]}"


def nesting_error(path: str) -> TraceLimitError:
    """The error of a payload nested past `MAX_DEPTH` at `path` (`steps[3].input_payload.a…`)."""
    return TraceLimitError(f"{path} nests deeper than {MAX_DEPTH} levels", hint=DEPTH_HINT)


def too_deep(trace: AgentTrace) -> str | None:
    """The JSON path of the first payload of `trace` nested deeper than `MAX_DEPTH`, if any.

    Loading checks every trace it returns; a trace built in Python is checked by `compare()`
    only when its walk of the payloads ran out of stack (it handles `MAX_DEPTH` levels and more).
    """
    if not any(exceeds_depth(values, MAX_DEPTH) for values in _payload_batches(trace)):
        return None
    for where, value in _payload_fields(trace):
        path = deepest_path(value, MAX_DEPTH, where)
        if path is not None:
            return short_path(path)
    return None  # pragma: no cover - exceeds_depth and deepest_path agree on every value


def _payload_batches(trace: AgentTrace, size: int = 10_000) -> Iterator[list[Any]]:
    """The payloads of the trace, `size` steps at a time (a copy of all of them is big)."""
    yield [trace.task_input, trace.final_output, trace.metadata]
    for start in range(0, len(trace.steps), size):
        yield [
            value
            for step in trace.steps[start : start + size]
            for value in (step.input_payload, step.output_payload, step.metadata)
        ]


def _payload_fields(trace: AgentTrace) -> Iterator[tuple[str, Any]]:
    yield from (
        ("task_input", trace.task_input),
        ("final_output", trace.final_output),
        ("metadata", trace.metadata),
    )
    for i, step in enumerate(trace.steps):
        yield f"steps[{i}].input_payload", step.input_payload
        yield f"steps[{i}].output_payload", step.output_payload
        yield f"steps[{i}].metadata", step.metadata


def check_level(level: int) -> None:
    """A container at `level` of a walked payload (itself level 1) is within `MAX_DEPTH`.

    Else `RecursionError`. The engine's walks call it as they descend: a trace built in
    Python (loading refuses such payloads) stops there rather than overflow the stack of the
    compiled engine, which checks no recursion limit; `compare()` then names the payload
    (`too_deep`).
    """
    if level > MAX_DEPTH:
        raise _past_the_limit()


def check_values(values: list[Any], level: int) -> None:
    """Values at `level`, and all they hold, are within `MAX_DEPTH` (see `check_level`)."""
    if exceeds_depth(values, MAX_DEPTH - level + 1):
        raise _past_the_limit()


def _past_the_limit() -> RecursionError:
    return RecursionError(f"a payload nests deeper than {MAX_DEPTH} levels")
