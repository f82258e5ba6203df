"""Tool loops, retries and retry storms, found in linear time.

Only tool calls count (LLM, routing and thought steps in between never break a run). Each call is
keyed by its name and normalized arguments.

- The same call 3+ times in a row is a **loop**; when every call but the last failed it is a
  **retry storm** once 3+ calls failed, and a plain **retry** (not a loop) with 1–2 failures.
- A window of 2–5 calls repeated 3+ times in a row with identical inputs is a loop too. Its
  identity does not depend on where the cycle starts: `(search, open)×3` and `(open, search)×3`
  are the same loop (keyed by the smallest rotation of the window).

A call with status `error` or `retry` is a failed attempt.

A candidate loop is `new` unless the baseline has the same loop, of the same kind, with at least
as many repetitions: a retry storm is not known from a baseline that called the same tool as
often and had it succeed each time (nor a plain loop from a baseline's retry storm).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import compress, count, islice, repeat
from operator import eq, gt
from typing import TYPE_CHECKING, Protocol

from agentdiff.models.compact import shared_store
from agentdiff.models.report import LoopFinding
from agentdiff.models.trace import FAILED, StepStatus

if TYPE_CHECKING:
    from agentdiff.diff.order import Side

__all__ = ["MIN_REPETITIONS", "Call", "Loop", "find_loops", "label_loops", "side_loops"]

MIN_REPETITIONS = 3
MAX_WINDOW = 5


@dataclass(frozen=True)
class Loop:
    """A loop found in one sequence of tool calls."""

    key: tuple[str, ...]
    names: list[str]
    repetitions: int
    step_ids: list[str]
    kind: str


class Call(Protocol):
    """What loop detection reads of a tool call: a `TraceStep` or its `StepRef`."""

    @property
    def step_id(self) -> str:
        """The step's id."""

    @property
    def name(self) -> str:
        """The tool's name."""

    @property
    def status(self) -> StepStatus:
        """How the call ended."""


