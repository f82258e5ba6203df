"""Token usage as sources write it → `TokenUsage`: one reader and one summing helper.

Sources name the same three counts differently (`input_tokens` | `prompt_tokens` |
`promptTokens`, ...); `usage_from(mapping, key_sets, where)` reads a mapping with the caller's
names, first key present wins. A count is a whole number from 0 to 10^12 (an int, an integral
float or a numeric string); absent (`None`) is unknown, never zero; anything else is a
`TraceFormatError` naming its JSON path (`where` is the path of the mapping), never a silently
unknown or truncated count. A missing total is the sum of prompt and completion when both are
known.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

from agentdiff.adapters._kit.shapes import key_path, mapping, wrong
from agentdiff.models.trace import MAX_COUNT, TokenUsage

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

__all__ = ["KeySets", "count", "first_count", "sum_usage", "usage_from"]


class KeySets(NamedTuple):
    """The names a source gives each count, in the order they are looked for."""

    prompt: tuple[str, ...]
    completion: tuple[str, ...]
    total: tuple[str, ...]


_EXPECTED = "a token count (a whole number from 0 to 10^12)"


def count(value: Any, where: str) -> int | None:
    """A token count (int, integral float or numeric string); `None` when absent.

    Anything else (a boolean, text, a fraction, a negative or huge number) is an error naming
    `where`.
    """
    if value is None:
        return None
    number: Any = value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise wrong(where, _EXPECTED, value) from None
    if isinstance(number, float) and math.isfinite(number) and number.is_integer():
        number = int(number)
    if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= MAX_COUNT:
        raise wrong(where, _EXPECTED, value)
    return number


def first_count(counts: Mapping[str, Any], keys: Iterable[str], where: str) -> int | None:
    """The count under the first key of `keys` that `counts` (at `where`) holds a value for."""
    for key in keys:
        if counts.get(key) is not None:
            return count(counts[key], key_path(where, key))
    return None


def usage_from(
    counts: Any, key_sets: KeySets, where: str, *, cost: float | None = None
) -> TokenUsage | None:
    """The counts of the object at `where` (or absent), read with `key_sets`.

    `cost` joins them; `None` when nothing is known.
    """
    counts = mapping(counts, where)
    prompt = first_count(counts, key_sets.prompt, where)
    completion = first_count(counts, key_sets.completion, where)
    total = first_count(counts, key_sets.total, where)
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
