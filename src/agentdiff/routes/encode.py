"""Routes as short strings for clustering: labels interned to one character each.

A run's route and its labels (`step_type<US>name`, US: the unit separator; plus `<US>` and the
sorted input keys with strict tool signatures) are defined once, in `agentdiff.routes.route`
(`route_of`, `route_id`, `route_distance`): the engine's execution order, concurrent calls in
canonical order. Here labels are interned (`RouteCodec`), so a route is a string and rapidfuzz
compares it at C speed with the same normalized Indel distance.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentdiff.routes.route import ROUTE_SEPARATOR, route_id, route_of, route_text_id

__all__ = ["RouteCodec", "label_name", "route_id", "route_of"]

_SEP = "\x1f"
_SURROGATES = range(0xD800, 0xE000)


def label_name(label: str) -> str:
    """The step name a label shows (`tool_call<US>lookup_order` → `lookup_order`)."""
    parts = label.split(_SEP)
    return parts[1] if len(parts) > 1 else label


class RouteCodec:
    """Interns labels to single characters so that routes become short strings."""

    def __init__(self) -> None:
        self._codes: dict[str, str] = {}
        self.labels: list[str] = []
        self._table: dict[int, str] = {}
        """code point → label + separator, for `str.translate` (C speed)."""

    def encode(self, route: Sequence[str]) -> str:
        """The route as a string of one character per step."""
        codes = self._codes
        try:
            return "".join(map(codes.__getitem__, route))
        except KeyError:
            for label in route:
                if label not in codes:
                    codes[label] = self._next()
                    self.labels.append(label)
            return "".join(map(codes.__getitem__, route))

    def joined(self, encoded: str) -> str:
        """The route's labels joined by `ROUTE_SEPARATOR` (what its id hashes)."""
        if len(self._table) != len(self.labels):
            self._table = {ord(c): label + ROUTE_SEPARATOR for label, c in self._codes.items()}
        return encoded.translate(self._table)[:-1]

    def decode(self, encoded: str) -> list[str]:
        """The labels of an encoded route."""
        return self.joined(encoded).split(ROUTE_SEPARATOR) if encoded else []

    def route_id(self, encoded: str) -> str:
        """`route_id` of an encoded route, without decoding it."""
        return route_text_id(self.joined(encoded))

    def _next(self) -> str:
        point = len(self.labels)
        if point >= _SURROGATES.start:
            point += len(_SURROGATES)
        return chr(point)
