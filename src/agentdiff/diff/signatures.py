"""Per-step keys computed once per comparison: interned signatures and tool-call keys.

See `align` for what the exact and base signatures mean; `call` keys (name + normalized
arguments) also drive loop detection.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

import orjson

from agentdiff.diff.normalize import Normalizer
from agentdiff.models.trace import StepStatus, StepType, TraceStep

__all__ = ["Keys", "Signer"]


@dataclass
class Keys:
    """The keys of one side, index-aligned with its linearized steps."""

    exact: list[int] = field(default_factory=list)
    base: list[int] = field(default_factory=list)
    call: dict[int, str] = field(default_factory=dict)
    """Tool-call index → name and normalized arguments."""


class Signer:
    """Interns signatures to small integers, shared by both sides of one comparison."""

    def __init__(self, normalizer: Normalizer, *, strict: bool) -> None:
        self._normalizer = normalizer
        self._strict = strict
        self._ids: dict[Hashable, int] = {}

    def base(self, step: TraceStep) -> tuple[Hashable, ...]:
        """Type and name (and, when strict, the sorted input keys)."""
        if self._strict:
            return (step.step_type.value, step.name, tuple(sorted(step.input_payload)))
        return (step.step_type.value, step.name)  # str values: enum hashing is slow

    def call_key(self, step: TraceStep) -> str:
        """A tool call's name and normalized arguments, as one string."""
        args = self._normalizer.normalize(step.input_payload, ("input_payload",))
        dumped = orjson.dumps(args, option=orjson.OPT_SORT_KEYS, default=str).decode()
        return f"{step.name}\x00{dumped}"

    def keys(self, steps: list[TraceStep]) -> Keys:
        """Exact and base signatures of every step, and the key of every tool call."""
        ids, out = self._ids, Keys()
        for index, step in enumerate(steps):
            base = self.base(step)
            failed = step.status is StepStatus.ERROR
            if step.step_type is StepType.TOOL_CALL:
                out.call[index] = self.call_key(step)
                exact: Hashable = (base, failed, out.call[index])
            else:
                exact = (base, failed)
            out.exact.append(ids.setdefault(exact, len(ids)))
            out.base.append(ids.setdefault(base, len(ids)))
        return out
