"""Errors, retries and recovery: what became of each failed attempt of the candidate.

A step with status `error` or `retry` is a **failed attempt**. Its **later attempt** is

- for a tool call: the run's next action, when it calls the same tool — with the same or with
  other (normalized) arguments: the model tried that call again, perhaps corrected (LLM calls
  and thoughts in between are the model deciding, and calls issued in the same concurrent turn
  are not attempts after it) — else the next call of the same tool with the same arguments,
  however much later. A call of the same tool with other arguments after the run did other
  things (answered, called another tool) is another call, not a retry of this one: a failed
  fetch of one URL, an answer, then a fetch of another URL gave up. The same call issued in the
  same concurrent turn, or by the same model message (`turn_id`: also when each call runs in a
  wrapper of its own, as in a LangGraph fan-out), is a twin issued with it, never its later
  attempt: that one is looked for after the turn's (and the message's) last step;
- for another step: the next step of the same type and name.

Per failed candidate step:

- **outcome** — `retried_succeeded` (the later attempt did not fail), `retried_still_failing`
  (it failed too) or `gave_up` (no later attempt); `other_arguments` says the later attempt
  called the tool with other arguments ("retried with other arguments → succeeded");
- **back on the baseline path** — separately, how many of the candidate's steps after the
  error were off the baseline's path (the error itself too, when it is off it) before the run
  was on it again: 0 when the error's next step is on it (the run stayed on it); never (None)
  when no later step is, also when the run ended with the error.

`Summary.retries` counts the failed attempts that have a later attempt, so the candidate's
count equals the number of its recovery entries that were retried. A retry storm
(`loops`) is 3+ failed attempts of one call with the same arguments in a row: each but the
last was retried with the same arguments.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from itertools import compress, count
from operator import itemgetter
from typing import Any

from agentdiff.diff.align import Pair
from agentdiff.diff.order import Side
from agentdiff.models.report import Op, Recovery
from agentdiff.models.trace import FAILED, StepType

__all__ = ["FEW_FAILURES", "later_attempts", "recoveries"]


def later_attempts(side: Side) -> dict[int, int | None]:
    """Position of each failed step → position of its later attempt (None: none)."""
    same = _scanned(side) if len(side.failed) <= FEW_FAILURES else _walked(side)
    _past_twins(side, same)
    calls, base = side.call, side.base
    for i, later in same.items():
        if i in calls:
            after = _next_action(side, i)
            if after is not None and base[after] == base[i] and (later is None or after < later):
                same[i] = after  # the same tool, called right after: retried (arguments aside)
    return same


def _past_twins(side: Side, same: dict[int, int | None]) -> None:
    """Move each later attempt issued together with its failed step past that turn.

    The steps of each key looked for are listed once (picked at C speed), and each move is a
    bisection in its key's list, so many twins cost no rescan of the run per failed step.
    """
    group, turn, exact, succeeded = side.group, side.turn, side.exact, side.succeeded
    together = side.issued_together
    twinned = [i for i, later in same.items() if later is not None and together(i, later)]
    if not twinned:
        return
    ends = _turn_ends(side)
    keys = {*map(exact.__getitem__, twinned), *map(succeeded.__getitem__, twinned)}
    where: dict[int | None, list[int]] = {}
    for at in compress(count(), map(keys.__contains__, exact)):
        where.setdefault(exact[at], []).append(at)
    for i in twinned:
        end = max(ends.get((0, group[i]), i), ends.get((1, turn[i]), i))
        found = (_first_after(where.get(key, []), end) for key in (exact[i], succeeded[i]))
        same[i] = min((at for at in found if at is not None), default=None)


def _turn_ends(side: Side) -> dict[tuple[int, Any], int]:
    """The last position of each concurrent turn `(0, group)` and model message `(1, turn_id)`."""
    ends: dict[tuple[int, Any], int] = {(0, g): at for at, g in enumerate(side.group) if g >= 0}
    ends.update({(1, t): at for at, t in enumerate(side.turn) if t is not None})
    return ends


def _first_after(positions: list[int], end: int) -> int | None:
    """The first of the ascending `positions` past `end` (None: none)."""
    at = bisect_right(positions, end)
    return positions[at] if at < len(positions) else None


FEW_FAILURES = 16
"""Up to this many failed steps, each one's later attempt is found by its own forward scan."""


def _scanned(side: Side) -> dict[int, int | None]:
    """Each failed step's next same step (same arguments; failed or not), with few failures.

    Each one is found by `list.index` from the step on (a C-level scan per key, the second
    one only up to where the first found one), not by a Python step per position from the
    first failure on; at most `FEW_FAILURES` steps. Same mapping, in the same order, as
    `_walked`.
    """
    exact, succeeded, end = side.exact, side.succeeded, len(side.exact)
    out: dict[int, int | None] = {}
    for i in reversed(side.failed):
        found = _next_equal(exact, exact[i], i, end)
        ok = succeeded[i]
        if ok is not None:
            sooner = _next_equal(exact, ok, i, end if found is None else found)
            found = found if sooner is None else sooner
        out[i] = found
    return out


def _next_equal(values: list[int], value: int, i: int, end: int) -> int | None:
    """The first position in (i, end) holding `value` (None: none)."""
    try:
        return values.index(value, i + 1, end)
    except ValueError:
        return None


def _walked(side: Side) -> dict[int, int | None]:
    """`_scanned`'s mapping in one backward walk over the steps holding a key it looks for.

    Those steps are picked at C speed (a set lookup per step); the walk itself keeps, per key,
    the nearest position after the one it is at.
    """
    exact, failed, succeeded = side.exact, side.failed, side.succeeded
    keys = {*map(exact.__getitem__, failed), *succeeded.values()}
    out: dict[int, int | None] = {}
    upcoming: dict[int, int] = {}
    wanted = set(failed)
    for i in reversed(list(compress(count(), map(keys.__contains__, exact)))):
        if i in wanted:
            ok = succeeded[i]
            found = upcoming.get(exact[i]), None if ok is None else upcoming.get(ok)
            out[i] = min((at for at in found if at is not None), default=None)
        upcoming[exact[i]] = i
    return out


def _next_action(side: Side, i: int) -> int | None:
    """The first step after `i` that acts: no LLM call or thought, not in `i`'s concurrent turn."""
    refs, group = side.refs, side.group
    turn = group[i]
    for j in range(i + 1, len(refs)):
        kind = refs[j].step_type
        if kind is not _LLM and kind is not _THOUGHT and (turn < 0 or group[j] != turn):
            return j
    return None


_LLM, _THOUGHT = StepType.LLM_CALL, StepType.THOUGHT
"""Steps of the model deciding what to do next (between an attempt and its retry); compared
by identity (an enum's hash runs Python code)."""


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
    refs, calls = candidate.refs, candidate.call
    rows = compress(count(), map(attempts.__contains__, map(_CANDIDATE, pairs)))
    on_path = -1  # the first on-path entry after the last visited row (-1: none yet)
    for i in rows:
        position = pairs[i][1]
        if position is None:  # never: None is no key of `attempts` (for the type checker)
            continue
        if on_path <= i:
            on_path = _on_path_from(ops, i + 1)
        target = None if on_path == len(ops) else on_path
        # the candidate's steps off the path (inserts) from the error up to the way back
        steps = None if target is None else ops[i:target].count(Op.INSERT)
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
                other_arguments=later is not None and calls.get(later) != calls.get(position),
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
