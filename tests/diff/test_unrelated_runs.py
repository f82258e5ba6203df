"""Big boxes whose sides mostly differ are aligned on the shared steps only (no near-quadratic search)."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from agentdiff import compare
from agentdiff.diff import align as align_module
from agentdiff.models.report import Op

from .builders import step, trace

_keys = st.lists(st.integers(0, 40), max_size=60)


def _check_blocks(b: list[int], c: list[int], blocks: list[tuple[int, int, int]]) -> int:
    """The blocks form a common subsequence of b and c; their pair count."""
    b_next = c_next = 0
    for bs, cs, length in blocks:
        assert bs >= b_next and cs >= c_next and length > 0
        assert b[bs : bs + length] == c[cs : cs + length]
        b_next, c_next = bs + length, cs + length
    return sum(length for _, _, length in blocks)


@settings(max_examples=300, deadline=None)
@given(_keys, _keys)
def test_shared_keys_only_keeps_the_longest_common_subsequence(b, c):
    """Steps whose key the other side lacks are dropped, yet the pairs are an LCS of b and c."""
    with patch.object(align_module, "CHUNK_CELLS", 0):
        blocks = align_module._blocks(b, c, (0, len(b), 0, len(c)))
    assert _check_blocks(b, c, blocks) == align_module.lcs_length(b, c)


def _unrelated(prefix: str, n: int) -> list:
    """A root and n - 1 tool calls named by `prefix`, but for two `shared` ones (no anchors)."""
    steps = [step(0, "routing", "agent", prefix=prefix)]
    for i in range(1, n):
        name = "shared" if i in {500, n - 1} else f"{prefix}_{i}"
        steps.append(step(i, "tool_call", name, 0, prefix=prefix, input_payload={prefix: i}))
    return steps


def test_two_unrelated_big_runs_are_aligned_on_their_shared_steps_only():
    """1,100 steps a side (over `CHUNK_CELLS`), three shared: no rapidfuzz call gets the whole box.

    The old code recursed forever here: its only unique anchor (the root) was too near the start
    to cut at, so the box was chunked into itself.
    """
    n = 1100
    seen: list[int] = []
    indel = align_module.Indel.opcodes

    def spy(b, c, *args, **kwargs):
        seen.append(len(b) * len(c))
        return indel(b, c, *args, **kwargs)

    base, cand = trace(_unrelated("b", n), "b"), trace(_unrelated("c", n), "c")
    assert n * n > align_module.CHUNK_CELLS
    with patch.object(align_module.Indel, "opcodes", spy):
        report = compare(base, cand)
    assert seen and max(seen) <= align_module.CHUNK_CELLS
    paired = [
        (e.baseline.name, e.candidate.name)
        for e in report.alignment
        if e.baseline is not None and e.candidate is not None
    ]
    assert paired == [("agent", "agent"), ("shared", "shared"), ("shared", "shared")]
    assert sum(e.op is Op.INSERT for e in report.alignment) == n - 3
