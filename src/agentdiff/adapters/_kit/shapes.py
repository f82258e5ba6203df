"""Shape checks for adapters: a wrong JSON type is a `TraceFormatError` naming its JSON path.

Adapters read documents they did not write; `mapping(value, where)` and `items(value, where)`
return the value when it has the expected shape, `{}` / `[]` when it is absent (`None`), and
otherwise raise an error such as `resourceSpans[0].resource: expected an object, got int`.
"""

from __future__ import annotations

from typing import Any

from agentdiff.errors import TraceFormatError

__all__ = ["items", "mapping"]


def _wrong(where: str, expected: str, value: Any) -> TraceFormatError:
    return TraceFormatError(f"{where}: expected {expected}, got {type(value).__name__}")


def mapping(value: Any, where: str) -> dict[str, Any]:
    """`value` if it is a JSON object, `{}` if it is absent, else an error naming `where`."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _wrong(where, "an object", value)
    return value


def items(value: Any, where: str) -> list[Any]:
    """`value` if it is a JSON array, `[]` if it is absent, else an error naming `where`."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise _wrong(where, "an array", value)
    return value
