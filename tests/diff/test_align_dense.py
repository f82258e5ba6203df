"""Big boxes are aligned on renumbered keys (`align._dense`): the same pairs, found faster.

rapidfuzz looks keys below 256 up in a table and others in a hash map; interned keys are large
ints (negative for tool calls), so a big box is renumbered from its most frequent key first.
"""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Indel, Levenshtein

from agentdiff.diff import align as align_module

_KEYS = st.lists(st.sampled_from([-(10**12), -7, 3, 2**40, 255, 256, 10**6]), max_size=60)


@given(_KEYS, _KEYS)
def test_renumbering_keeps_every_equality(b, c):
    db, dc = align_module._dense(b, c)
    pairs = list(zip([*b, *c], [*db, *dc], strict=True))
    assert all((x == y) is (dx == dy) for x, dx in pairs for y, dy in pairs)
    both, dense = [*b, *c], [*db, *dc]
    assert sorted(set(dense)) == list(range(len(set(both))))


def test_the_most_frequent_keys_get_the_smallest_codes():
    b = [10**9] * 5 + [-3] * 2 + [77]
    db, dc = align_module._dense(b, [-3, 10**9])
    assert (db[0], db[5], db[7], dc) == (0, 1, 2, [1, 0])


@settings(max_examples=60)
@given(_KEYS, _KEYS, st.booleans())
def test_a_big_box_gets_the_same_edit_script_as_its_raw_keys(b, c, banded):
    """With the renumbering forced on every box, rapidfuzz's script and the LCS are unchanged."""
    with patch.object(align_module, "CHUNK_CELLS", 0):  # every box counts as big
        ops = align_module._opcodes(b, c, banded=banded)
        length = align_module.lcs_length(b, c)
    hint = max(64, abs(len(b) - len(c)) * 2)
    raw = Levenshtein.opcodes(b, c, score_hint=hint) if banded else Indel.opcodes(b, c)
    assert [tuple(op) for op in ops] == [tuple(op) for op in raw]
    assert length == (len(b) + len(c) - Indel.distance(b, c)) // 2
