"""Shape checks for adapters: a wrong JSON type is a `TraceFormatError` naming its JSON path.

Adapters read documents they did not write. A value the adapter needs that has the wrong type
or shape must not turn into a silently wrong trace (a step list read as empty, a count read as
unknown, a number read as an id); it is an error naming where it is, such as
`spans[3].attributes.llm.token_count.prompt: expected a token count, got "abc"`. A value that
is merely absent (`None` / a missing key) stays tolerated: each reader returns its empty value.

- `mapping(value, where)` / `items(value, where)`: a JSON object / array, `{}` / `[]` when absent;
- `text(value, where)`: a string (`None` when absent);
- `identifier(value, where)`: an id written as a string or an integer, as text (`None` absent);
- `number(value, where)`: a finite number, never a boolean (`None` when absent);
- `amount(value, where)`: a cost (USD) or latency (ms): a number of at most 10^15 either way;
- `timestamp(value, where)`: a time written as text or an epoch number → aware UTC; text that is
  no time, or a moment past the datetime range, is unknown (`None`), the documented clamp;
- `key_path(where, key)`: the JSON path of `where`'s member `key` (`a.b`, `a[3]`, `a["x y"]`);
- `wrong(where, expected, value)`: the error itself, for checks the readers do not cover.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

import orjson

from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import MAX_AMOUNT
from agentdiff.redact import redacted
from agentdiff.timeparse import parse_timestamp

if TYPE_CHECKING:
    from datetime import datetime

__all__ = [
    "amount",
    "identifier",
    "items",
    "key_path",
    "mapping",
    "number",
    "shown",
    "text",
    "timestamp",
    "wrong",
]

_SHOWN = 40
_HUGE = 1e308
"""Characters of a wrong value a message shows."""
_NAME = re.compile(r"[A-Za-z_$@][\w$@\-.]*")
"""Keys written bare in a path (dots included: OTel attribute names read as they are written)."""


def shown(value: Any) -> str:
    """A wrong value as a message shows it: scalars as redacted clipped JSON, containers by kind."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**63:
        text = str(value)
    else:
        try:
            text = orjson.dumps(value).decode()
        except TypeError:
            text = type(value).__name__
    text = redacted(text)  # before the cut, which would hide a key from the patterns
    return text if len(text) <= _SHOWN else f"{text[: _SHOWN - 1]}…"


def wrong(where: str, expected: str, value: Any) -> TraceFormatError:
    """`<where>: expected <expected>, got <value>`."""
    return TraceFormatError(f"{where}: expected {expected}, got {shown(value)}")


def key_path(where: str, key: str | int) -> str:
    """The JSON path of member `key` of the value at `where`."""
    if isinstance(key, int):
        return f"{where}[{key}]"
    if _NAME.fullmatch(key):
        return f"{where}.{key}" if where else key
    return f"{where}[{orjson.dumps(key).decode()}]"


def mapping(value: Any, where: str) -> dict[str, Any]:
    """`value` if it is a JSON object, `{}` if it is absent, else an error naming `where`."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise wrong(where, "an object", value)
    return value


def items(value: Any, where: str) -> list[Any]:
    """`value` if it is a JSON array, `[]` if it is absent, else an error naming `where`."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise wrong(where, "an array", value)
    return value


def text(value: Any, where: str) -> str | None:
    """`value` if it is a string, `None` if it is absent, else an error naming `where`."""
    if value is None or isinstance(value, str):
        return value
    raise wrong(where, "a string", value)


def identifier(value: Any, where: str) -> str | None:
    """An id written as a string or an integer, as text; `None` if absent (or empty)."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise wrong(where, "an id (a string)", value)


def number(value: Any, where: str) -> float | None:
    """`value` if it is a finite JSON number (not a boolean), `None` if absent, else an error."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        as_float = float(value) if abs(value) < _HUGE else math.inf
        if math.isfinite(as_float):
            return as_float
        raise wrong(where, "a finite number", value)
    raise wrong(where, "a number", value)


def timestamp(value: Any, where: str) -> datetime | None:
    """A time written as ISO text or an epoch number (`parse_timestamp`).

    `None` when absent or unreadable; a JSON object, array or boolean is an error naming `where`.
    """
    if value is None:
        return None
    if isinstance(value, (dict, list, bool)):
        raise wrong(where, "a timestamp", value)
    return parse_timestamp(value)


def amount(value: Any, where: str) -> float | None:
    """A cost in USD or a latency in ms: `number`, at most 10^15 either way (sums stay finite)."""
    found = number(value, where)
    if found is not None and abs(found) > MAX_AMOUNT:
        raise wrong(where, "an amount of at most 10^15", value)
    return found
