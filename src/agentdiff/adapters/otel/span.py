"""One OTel span, whatever JSON shape it came in, and the attribute helpers adapters read with.

Attributes come out flat (`llm.input_messages.0.message.role`), whether the source flattened them
or nested them; adapters read one form.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datetime import datetime

__all__ = ["OtelSpan", "enum_name", "flatten_attributes", "indexed_list", "normal_id"]


@dataclass(slots=True)
class OtelSpan:
    """One span, whatever JSON shape it came in."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    kind: str = "INTERNAL"
    start: datetime | None = None
    end: datetime | None = None
    status_code: str = "UNSET"
    status_message: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    resource: dict[str, Any] = field(default_factory=dict)


def normal_id(value: Any) -> str:
    """A trace or span id as lower-case hex without `0x`; `None` → `""`."""
    if value is None:
        return ""
    return str(value).lower().removeprefix("0x")


def enum_name(value: Any, names: dict[int, str], prefix: str) -> str:
    """An OTel enum written as an int, `"SpanKind.INTERNAL"` or `"SPAN_KIND_INTERNAL"` → name."""
    if isinstance(value, int):
        return names.get(value, str(value))
    text = str(value or "").upper().rsplit(".", 1)[-1]  # "SpanKind.INTERNAL" → "INTERNAL"
    text = text.removeprefix(prefix)
    return text or names[0]


def flatten_attributes(attrs: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested attribute dicts and lists of dicts → dotted keys with zero-based list indices."""
    flat: dict[str, Any] = {}
    for key, value in attrs.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            flat.update(flatten_attributes(value, f"{name}."))
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for i, item in enumerate(value):
                flat.update(flatten_attributes(item, f"{name}.{i}."))
        else:
            flat[name] = value
    return flat


def indexed_list(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """Collect `prefix.N.rest` keys into a list of `{rest: value}` dicts ordered by N."""
    items: dict[int, dict[str, Any]] = {}
    start = f"{prefix}."
    for key, value in attrs.items():
        if not key.startswith(start):
            continue
        index, _, rest = key[len(start) :].partition(".")
        if index.isdigit() and rest:
            items.setdefault(int(index), {})[rest] = value
    return [items[i] for i in sorted(items)]
