"""One rule for naming runs and scenarios apart: rename only what clashes, one key at a time.

A run is named by its file's stem (`r1.json.gz` → `r1`); where stems clash within one scenario,
by its file name (`r1.json`, `r1.json.gz`); where file names still clash (files of different
folders in one scenario), by its path (as given, or relative to a suite's root). A file holding
several traces keeps `#<trace id>` after whichever name it gets. `distinct_names` applies such an
ordered list of keys; `number_repeats` parts whatever no key told apart (` (2)`, ` (3)`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

__all__ = ["TRACE_SUFFIXES", "distinct_names", "number_repeats", "trace_stem"]

TRACE_SUFFIXES = (".json", ".jsonl", ".ndjson")
"""File name endings of trace files (each may be followed by `.gz`), matched in any case."""

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


def trace_stem(name: str) -> str | None:
    """`name` without its trace-file ending (`a.json.gz` → `a`, `R1.JSON` → `R1`), else `None`."""
    lower = name.lower()
    if lower.endswith(".gz"):
        name, lower = name[:-3], lower[:-3]
    for suffix in TRACE_SUFFIXES:
        if lower.endswith(suffix) and len(lower) > len(suffix):
            return name[: -len(suffix)]
    return None


def distinct_names(items: Sequence[T], keys: Sequence[Callable[[T], K]]) -> list[K]:
    """Each item's name by the first key; items whose name another has move to their next key.

    Round by round, only the items that share a name (and have a key left) are renamed, so an
    item keeps the shortest name that no other item has. Items that share a name under their
    last key keep it: see `number_repeats`.
    """
    if not keys:
        raise ValueError("distinct_names needs at least one key")
    level = [0] * len(items)
    names = [keys[0](item) for item in items]
    while True:
        counts = Counter(names)
        last = len(keys) - 1
        clashing = [i for i, name in enumerate(names) if counts[name] > 1 and level[i] < last]
        if not clashing:  # every round moves an item one key on: this ends
            return names
        for i in clashing:
            level[i] += 1
            names[i] = keys[level[i]](items[i])


def number_repeats(names: Sequence[str]) -> list[str]:
    """`names` with each repeat after the first numbered (`s1`, `s1 (2)`) to a name not in use."""
    used = set(names)
    seen: set[str] = set()
    out: list[str] = []
    for given in names:
        name = given
        if name in seen:
            number = 2
            while f"{given} ({number})" in used:
                number += 1
            name = f"{given} ({number})"
            used.add(name)
        seen.add(name)
        out.append(name)
    return out
