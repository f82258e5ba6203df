"""Concurrent groups after the alignment: identical partners, real reorders.

The alignment runs on each side's canonical order (`order.Side.canon`) and hands back execution
positions in the candidate's execution order. Inside each pair of concurrent groups (a candidate
group whose steps pair with one baseline group):

- same-name partners are re-chosen so that identical calls pair with each other (a fan-out
  issued in another order pairs call by call, not as a run of argument changes); a partner
  the alignment chose that is already identical stays (equal-named wrappers were paired by
  what they wrap);
- a pair is a **reorder** only when the relative order of the group's pairs differs between
  the sides: the pairs outside a longest increasing subsequence of baseline positions (taken in
  candidate order). Inserting or deleting a call inside a group moves nothing.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import islice
from operator import lt

from agentdiff.diff.align import Pair
from agentdiff.diff.lis import increasing_run
from agentdiff.diff.order import Side

__all__ = ["reorders"]


def reorders(pairs: list[Pair], baseline: Side, candidate: Side) -> set[int]:
    """Indexes of the pairs that moved inside their concurrent group (re-partnering first)."""
    b_group, c_group = baseline.group, candidate.group
    buckets: defaultdict[tuple[int, int], list[int]] = defaultdict(list)
    for i, (b, c) in enumerate(pairs):
        if b is not None and c is not None and c_group[c] >= 0 and b_group[b] >= 0:
            buckets[c_group[c], b_group[b]].append(i)
    moved: set[int] = set()
    for members in buckets.values():
        if len(members) > 1:
            _repartner(pairs, members, baseline, candidate)
            moved.update(_out_of_order(pairs, members))
    return moved


def _repartner(pairs: list[Pair], members: list[int], baseline: Side, candidate: Side) -> None:
    """Among same-name pairs of one group pair, identical calls partner each other."""
    c_base = candidate.base
    bases = [c_base[pairs[i][1] or 0] for i in members]
    if len(set(bases)) == len(bases):  # no two of one name (most groups): nothing to re-choose
        return
    by_base: defaultdict[int, list[int]] = defaultdict(list)
    for i, base in zip(members, bases, strict=True):
        by_base[base].append(i)
    b_exact, c_exact = baseline.exact, candidate.exact
    for same in by_base.values():
        if len(same) == 1:
            continue
        free = sorted(pairs[i][0] or 0 for i in same)
        chosen: dict[int, int] = {}
        for i in same:  # an identical partner the alignment chose stays (it read the subtrees)
            b, c = pairs[i]
            if b is not None and c is not None and b_exact[b] == c_exact[c]:
                chosen[i] = b
                free.remove(b)
        for i in (i for i in same if i not in chosen):
            want = c_exact[pairs[i][1] or 0]
            twin = next((b for b in free if b_exact[b] == want), None)
            if twin is not None:
                chosen[i] = twin
                free.remove(twin)
        rest = iter(free)
        for i in same:
            pairs[i] = (chosen[i] if i in chosen else next(rest), pairs[i][1])


def _out_of_order(pairs: list[Pair], members: list[int]) -> list[int]:
    """The members outside a longest increasing run of baseline positions (candidate order).

    `members` are in candidate order already: they were collected in the order of the pairs,
    which the alignment hands out in the candidate's execution order (and re-partnering moves
    baseline positions only), so they need no sort by candidate position.
    """
    positions = [pairs[i][0] or 0 for i in members]
    if all(map(lt, positions, islice(positions, 1, None))):  # in order: nothing moved
        return []
    keep = increasing_run(positions)
    return [i for k, i in enumerate(members) if k not in keep]
