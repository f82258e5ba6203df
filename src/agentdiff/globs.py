"""Glob patterns matched segment by segment, where `**` stands for any number of segments.

One matcher for dotted payload paths (`input_payload.*.request_id`, `**.timestamp`) and for
slash-separated file paths (`runs/main/**/*.json`): each segment is an `fnmatch` pattern, case
sensitive.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from functools import lru_cache

__all__ = ["segments_match"]


@lru_cache(maxsize=65536)
def segments_match(glob: tuple[str, ...], path: tuple[str, ...]) -> bool:
    """Whether the segments of `path` match the segments of `glob`."""
    if not glob:
        return not path
    head, rest = glob[0], glob[1:]
    if head == "**":
        return any(segments_match(rest, path[i:]) for i in range(len(path) + 1))
    return bool(path) and fnmatchcase(path[0], head) and segments_match(rest, path[1:])
