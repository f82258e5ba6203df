"""Token usage as sources write it → `TokenUsage`: one reader and one summing helper.

Sources name the same three counts differently (`input_tokens` | `prompt_tokens` |
`promptTokens`, ...); `usage_from(mapping, key_sets)` reads a mapping with the caller's names,
first key present wins. A count is a non-negative whole number (an int, an integral float or a
numeric string); anything else is unknown (`None`), never zero. A missing total is the sum of
prompt and completion when both are known.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

from agentdiff.models.trace import TokenUsage

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

__all__ = ["KeySets", "count", "first_count", "sum_usage", "usage_from"]


class KeySets(NamedTuple):
    """The names a source gives each count, in the order they are looked for."""

    prompt: tuple[str, ...]
    completion: tuple[str, ...]
    total: tuple[str, ...]


def count(value: Any) -> int | None:
    """A token count: a non-negative whole number (int, float or numeric string), else `None`."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        value = int(value)
    return value if isinstance(value, int) and value >= 0 else None


def first_count(mapping: Mapping[str, Any], keys: Iterable[str]) -> int | None:
    """The first key of `keys` in `mapping` holding a count."""
    for key in keys:
        found = count(mapping.get(key))
        if found is not None:
            return found
    return None


def usage_from(mapping: Any, key_sets: KeySets, *, cost: float | None = None) -> TokenUsage | None:
    """The counts of `mapping` read with `key_sets` (and `cost`); `None` when nothing is known."""
    if not isinstance(mapping, dict):
        mapping = {}
    prompt = first_count(mapping, key_sets.prompt)
    completion = first_count(mapping, key_sets.completion)
    total = first_count(mapping, key_sets.total)
    if total is None and prompt is not None and completion is not None:
        total = prompt + completion
    usage = TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        estimated_cost_usd=cost,
    )
    return None if usage.is_empty else usage


def sum_usage(usages: Iterable[TokenUsage | None]) -> TokenUsage | None:
    """Field by field sum of the known values; a field no usage knows stays `None`."""
    known = [u for u in usages if u is not None]
    sums: dict[str, Any] = {}
    for name in ("prompt_tokens", "completion_tokens", "total_tokens", "estimated_cost_usd"):
        values = [v for u in known if (v := getattr(u, name)) is not None]
        sums[name] = sum(values) if values else None
    total = TokenUsage(**sums)
    return None if total.is_empty else total
