"""`PendingCalls` answers exactly what scanning the unanswered calls in request order answers."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentdiff.adapters.otel.pending import PendingCalls


def _scan(pending: list[dict[str, Any]], call_id: str | None, name: str) -> dict[str, Any] | None:
    """The plain rule: the first call with that id, else the first with that name; removed."""
    matches = [c for c in pending if call_id and c["id"] == call_id]
    matches = matches or [c for c in pending if c["name"] == name]
    if not matches:
        return None
    pending.remove(matches[0])
    return matches[0]


_IDS = st.one_of(st.none(), st.sampled_from(["", "a", "b", "c"]), st.just(["odd"]))
_NAMES = st.one_of(st.sampled_from(["search", "fetch"]), st.none(), st.just({"odd": 1}))
_ADD = st.tuples(st.just("add"), _IDS, _NAMES)
_TAKE = st.tuples(
    st.just("take"),
    st.one_of(st.none(), st.sampled_from(["", "a", "b", "z"])),
    st.sampled_from(["search", "fetch", "x"]),
)


@given(st.lists(st.one_of(_ADD, _TAKE), max_size=40))
def test_take_matches_the_scan_of_unanswered_calls(steps: list[tuple[str, Any, Any]]) -> None:
    pending = PendingCalls()
    reference: list[dict[str, Any]] = []
    for n, (action, call_id, name) in enumerate(steps):
        if action == "add":
            call = {"id": call_id, "name": name, "turn": n}
            pending.add(call)
            reference.append(call)
        else:
            assert pending.take(call_id, name) is _scan(reference, call_id, name)


def test_an_unanswered_call_does_not_block_later_ones() -> None:
    pending = PendingCalls()
    for turn in range(3):
        pending.add({"id": f"{turn}a", "name": "search", "turn": turn})
        pending.add({"id": f"{turn}b", "name": "fetch", "turn": turn})
    assert pending.take("1a", "search") == {"id": "1a", "name": "search", "turn": 1}
    assert pending.take(None, "search") == {"id": "0a", "name": "search", "turn": 0}
    assert pending.take("1a", "search") == {"id": "2a", "name": "search", "turn": 2}
    assert pending.take(None, "search") is None
    assert pending.take("2b", "other") == {"id": "2b", "name": "fetch", "turn": 2}
