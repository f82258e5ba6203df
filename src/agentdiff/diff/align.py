"""Alignment: two step sequences → an edit script over interned signatures.

A signature is the step type and name (plus the sorted input keys with strict tool signatures),
plus whether the step failed, interned to an integer. The edit script comes from rapidfuzz's
bit-parallel Levenshtein with a `score_hint` (near-linear for similar runs; never a Python
O(N·M) table, never difflib). A `replace` block pairs steps 1:1 when it has as many steps on
both sides with the same type and name each (a failure where the baseline succeeded, say);
otherwise it is split into deletes and inserts.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

from agentdiff.models.trace import StepStatus, TraceStep

__all__ = ["Pair", "Signer", "align"]


@dataclass(frozen=True, slots=True)
class Pair:
    """One entry of the edit script: indexes into the baseline and candidate sequences."""

    baseline: int | None
    candidate: int | None


class Signer:
    """Interns step signatures to small integers, shared by both sides of one comparison."""

    def __init__(self, *, strict: bool) -> None:
        self._strict = strict
        self._ids: dict[tuple[object, ...], int] = {}

    def base(self, step: TraceStep) -> tuple[object, ...]:
        """Type and name (and, when strict, the sorted input keys)."""
        if self._strict:
            return (step.step_type, step.name, tuple(sorted(step.input_payload)))
        return (step.step_type, step.name)

    def sign(self, steps: list[TraceStep]) -> list[int]:
        """The interned alignment signature of every step."""
        ids = self._ids
        out = []
        for step in steps:
            key = (*self.base(step), step.status is StepStatus.ERROR)
            out.append(ids.setdefault(key, len(ids)))
        return out


def align(baseline: list[TraceStep], candidate: list[TraceStep], signer: Signer) -> list[Pair]:
    """The edit script, in execution order; pairs have equal signatures or equal base ones."""
    b_sig, c_sig = signer.sign(baseline), signer.sign(candidate)
    hint = max(32, abs(len(b_sig) - len(c_sig)) * 2)
    pairs: list[Pair] = []
    for op in Levenshtein.opcodes(b_sig, c_sig, score_hint=hint):
        tag, b0, b1, c0, c1 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
        if tag == "equal":
            pairs.extend(Pair(b0 + k, c0 + k) for k in range(b1 - b0))
        elif tag == "delete":
            pairs.extend(Pair(b, None) for b in range(b0, b1))
        elif tag == "insert":
            pairs.extend(Pair(None, c) for c in range(c0, c1))
        else:
            pairs.extend(_replace(baseline, candidate, signer, (b0, b1), (c0, c1)))
    return pairs


def _replace(
    baseline: list[TraceStep],
    candidate: list[TraceStep],
    signer: Signer,
    b_range: tuple[int, int],
    c_range: tuple[int, int],
) -> Iterator[Pair]:
    bs, cs = range(*b_range), range(*c_range)
    if len(bs) == len(cs) and all(
        signer.base(baseline[b]) == signer.base(candidate[c]) for b, c in zip(bs, cs, strict=True)
    ):
        yield from (Pair(b, c) for b, c in zip(bs, cs, strict=True))
        return
    yield from (Pair(b, None) for b in bs)
    yield from (Pair(None, c) for c in cs)
