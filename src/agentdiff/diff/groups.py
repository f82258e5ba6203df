"""Concurrent groups after the alignment: identical partners, real reorders.

The alignment runs on each side's canonical order (`order.Side.canon`) and hands back execution
positions in the candidate's execution order. Inside each pair of concurrent groups (a candidate
group whose steps pair with one baseline group):

- same-name partners are re-chosen so that as many calls as possible pair with an identical
  one (a fan-out issued in another order pairs call by call, not as a run of argument
  changes). A step the alignment left unpaired in either group may take the place of a
  paired one of its name when it has nothing under it, so an inserted identical twin is
  found too; how many steps of each name pair stays what the alignment found. A partner the
  alignment chose that is already identical stays (equal-named wrappers were paired by what
  they wrap), and a paired step with steps under it stays paired;
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
    buckets, spare = _buckets(pairs, baseline.group, candidate.group)
    moved: set[int] = set()
    partners = _Partners(pairs, baseline, candidate)
    for (c_at, b_at), members in buckets.items():
        unpaired = (0, b_at) in spare or (1, c_at) in spare
        if len(members) == 1 and not unpaired:
            continue
        if _identical(pairs, members, baseline.exact, candidate.exact):  # most groups
            if len(members) > 1:
                moved.update(_out_of_order(pairs, members))
            continue
        repaired = partners.rechoose(members, (spare.get((0, b_at), []), spare.get((1, c_at), [])))
        if len(repaired) > 1:
            moved.update(_out_of_order(pairs, repaired))
    return moved


def _buckets(
    pairs: list[Pair], b_group: list[int], c_group: list[int]
) -> tuple[dict[tuple[int, int], list[int]], dict[tuple[int, int], list[int]]]:
    """The entries of each pair of groups' pairs, and of each group's unpaired steps.

    Pairs: (candidate group, baseline group) → entries. Unpaired: (side, group) → entries, the
    side 0 for the baseline, 1 for the candidate.
    """
    buckets: defaultdict[tuple[int, int], list[int]] = defaultdict(list)
    spare: dict[tuple[int, int], list[int]] = {}
    for i, (b, c) in enumerate(pairs):
        if b is None:
            if c is not None and c_group[c] >= 0:
                spare.setdefault((1, c_group[c]), []).append(i)
        elif c is None:
            if b_group[b] >= 0:
                spare.setdefault((0, b_group[b]), []).append(i)
        elif c_group[c] >= 0 and b_group[b] >= 0:
            buckets[c_group[c], b_group[b]].append(i)
    return buckets, spare


def _identical(
    pairs: list[Pair], members: list[int], b_exact: list[int], c_exact: list[int]
) -> bool:
    """Every pair of `members` pairs identical steps (then there is nothing to re-choose)."""
    for i in members:
        b, c = pairs[i]
        if b_exact[b or 0] != c_exact[c or 0]:
            return False
    return True


class _Partners:
    """Re-chooses the same-name partners of pairs of concurrent groups (in `pairs`)."""

    def __init__(self, pairs: list[Pair], baseline: Side, candidate: Side) -> None:
        self._pairs = pairs
        self._sides = baseline, candidate

    def rechoose(self, members: list[int], unpaired: tuple[list[int], list[int]]) -> list[int]:
        """Re-partner the pairs `members`; the groups' pairs afterwards, in candidate order.

        `unpaired` holds the entries of the baseline and the candidate group's unpaired steps.
        """
        pairs = self._pairs
        b_exact, c_exact = self._sides[0].exact, self._sides[1].exact
        odd = [i for i in members if b_exact[pairs[i][0] or 0] != c_exact[pairs[i][1] or 0]]
        c_base = self._sides[1].base
        by_base: defaultdict[int, list[int]] = defaultdict(list)
        for i in odd:
            by_base[c_base[pairs[i][1] or 0]].append(i)
        spares = self._spares(0, unpaired[0]), self._spares(1, unpaired[1])
        taken: list[int] = []
        for base, slots in by_base.items():
            b_spare, c_spare = spares[0].get(base, []), spares[1].get(base, [])
            if len(slots) > 1 or b_spare or c_spare:
                taken.extend(_Name(pairs, self._sides, slots, (b_spare, c_spare)).rechoose())
        if not taken:
            return members
        return sorted(i for i in {*members, *taken} if None not in pairs[i])

    def _spares(self, side: int, entries: list[int]) -> dict[int, list[int]]:
        """The entries still unpaired on `side` whose step has nothing under it, by base key."""
        pairs, held = self._pairs, self._sides[side]
        out: dict[int, list[int]] = {}
        for j in entries:
            at = pairs[j][side]
            if at is not None and pairs[j][1 - side] is None and not _has_kids(held, at):
                out.setdefault(held.base[at], []).append(j)
        return out


class _Name:
    """The partners of one name in one pair of groups: the most identical pairs, as many pairs.

    `slots` are the entries of the name's pairs that are not identical (`k` of them), `spare`
    the entries of the baseline's and the candidate's unpaired leaves of the name. Steps of
    each side: the slots' steps first, then the spares'; a step is a (entry, position) pair.
    """

    def __init__(
        self,
        pairs: list[Pair],
        sides: tuple[Side, Side],
        slots: list[int],
        spare: tuple[list[int], list[int]],
    ) -> None:
        self._pairs = pairs
        self._sides = sides
        self._k = len(slots)
        self._steps = [
            [(i, pairs[i][side] or 0) for i in [*slots, *spare[side]]] for side in (0, 1)
        ]
        self._inner = [
            [_has_kids(sides[side], at) for _, at in self._steps[side][: self._k]]
            for side in (0, 1)
        ]
        """Whether each slot step (of each side) has steps under it: it must stay paired."""

    def rechoose(self) -> list[int]:
        """Re-pair; the spare candidate entries that are now pairs."""
        matched = self._identical()
        final = [*matched, *self._fill(matched)]
        self._write(final)
        k = self._k
        return [i for i, _ in self._steps[1][k:] if self._pairs[i][0] is not None]

    def _identical(self) -> list[tuple[int, int]]:
        """Identical matches (indexes into each side's steps), at most `k`.

        Per exact key, paired steps are matched before spare ones (fewest steps displaced); a
        match that would displace a step with steps under it is dropped.
        """
        b_steps, c_steps = self._steps
        b_exact, c_exact = self._sides[0].exact, self._sides[1].exact
        free: defaultdict[int, list[int]] = defaultdict(list)
        for x in range(len(b_steps) - 1, -1, -1):  # reversed: `pop()` takes the first
            free[b_exact[b_steps[x][1]]].append(x)
        found = []
        for y, (_, at) in enumerate(c_steps):
            twins = free.get(c_exact[at])
            if twins:
                found.append((twins.pop(), y))
        k, inner = self._k, self._inner
        found.sort(key=lambda match: (match[0] >= k) + (match[1] >= k))  # stable: fewest spares
        matched = found[:k]
        # the slot steps with steps under them left unmatched must stay paired: room for them
        left = [sum(flags) for flags in inner]
        for match in matched:
            for side in (0, 1):
                if match[side] < k and inner[side][match[side]]:
                    left[side] -= 1
        while matched and max(left) > k - len(matched):
            match = matched.pop()
            for side in (0, 1):
                if match[side] < k and inner[side][match[side]]:
                    left[side] += 1
        return matched

    def _fill(self, matched: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The other pairs: slot steps left over (inner ones first), old partners kept."""
        room, k = self._k - len(matched), self._k
        rest = []
        for side in (0, 1):
            taken, flags = {match[side] for match in matched}, self._inner[side]
            left = [x for x in range(k) if x not in taken]
            left.sort(key=lambda x: not flags[x])
            rest.append(left[:room])
        b_rest, c_rest = rest
        kept = sorted(set(b_rest) & set(c_rest))  # slot x: its old pair, both ends kept
        b_new = [x for x in b_rest if x not in kept]
        c_new = [y for y in c_rest if y not in kept]
        return [*((x, x) for x in kept), *zip(b_new, c_new, strict=True)]

    def _write(self, final: list[tuple[int, int]]) -> None:
        """Put the pairs `final` into the entries; the steps left unpaired into the others."""
        pairs = self._pairs
        b_steps, c_steps = self._steps
        b_of = {y: b_steps[x][1] for x, y in final}
        for y, (entry, at) in enumerate(c_steps):
            pairs[entry] = (b_of.get(y), at)
        k, paired = self._k, {x for x, _ in final}
        freed = [b_steps[x][0] for x in range(k, len(b_steps)) if x in paired]
        displaced = [b_steps[x][1] for x in range(k) if x not in paired]
        for entry, at in zip(freed, displaced, strict=True):  # an unused spare keeps its entry
            pairs[entry] = (at, None)


def _has_kids(side: Side, at: int) -> bool:
    """The step at execution position `at` has steps under it (the next one is deeper)."""
    return at + 1 < len(side.depth) and side.depth[at + 1] > side.depth[at]


def _out_of_order(pairs: list[Pair], members: list[int]) -> list[int]:
    """The members outside a longest increasing run of baseline positions (candidate order).

    `members` are in candidate order already: they were collected in the order of the pairs,
    which the alignment hands out in the candidate's execution order (and re-partnering keeps
    each candidate step in its entry), so they need no sort by candidate position.
    """
    positions = [pairs[i][0] or 0 for i in members]
    if all(map(lt, positions, islice(positions, 1, None))):  # in order: nothing moved
        return []
    keep = increasing_run(positions)
    return [i for k, i in enumerate(members) if k not in keep]
