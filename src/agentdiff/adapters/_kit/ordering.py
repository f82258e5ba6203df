"""One parents-first chronological ordering, for every source whose records form a tree.

`parents_first(items, id_of=..., parent_of=..., key=...)` releases the roots (no parent, or a
parent not among `items`), then repeatedly takes the ready item with the smallest `key` and
releases its children: earliest first, a child never before its parent, ties broken by the
key's later parts. Items no root reaches (a parent cycle) follow, in key order, so nothing is
ever dropped (the model then reports the cycle).
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Sequence

__all__ = ["parents_first"]

T = TypeVar("T")


def parents_first(
    items: Sequence[T],
    *,
    id_of: Callable[[T], Hashable],
    parent_of: Callable[[T], Hashable | None],
    key: Callable[[T], Any],
) -> list[T]:
    """`items` in chronological order with every parent before its children (see the module)."""
    ids = {id_of(item) for item in items}
    children: dict[Hashable | None, list[int]] = {}
    for i, item in enumerate(items):
        parent = parent_of(item)
        children.setdefault(parent if parent in ids else None, []).append(i)
    keys = [key(item) for item in items]
    heap: list[tuple[Any, int]] = []
    done = [False] * len(items)

    def release(parent: Hashable | None) -> None:
        for i in children.pop(parent, []):
            heapq.heappush(heap, (keys[i], i))

    release(None)
    ordered: list[T] = []
    while heap:
        _, i = heapq.heappop(heap)
        done[i] = True
        ordered.append(items[i])
        release(id_of(items[i]))
    rest = sorted((i for i in range(len(items)) if not done[i]), key=lambda i: (keys[i], i))
    return ordered + [items[i] for i in rest]
