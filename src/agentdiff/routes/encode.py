"""Routes as short strings for clustering: labels interned to one character each.

A run's route and its labels (`step_type<US>name`, US: the unit separator; plus `<US>` and the
sorted input keys with strict tool signatures) are defined once, in `agentdiff.routes.route`
(`route_of`, `route_id`, `route_distance`): the engine's execution order, concurrent calls in
canonical order. Here labels are interned (`RouteCodec`), so a route is a string and rapidfuzz
compares it at C speed with the same normalized Indel distance. A codec given every label up
front codes them in label order (`ordered`), so encoded routes sort as their label lists do.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice
from operator import lt

from agentdiff.routes.route import ROUTE_SEPARATOR, route_bytes_id, route_id, route_of

__all__ = ["RouteCodec", "label_name", "route_id", "route_of"]

_SEP = "\x1f"
_SURROGATES = range(0xD800, 0xE000)
_SEPARATOR = ROUTE_SEPARATOR.encode()


def label_name(label: str) -> str:
    """The step name a label shows (`tool_call<US>lookup_order` → `lookup_order`)."""
    parts = label.split(_SEP)
    return parts[1] if len(parts) > 1 else label


def code_point(index: int) -> str:
    """The character of the `index`-th interned label (surrogates skipped, order kept)."""
    return chr(index + len(_SURROGATES) if index >= _SURROGATES.start else index)


class RouteCodec:
    """Interns labels to single characters so that routes become short strings.

    `labels`, when given, are interned first, in sorted order (see `ordered`).
    """

    def __init__(self, labels: Iterable[str] = ()) -> None:
        self._codes: dict[str, str] = {}
        self.labels: list[str] = []
        self._table: dict[int, str] = {}
        """code point → label + separator, for `str.translate` (C speed)."""
        self._bytes: dict[str, bytes] = {}
        """code → the label's UTF-8 bytes + separator (what a route id hashes)."""
        for label in sorted(set(labels)):
            self._intern(label)

    @property
    def ordered(self) -> bool:
        """Codes follow label order: encoded routes compare as their label lists do."""
        return all(map(lt, self.labels, islice(self.labels, 1, None)))

    def encode(self, route: Sequence[str]) -> str:
        """The route as a string of one character per step."""
        codes = self._codes
        try:
            return "".join(map(codes.__getitem__, route))
        except KeyError:
            for label in route:
                if label not in codes:
                    self._intern(label)
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
        """`route_id` of an encoded route, without decoding it (the same hash of the same text)."""
        return route_bytes_id(b"".join(map(self._bytes.__getitem__, encoded))[:-1])

    def _intern(self, label: str) -> None:
        code = code_point(len(self.labels))
        self._codes[label] = code
        self._bytes[code] = label.encode() + _SEPARATOR
        self.labels.append(label)
