"""Tool calls LLM spans asked for and no tool span has answered yet, indexed for the builder.

`PendingCalls.take(call_id, name)` answers what a scan of the list in request order answers
(the first call with that id, else the first with that name, and removes it), but from indexes
by id and by name: a trace whose model asks for calls that never run costs linear time, not a
scan of every unanswered call per tool span. An id or name that is not hashable (a list in odd
data) is never equal to the text looked up, so it is never indexed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Any

__all__ = ["PendingCalls"]


class _Entry:
    __slots__ = ("call", "taken")

    def __init__(self, call: dict[str, Any]) -> None:
        self.call = call
        self.taken = False


class PendingCalls:
    """Requested tool calls (`{"id", "name", ...}`), oldest first, until a tool span takes one."""

    def __init__(self) -> None:
        self._by_id: dict[Hashable, deque[_Entry]] = {}
        self._by_name: dict[Hashable, deque[_Entry]] = {}

    def add(self, call: dict[str, Any]) -> None:
        """Queue `call` behind the calls asked for before it."""
        entry = _Entry(call)
        for index, key in ((self._by_id, call.get("id")), (self._by_name, call.get("name"))):
            if isinstance(key, Hashable):
                index.setdefault(key, deque()).append(entry)

    def take(self, call_id: str | None, name: str) -> dict[str, Any] | None:
        """The oldest call with `call_id` (when given), else the oldest named `name`; removed."""
        entry = (self._first(self._by_id, call_id) if call_id else None) or self._first(
            self._by_name, name
        )
        if entry is None:
            return None
        entry.taken = True
        return entry.call

    @staticmethod
    def _first(index: dict[Hashable, deque[_Entry]], key: Hashable) -> _Entry | None:
        queue = index.get(key)
        while queue and queue[0].taken:
            queue.popleft()
        return queue[0] if queue else None
