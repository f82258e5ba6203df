"""A long changed value shown around where it changed, on both sides.

`windows("…lorem ipsum dolor sit amet…", "…lorem ipsum dolor sat amet…", 24)` marks the differing
part (widened to whole words, so `sit`/`sat`, not `i`/`a`) and keeps a little context around it:
`…ipsum dolor [sit] amet…` and `…ipsum dolor [sat] amet…`. Both sides are cut at the same place,
so the reader compares like with like instead of two identical prefixes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["Window", "windows"]

ELLIPSIS = "…"
_MIN_CONTEXT = 4
_WORD_MAX = 12
"""A difference is widened to its whole word only when that word is shorter than this."""


@dataclass(frozen=True)
class Window:
    """One side's text around the change: `before`, the changed part `mark`, `after`.

    `before` and `after` carry an ellipsis where text was cut; `changed` is False when the
    two values were equal (then everything is in `before`).
    """

    before: str
    mark: str = ""
    after: str = ""
    changed: bool = True

    def plain(self) -> str:
        """The window as text, the changed part in brackets: `…dolor [sit] amet…`."""
        if not self.changed:
            return self.before
        return f"{self.before}[{self.mark}]{self.after}"


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _span(a: str, b: str) -> tuple[int, int, int]:
    """Where `a` and `b` differ: (start, end in a, end in b), widened to whole words."""
    start = len(os.path.commonprefix([a, b]))  # noqa: RUF071 - characters, not path parts
    limit = min(len(a), len(b)) - start
    tail = 0
    while tail < limit and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    end_a, end_b = len(a) - tail, len(b) - tail
    left = start
    while left > 0 and start - left < _WORD_MAX and _is_word(a[left - 1]):
        left -= 1
    right = 0
    while end_a + right < len(a) and right < _WORD_MAX and _is_word(a[end_a + right]):
        right += 1
    if start - left == _WORD_MAX or right == _WORD_MAX:
        return start, end_a, end_b  # inside a long token: mark only what differs
    return left, end_a + right, end_b + right


def _cut(text: str, start: int, end: int, limit: int) -> Window:
    """`text` with `text[start:end]` marked, cut to about `limit` characters around it."""
    mark = text[start:end]
    if len(text) <= limit:
        return Window(text[:start], mark, text[end:])
    before_room = min(start, max(limit // 4, _MIN_CONTEXT))
    after_wanted = min(len(text) - end, _MIN_CONTEXT)
    mark_room = max(limit - before_room - after_wanted, _MIN_CONTEXT)
    if len(mark) > mark_room:
        mark = mark[: mark_room - 1] + ELLIPSIS
    after_room = max(limit - before_room - len(mark), after_wanted)
    before = text[start - before_room : start]
    after = text[end : end + after_room]
    if start - before_room > 0:
        before = ELLIPSIS + before[1:]
    if end + after_room < len(text):
        after = after[:-1] + ELLIPSIS if after else ELLIPSIS
    return Window(before, mark, after)


def windows(a: str, b: str, limit: int = 60) -> tuple[Window, Window]:
    """Both values cut to about `limit` characters around their first difference."""
    if a == b:
        plain = a if len(a) <= limit else a[: limit - 1] + ELLIPSIS
        return Window(plain, changed=False), Window(plain, changed=False)
    start, end_a, end_b = _span(a, b)
    return _cut(a, start, end_a, limit), _cut(b, start, end_b, limit)
