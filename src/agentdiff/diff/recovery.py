"""Errors, retries and recovery: what became of each failed attempt of the candidate.

A step with status `error` or `retry` is a **failed attempt**. Its **later attempt** is the next
step of the same type and name (for a tool call: the next call of the same tool, whatever its
arguments). Per failed candidate step:

- **outcome** — `retried_succeeded` (the later attempt did not fail), `retried_still_failing`
  (it failed too) or `gave_up` (no later attempt);
- **back on the baseline path** — separately, how many candidate steps from the error up to the
  next step on the baseline's path (0 when the error itself is on it), or never.

`Summary.retries` counts the failed attempts that have a later attempt, so the candidate's
count equals the number of its recovery entries that were retried.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import compress, count
from operator import itemgetter

from agentdiff.diff.align import Pair
from agentdiff.diff.order import Side
from agentdiff.models.report import Op, Recovery
from agentdiff.models.trace import FAILED

__all__ = ["FEW_FAILURES", "later_attempts", "recoveries"]


def later_attempts(side: Side) -> dict[int, int | None]:
    """Position of each failed step → position of its later attempt (None: none)."""
    if len(side.failed) <= FEW_FAILURES:
        return _scanned(side)
    return _walked(side)


FEW_FAILURES = 16
"""Up to this many failed steps, each one's later attempt is found by its own forward scan."""


def _scanned(side: Side) -> dict[int, int | None]:
    """`later_attempts` of a side with few failed steps (the usual case).

    Each one's later attempt is found by `list.index` from the step on (a C-level scan), not by
    a Python step per position from the first failure on; at most `FEW_FAILURES` scans, each
    at most the side's length. Same mapping, in the same order, as `_walked`.
    """
    base = side.base
    return {i: _next_equal(base, i) for i in reversed(side.failed)}


def _next_equal(values: list[int], i: int) -> int | None:
    """The first position after `i` whose value equals `values[i]` (None: none)."""
    try:
        return values.index(values[i], i + 1)
    except ValueError:
        return None


def _walked(side: Side) -> dict[int, int | None]:
    """`later_attempts` in one backward walk from the end to the first failed step."""
    refs, base, failed = side.refs, side.base, side.failed
    if not failed:
        return {}
    out: dict[int, int | None] = {}
    upcoming: dict[int, int] = {}
    wanted = set(failed)
    for i in range(len(refs) - 1, failed[0] - 1, -1):
        if i in wanted:
            out[i] = upcoming.get(base[i])
        upcoming[base[i]] = i
    return out


def recoveries(
    pairs: list[Pair], ops: list[Op], candidate: Side, attempts: Mapping[int, int | None]
) -> list[Recovery]:
    """One `Recovery` per failed candidate step, in candidate order (`pairs` in that order).

    Only the failed steps' entries are visited: their rows are picked at C speed, and each
    one's way back to the baseline path is a forward scan that starts where the previous
    one's ended (one pass in all). A Python step per entry (hashing each entry's `Op`, whose
    hash is Python code) was most of this on a large pair.
    """
    if not attempts:
        return []
    out = []
    refs = candidate.refs
    rows = compress(count(), map(attempts.__contains__, map(_CANDIDATE, pairs)))
    on_path = -1  # the first on-path entry at or after the last visited row (-1: none yet)
    for i in rows:
        position = pairs[i][1]
        if position is None:  # never: None is no key of `attempts` (for the type checker)
            continue
        if on_path < i:
            on_path = _on_path_from(ops, i)
        target = None if on_path == len(ops) else on_path
        steps = None
        if target is not None:
            steps = sum(1 for p in pairs[i:target] if p[1] is not None)
        later = attempts[position]
        if later is None:
            outcome = "gave_up"
        elif refs[later].status in FAILED:
            outcome = "retried_still_failing"
        else:
            outcome = "retried_succeeded"
        out.append(
            Recovery(
                error_step_id=refs[position].step_id,
                outcome=outcome,
                retry_step_id=None if later is None else refs[later].step_id,
                steps_to_recover=steps,
                recovered=target is not None,
                retry=later is not None,
            )
        )
    return out


_CANDIDATE = itemgetter(1)


def _on_path_from(ops: list[Op], i: int) -> int:
    """The first entry at or after `i` on the baseline path (`len(ops)`: none).

    On-path entries (`ON_PATH`: match, reorder, change) pair two steps; only inserts and
    deletes are off it, told apart by identity (an `Op`'s hash is Python code).
    """
    end = len(ops)
    while i < end and (ops[i] is Op.INSERT or ops[i] is Op.DELETE):
        i += 1
    return i
