"""A run's route: its steps' base signatures in execution order, concurrent calls canonical.

The order is the diff engine's (`diff.order.prepare`): parents before children, siblings by
start time or step index, and calls that ran concurrently (the tool calls of one LLM turn,
overlapping siblings) in the engine's canonical order (by step type and name, `Side.canon`), so
that parallel calls issued in another order do not make a new route. A label is
`step_type<US>name` (US: the unit separator; plus `<US>` and the sorted input keys with strict
tool signatures), the engine's base signature.

For clustering, labels are interned to one character each (`RouteCodec`), so a route is a
string and rapidfuzz compares it at C speed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.order import prepare
from agentdiff.diff.signatures import Signer
from agentdiff.models.trace import AgentTrace, TraceStep

__all__ = ["RouteCodec", "label_name", "route_id", "route_of", "step_label"]

_SEP = "\x1f"
_SURROGATES = range(0xD800, 0xE000)


def step_label(step: TraceStep, *, strict: bool = False) -> str:
    """One step's base signature as text."""
    label = f"{step.step_type._value_}{_SEP}{step.name}"
    return f"{label}{_SEP}{','.join(sorted(step.input_payload))}" if strict else label


def route_of(trace: AgentTrace, *, strict: bool = False) -> list[str]:
    """The labels of `trace`'s steps in canonical execution order."""
    side = prepare(trace, Signer(Normalizer(()), strict=strict))
    order = range(len(side.steps)) if side.canon is None else side.canon
    return [step_label(side.steps[i], strict=strict) for i in order]


def label_name(label: str) -> str:
    """The step name a label shows (`tool_call<US>lookup_order` → `lookup_order`)."""
    parts = label.split(_SEP)
    return parts[1] if len(parts) > 1 else label


def route_id(route: Sequence[str]) -> str:
    """A stable 64-bit id of a route (hex; the same in every process and on every machine)."""
    return hashlib.blake2b("\x1e".join(route).encode(), digest_size=8).hexdigest()


class RouteCodec:
    """Interns labels to single characters so that routes become short strings."""

    def __init__(self) -> None:
        self._codes: dict[str, str] = {}
        self.labels: list[str] = []

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

    def decode(self, encoded: str) -> list[str]:
        """The labels of an encoded route."""
        return [self.labels[_index(ch)] for ch in encoded]

    def _next(self) -> str:
        point = len(self.labels)
        if point >= _SURROGATES.start:
            point += len(_SURROGATES)
        return chr(point)


def _index(ch: str) -> int:
    point = ord(ch)
    return point - len(_SURROGATES) if point >= _SURROGATES.stop else point
