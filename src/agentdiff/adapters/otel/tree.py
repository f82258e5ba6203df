"""The parent/child structure of a set of OTel spans, with non-agent spans pruned.

`SpanTree(spans, keep)` keeps the spans in `keep` (the agent spans) and every other span that wraps
agent spans from outside (an agent span below it, none above it: an HTTP server span around the
whole run keeps its place as the root). Every other span is dropped (HTTP/DB client calls, and
framework internals between agent spans) and its children re-hang under the nearest kept
ancestor. A span whose parent is not in the file is a root.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from agentdiff.adapters._kit.ordering import parents_first

if TYPE_CHECKING:
    from collections.abc import Iterator

    from agentdiff.adapters.otel.span import OtelSpan

__all__ = ["SpanTree", "impossible_times"]

_NEVER = datetime.max.replace(tzinfo=timezone.utc)
_LONGEST = timedelta(days=30)


def impossible_times(spans: list[OtelSpan]) -> list[str]:
    """Clear the times of spans that end before they start or last over 30 days; say so."""
    bad = []
    for span in spans:
        if span.start is not None and span.end is not None:
            length = span.end - span.start
            if length < timedelta(0) or length > _LONGEST:
                bad.append(span.name or span.span_id)
                span.start = span.end = None
    if not bad:
        return []
    shown = ", ".join(bad[:3]) + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")  # noqa: PLR2004
    return [
        (
            f"impossible duration on {len(bad)} span{'s' if len(bad) > 1 else ''} ({shown}): "
            "end before start or over 30 days; their times and latency are unknown"
        )
    ]


class SpanTree:
    """Kept spans, their kept parents, and a chronological, parents-first order."""

    def __init__(self, spans: list[OtelSpan], keep: set[str]) -> None:
        self.by_id: dict[str, OtelSpan] = {}
        for span in spans:
            self.by_id.setdefault(span.span_id, span)
        self.spans = list(self.by_id.values())
        self.kept = self._close_over_ancestors(keep)

    def _close_over_ancestors(self, keep: set[str]) -> set[str]:
        kept = {span_id for span_id in keep if span_id in self.by_id}
        for span_id in list(kept):
            wrappers: list[str] = []
            for ancestor in self._ancestors(self.by_id[span_id]):
                if ancestor.span_id in keep:
                    break
                wrappers.append(ancestor.span_id)
            else:
                kept.update(wrappers)  # no agent span above: outer wrappers
        return kept

    def _ancestors(self, span: OtelSpan) -> Iterator[OtelSpan]:
        """Parent, grandparent, ... up to a root (or a cycle), walked only as far as asked."""
        seen = {span.span_id}
        node = self._parent(span)
        while node is not None and node.span_id not in seen:
            yield node
            seen.add(node.span_id)
            node = self._parent(node)

    def _parent(self, span: OtelSpan) -> OtelSpan | None:
        parent = self.by_id.get(span.parent_id) if span.parent_id else None
        return parent if parent is not None and parent.span_id != span.span_id else None

    def kept_parent(self, span: OtelSpan) -> str | None:
        """The id of the nearest kept ancestor; `None` for a root."""
        return next((a.span_id for a in self._ancestors(span) if a.span_id in self.kept), None)

    def roots(self) -> list[OtelSpan]:
        """Kept spans without a kept ancestor, in file order."""
        return [s for s in self.spans if s.span_id in self.kept and self.kept_parent(s) is None]

    def ordered(self) -> list[OtelSpan]:
        """Kept spans by start time; a child never precedes its parent; ties in file order."""
        return parents_first(
            [s for s in self.spans if s.span_id in self.kept],
            id_of=lambda s: s.span_id,
            parent_of=self.kept_parent,
            key=lambda s: s.start or _NEVER,
        )

    def dropped_count(self) -> int:
        """How many spans were dropped (no agent meaning, not an outer wrapper of agent spans)."""
        return len(self.spans) - len(self.kept)

    def dropped_names(self) -> dict[str, int]:
        """How many spans of each name were dropped."""
        return dict(Counter(s.name for s in self.spans if s.span_id not in self.kept))