def find_loops(calls: Sequence[Call], keys: list[str]) -> list[Loop]:
    """Single-call runs first, then windows of 2..5 calls over the positions not yet covered.

    What cannot find anything is skipped (most small traces have no loop): with no key
    repeated there is no run and no window, and a window of `w` calls needs `3·w` calls.
    """
    repeated = _repeated(keys)
    if repeated == []:
        return []
    covered = [False] * len(calls)
    loops = _single_runs(calls, keys, covered, repeated)
    for window in range(2, min(MAX_WINDOW, len(keys) // MIN_REPETITIONS) + 1):
        loops.extend(_windows(calls, keys, covered, window, repeated))
    return loops


def _repeated(keys: list[str]) -> list[int] | None:
    """The positions whose key occurs more than once, in order; None when that is over a third.

    Only such a position can start a run or a window (its key recurs 1 to `MAX_WINDOW` calls
    later). When few keys recur (the usual case), testing those positions for each distance
    costs less than comparing every key with the one `distance` later, five times over. No
    position when no key recurs (then there is no loop).
    """
    counts = Counter(keys)
    if len(counts) == len(keys):
        return []
    repeated = list(compress(count(), map(gt, map(counts.__getitem__, keys), repeat(1))))
    return repeated if len(repeated) * 3 <= len(keys) else None


def _matches(keys: list[str], distance: int, repeated: list[int] | None) -> Iterable[int]:
    """The positions whose key equals the key `distance` later, in order (see `_repeated`)."""
    if repeated is None:
        return compress(count(), map(eq, keys, islice(keys, distance, None)))
    end = len(keys) - distance
    return [i for i in repeated if i < end and keys[i] == keys[i + distance]]


def _single_runs(
    calls: Sequence[Call], keys: list[str], covered: list[bool], repeated: list[int] | None
) -> list[Loop]:
    """Runs of 2+ equal keys (a lone call is never a loop nor a retry)."""
    loops = []
    end = 0
    for start in _matches(keys, 1, repeated):
        if start < end:
            continue  # inside the run already handled
        end = start + 2
        while end < len(keys) and keys[end] == keys[start]:
            end += 1
        run = calls[start:end]
        kind = _run_kind(run)
        if kind is not None:
            loops.append(
                Loop(
                    key=(keys[start],),
                    names=[run[0].name],
                    repetitions=len(run),
                    step_ids=[s.step_id for s in run],
                    kind=kind,
                )
            )
        covered[start:end] = [True] * (end - start)
    return loops


def _run_kind(run: Sequence[Call]) -> str | None:
    failures = sum(s.status in FAILED for s in run)
    if failures and failures >= len(run) - 1:
        return "retry_storm" if failures >= MIN_REPETITIONS else None
    return "loop" if len(run) >= MIN_REPETITIONS else None


def _windows(
    calls: Sequence[Call],
    keys: list[str],
    covered: list[bool],
    window: int,
    repeated: list[int] | None,
) -> list[Loop]:
    """Blocks of `window` calls repeated in a row; only where a key recurs `window` later."""
    loops = []
    n = len(keys)
    resume = 0
    for i in _matches(keys, window, repeated):
        if i < resume or covered[i]:
            continue
        matched = 0
        while i + window + matched < n and keys[i + matched] == keys[i + window + matched]:
            matched += 1
        repetitions = (matched + window) // window
        block = keys[i : i + window]
        if repetitions >= MIN_REPETITIONS and len(set(block)) > 1:
            length = repetitions * window
            loops.append(
                Loop(
                    key=_rotation(block),
                    names=[c.name for c in calls[i : i + window]],
                    repetitions=repetitions,
                    step_ids=[c.step_id for c in calls[i : i + length]],
                    kind="loop",
                )
            )
            covered[i : i + length] = [True] * length
            resume = i + length
    return loops


def _rotation(block: list[str]) -> tuple[str, ...]:
    """The smallest rotation of `block`: one key for a cycle whichever call it starts at."""
    return min(tuple(block[i:] + block[:i]) for i in range(len(block)))


def side_loops(side: Side) -> list[Loop]:
    """The loops of a prepared side's tool calls, found once and kept on the side; read-only.

    A run of an N-vs-M scenario is profiled and compared in several pairs.
    """
    if side.loops is None:
        positions = _one_of_each_fan_out(side, sorted(side.call))
        calls = list(map(side.refs.__getitem__, positions))
        side.loops = find_loops(calls, list(map(side.call.__getitem__, positions)))
    return side.loops


def _one_of_each_fan_out(side: Side, positions: list[int]) -> list[int]:
    """The tool calls but those repeating the call before them in the same turn.

    Identical calls issued together (a fan-out of one call) ran at once, not one after another:
    neither a loop nor a retry storm, whatever their count.
    """
    call, together = side.call, side.issued_together
    kept: list[int] = []
    for at in positions:
        if kept and call[kept[-1]] == call[at] and together(kept[-1], at):
            continue
        kept.append(at)
    return kept


def label_loops(candidate: list[Loop], baseline: list[Loop]) -> list[LoopFinding]:
    """Candidate loops as report findings, `new` unless the baseline has them as large.

    A loop is known by its calls and its kind: the baseline's loop of the same calls but of the
    other kind (retry storm or loop) is not this one.
    """
    known: dict[tuple[str, tuple[str, ...]], int] = {}
    for loop in baseline:
        key = loop.kind, loop.key
        known[key] = max(known.get(key, 0), loop.repetitions)
    return [_finding(loop, known.get((loop.kind, loop.key), 0)) for loop in candidate]


def _finding(loop: Loop, known: int) -> LoopFinding:
    """The `LoopFinding` of a candidate loop the baseline has `known` times, unvalidated.

    Every value is what validation would keep (names and step ids are validated steps'
    strings, copied: a side's loops serve every pair it is in), without a validation per
    loop (see `gate._violation`).
    """
    held = {
        "names": list(loop.names),
        "repetitions": loop.repetitions,
        "step_ids": list(loop.step_ids),
        "new": known < loop.repetitions,
        "baseline_repetitions": known,
        "kind": "retry_storm" if loop.kind == "retry_storm" else "loop",
    }
    finding: LoopFinding = _FINDINGS.adopt(held, _GIVEN)
    return finding


_FINDINGS, _GIVEN = shared_store(LoopFinding), set(LoopFinding.model_fields)
"""Every field given: one fields-set shared by all (frozen records never change theirs)."""
