"""Loop detection tests only the positions whose key recurs; the same loops as testing all.

`loops._repeated` picks the positions whose call key occurs more than once (only they can
start a run or a window) when they are few; with it forced off (`None`), every position is
compared with the one `distance` later. Both must find the same loops, on the real captured
pairs and on generated call sequences full of repeats, runs, windows and failures.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentdiff import load_trace
from agentdiff.diff import loops
from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.order import prepare
from agentdiff.diff.signatures import Signer
from agentdiff.models.trace import StepStatus
from tests.builds import pure_only
from tests.realdata import real_pairs


@dataclass(frozen=True)
class _Call:
    step_id: str
    name: str
    status: StepStatus


def _both(calls: list[_Call], keys: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    found = loops.find_loops(calls, keys)
    with monkeypatch.context() as patch:
        patch.setattr(loops, "_repeated", lambda _keys: None)
        assert loops.find_loops(calls, keys) == found


@pytest.mark.parametrize("pair", real_pairs(), ids=lambda p: p.id)
def test_same_loops_on_real_pairs(pair, monkeypatch):
    for path in (pair.baseline, pair.candidate):
        side = prepare(load_trace(path), Signer(Normalizer(), strict=False))
        positions = sorted(side.call)
        calls = [side.refs[i] for i in positions]
        _both(calls, [side.call[i] for i in positions], monkeypatch)


_KEYS = st.lists(st.sampled_from("abcdefgh"), max_size=60)
_STATUSES = st.sampled_from([StepStatus.SUCCESS, StepStatus.ERROR, StepStatus.RETRY])


@settings(max_examples=400, deadline=None)
@given(_KEYS, st.data())
def test_same_loops_on_generated_calls(letters, data):
    # repeated blocks make windows and runs; a long tail of distinct keys makes few repeats
    block = data.draw(st.integers(1, 5))
    times = data.draw(st.integers(0, 4))
    keys = (
        letters[:block] * times + letters + [f"u{i}" for i in range(data.draw(st.integers(0, 80)))]
    )
    statuses = data.draw(st.lists(_STATUSES, min_size=len(keys), max_size=len(keys)))
    calls = [
        _Call(f"s{i}", key, status)
        for i, (key, status) in enumerate(zip(keys, statuses, strict=True))
    ]
    with pytest.MonkeyPatch.context() as patch:
        _both(calls, keys, patch)


def _every_window(calls: list[_Call], keys: list[str]) -> list[loops.Loop]:
    """`find_loops` as it was: every run and every window size tried, whatever the calls."""
    covered = [False] * len(calls)
    repeated = loops._repeated(keys)
    found = loops._single_runs(calls, keys, covered, repeated)
    for window in range(2, loops.MAX_WINDOW + 1):
        found.extend(loops._windows(calls, keys, covered, window, repeated))
    return found


@settings(max_examples=400, deadline=None)
@given(_KEYS, st.data())
def test_skipping_what_cannot_loop_finds_the_same_loops(letters, data):
    block = data.draw(st.integers(1, 5))
    keys = letters[:block] * data.draw(st.integers(0, 4)) + letters
    if data.draw(st.booleans()):
        keys = list(dict.fromkeys(keys))  # no key repeated
    calls = [_Call(f"s{i}", key, StepStatus.SUCCESS) for i, key in enumerate(keys)]
    assert loops.find_loops(calls, keys) == _every_window(calls, keys)


@pure_only
def test_no_repeated_key_and_too_few_calls_skip_the_scans(monkeypatch):
    tried: list[int] = []
    real = loops._windows

    def windows(*args: object) -> list[loops.Loop]:
        tried.append(args[3])  # type: ignore[arg-type]
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(loops, "_windows", windows)
    unique = [f"k{i}" for i in range(20)]
    assert loops.find_loops([_Call(k, k, StepStatus.SUCCESS) for k in unique], unique) == []
    assert tried == []  # no key repeated: nothing scanned
    keys = ["a", "b"] * 5  # 10 calls: room for windows of 2 and 3 only
    found = loops.find_loops(
        [_Call(f"s{i}", k, StepStatus.SUCCESS) for i, k in enumerate(keys)], keys
    )
    assert [loop.repetitions for loop in found] == [5]
    assert tried == [2, 3]
