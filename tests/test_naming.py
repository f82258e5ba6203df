"""`agentdiff.naming`: one rule for naming runs and scenarios apart."""

from __future__ import annotations

import pytest

from agentdiff.naming import distinct_names, number_repeats, trace_stem


def test_only_clashing_items_move_to_the_next_key() -> None:
    items = ["x/s1", "y/s1", "z/x/s1", "w/t"]
    keys = (
        lambda p: p.rsplit("/", 1)[-1],
        lambda p: p.split("/", 1)[-1],
        lambda p: p,
    )
    # `s1` clashes three ways; `x/s1` (z's) then clashes with `x/s1` and takes its last key
    assert distinct_names(items, keys) == ["x/s1", "y/s1", "z/x/s1", "t"]


def test_items_that_share_their_last_key_keep_it() -> None:
    assert distinct_names(["a", "a", "b"], (str.upper, str.lower)) == ["a", "a", "B"]
    with pytest.raises(ValueError, match="at least one key"):
        distinct_names(["a"], ())


def test_number_repeats_picks_a_name_not_in_use() -> None:
    assert number_repeats(["s", "s", "s (2)", "t"]) == ["s", "s (3)", "s (2)", "t"]
    assert number_repeats(["a", "b"]) == ["a", "b"]


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("r1.json", "r1"),
        ("r1.json.gz", "r1"),
        ("R1.JSON", "R1"),
        ("a.b.JSONL.Gz", "a.b"),
        ("x.ndjson", "x"),
        (".json", None),
        ("r1.gz", None),
        ("r1.txt", None),
    ],
)
def test_trace_stem(name: str, stem: str | None) -> None:
    assert trace_stem(name) == stem
