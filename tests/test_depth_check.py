"""`limits.exceeds_depth` reuses its lists: the same answers as wrapping anew on every call.

The check wraps the values in the lists orjson's depth leaves above the limit. Those lists are
made once per thread and limit and the values put in the innermost for a check; each answer must
be the one a fresh wrapping gives, at every depth around the limit, in any thread, and within a
check of the same thread (a value written with `default=str` that checks a value of its own).
"""

from __future__ import annotations

import threading
from typing import Any

import orjson
import pytest

from agentdiff import limits
from agentdiff.limits import MAX_DEPTH, exceeds_depth


def _nested(levels: int) -> Any:
    """`levels` levels deep, dicts and lists taking turns."""
    value: Any = 1
    for i in range(levels):
        value = {"a": value} if i % 2 else [value]
    return value


def _fresh(values: list[Any], limit: int) -> bool:
    """The check as it was: a new wrapping each call."""
    wrapped: Any = values
    for _ in range(limits._ORJSON_DEPTH - limit - 1):
        wrapped = [wrapped]
    try:
        orjson.dumps(wrapped, default=str)
    except orjson.JSONEncodeError:
        return True
    return False


@pytest.mark.parametrize("limit", [MAX_DEPTH, MAX_DEPTH + 1, 64, 1, 252, 253, 254, 300])
def test_the_same_answers_as_a_fresh_wrapping(limit):
    for levels in sorted({0, 1, 2, limit - 2, limit - 1, limit, limit + 1, limit + 2}):
        if 0 <= levels < limits._ORJSON_DEPTH + 4:
            for values in ([_nested(levels)], [({"x": 1}, _nested(levels), None)], []):
                assert exceeds_depth(values, limit) == _fresh(values, limit), (limit, levels)
    assert exceeds_depth([{1: "a key orjson does not write"}], limit)


def test_the_lists_are_made_once_and_left_empty():
    first = limits._wrapping(MAX_DEPTH + 1)
    assert first is not None
    exceeds_depth([_nested(MAX_DEPTH + 5)], MAX_DEPTH + 1)
    assert limits._wrapping(MAX_DEPTH + 1) is first
    assert first[1] == []  # the values are not kept


def test_a_check_within_a_check_gets_its_own_lists():
    deep, shallow = _nested(MAX_DEPTH + 3), _nested(3)
    seen: list[bool] = []

    class Checks:
        def __str__(self) -> str:
            seen.append(exceeds_depth([deep], MAX_DEPTH))
            seen.append(exceeds_depth([shallow], MAX_DEPTH))
            return "checked"

    assert not exceeds_depth([{"v": Checks()}], MAX_DEPTH)
    assert seen == [True, False]
    assert exceeds_depth([deep], MAX_DEPTH)


def test_threads_check_their_own_values():
    deep, shallow = _nested(MAX_DEPTH + 3), _nested(3)
    wrong: list[tuple[bool, bool]] = []

    def check(value: Any, expected: bool) -> None:
        for _ in range(300):
            got = exceeds_depth([value], MAX_DEPTH)
            if got is not expected:
                wrong.append((got, expected))

    threads = [threading.Thread(target=check, args=(v, v is deep)) for v in (deep, shallow) * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
