"""One OTel span, whatever JSON shape it came in, and the attribute helpers adapters read with.

Attributes come out flat (`llm.input_messages.0.message.role`), whether the source flattened them
or nested them; adapters read one form. Values that are payloads (`input.value`, `output.value`,
tool arguments and results, message lists) stay whole even when they are already objects.

Ids keep the case they were written in (`normal_id` only drops a `0x` prefix); ids written with
protobuf's JSON mapping (base64: 12 characters for a span id, 24 for a trace id) become the hex
ids OTel tools show.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datetime import datetime

__all__ = [
    "WHOLE_VALUES",
    "OtelSpan",
    "enum_name",
    "flatten_attributes",
    "indexed_list",
    "normal_id",
]


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
    path: str = ""
    """The span's JSON path in its document (`resourceSpans[0].scopeSpans[0].spans[3]`)."""

    @property
    def attributes_path(self) -> str:
        """The JSON path of its attributes (`spans[3].attributes`).

        An attribute's path is that plus its (dotted) name, as adapters read it:
        `spans[3].attributes.llm.token_count.prompt`.
        """
        return f"{self.path}.attributes" if self.path else "attributes"


_BASE64_ID = re.compile(r"[A-Za-z0-9+/]{11}=|[A-Za-z0-9+/]{22}==")
"""An 8-byte span id or a 16-byte trace id in padded base64 (hex ids are 16 / 32 characters)."""


def normal_id(value: Any) -> str:
    """A trace or span id without `0x`, in the case it was written (base64 → hex; None → "")."""
    if value is None:
        return ""
    text = str(value)
    if text[:2] in ("0x", "0X"):
        return text[2:]
    if _BASE64_ID.fullmatch(text):
        try:
            return base64.b64decode(text, validate=True).hex()
        except (binascii.Error, ValueError):
            return text
    return text


def enum_name(value: Any, names: dict[int, str], prefix: str) -> str:
    """An OTel enum written as an int, `"SpanKind.INTERNAL"` or `"SPAN_KIND_INTERNAL"` → name."""
    if isinstance(value, int):
        return names.get(value, str(value))
    text = str(value or "").upper().rsplit(".", 1)[-1]  # "SpanKind.INTERNAL" → "INTERNAL"
    text = text.removeprefix(prefix)
    return text or names[0]


WHOLE_VALUES = frozenset(
    (
        "input.value",
        "output.value",
        "metadata",
        "llm.invocation_parameters",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "ai.toolCall.args",
        "ai.toolCall.result",
    )
)
"""Attributes that hold a payload: kept whole when they are already objects or lists."""


def flatten_attributes(attrs: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested attribute dicts and lists of dicts → dotted keys with zero-based list indices.

    Payload attributes (`WHOLE_VALUES`) stay whole.
    """
    flat: dict[str, Any] = {}
    for key, value in attrs.items():
        name = f"{prefix}{key}"
        if name in WHOLE_VALUES:
            flat[name] = value
        elif isinstance(value, dict) and value:
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
