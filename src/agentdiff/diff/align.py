"""Alignment: two step sequences → an edit script with as many pairs as possible.

Each step has interned integer keys (`signatures.Signer`, `order.Side`):

- **base** — step type and name (plus the non-volatile input keys with strict tool signatures):
  two steps with equal base keys are the same action and may pair;
- **exact** — base plus failed-or-not and, for tool calls, the normalized arguments: two steps
  with equal exact keys also behaved the same;
- **depth** — how deep in the tree the step ran.

The number of pairs is always the longest common subsequence (LCS) over base keys. Among the
pairings that long, the alignment prefers identical calls at the same depth, then same-name
steps at the same depth, then any same-name step, in tiers: an LCS over the first tier's keys
anchors the identical runs, and each gap between anchors is aligned on the next tier's keys
(so one call inserted into a run of same-tool calls is one insert, not a cascade of argument
changes). If anchoring ever pairs fewer steps than the base LCS (`[s(1), t, s(2)]` vs
`[s(2), t, s(1)]` anchored on `s(1)`), a small box (`WEIGHTED_CELLS`) is aligned by a
weighted LCS that maximizes (pairs, identical at the same depth, same depth, identical) in
that order, so no maximal pairing has more identical pairs; in a larger box each stretch
between the points both pairings share takes whichever pairing has more pairs there, and a
stretch taken from the plain pairing is re-aligned by that weighted LCS (when small enough,
else a repair pass moves a pair whose steps behave differently onto an unpaired twin nearby).

Every LCS is rapidfuzz's bit-parallel `Indel` on interned ints. When both sequences are too
long for its table (`LCS_CELLS`), rapidfuzz's banded `Levenshtein` with a `score_hint` finds
the common runs in near-linear time and only its gaps get the LCS treatment (that path keeps
the tiers but cannot prove the pair count). A big box's keys are renumbered from 0, most frequent
first (`_dense`), before rapidfuzz sees them: it looks keys below 256 up in a table and others in
a hash map, ~4x slower. Never a Python O(N·M) table, never difflib.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain, count, repeat
from operator import itemgetter, mul

from rapidfuzz.distance import Indel, Levenshtein, Opcodes

from agentdiff.diff.lis import increasing_run

__all__ = ["LCS_CELLS", "REPAIR_WINDOW", "WEIGHTED_CELLS", "Pair", "align", "lcs_length"]

LCS_CELLS = 400_000_000
"""Largest len(baseline) × len(candidate) solved by exact LCS (its table is cells/8 bytes)."""
REPAIR_WINDOW = 64
"""How far the repair pass looks for a better partner on each side of a pair."""
WEIGHTED_CELLS = 4096
"""Largest box (or stretch) the weighted LCS re-aligns (a Python table: ~1 ms per 1,000 cells)."""
CHUNK = 500
CHUNK_CELLS = 4 * CHUNK * CHUNK
"""Boxes larger than this are first cut at calls found once on each side (`CHUNK` apart)."""

Keys = tuple[list[int], list[int]]
"""One tier: the baseline's and the candidate's keys."""
_Block = tuple[int, int, int]
"""A common run: baseline start, candidate start, length."""


Pair = tuple[int | None, int | None]
"""One entry of the edit script: (baseline, candidate) positions; None on the side it lacks."""


def lcs_length(b: list[int], c: list[int]) -> int:
    """The length of a longest common subsequence of `b` and `c`."""
    return (len(b) + len(c) - Indel.distance(*_for_rapidfuzz(b, c))) // 2


def align(
    tiers: Sequence[Keys],
    exact: Callable[[], Keys],
    maps: tuple[Sequence[int] | None, Sequence[int] | None] = (None, None),
) -> list[Pair]:
    """The edit script (in each gap, deletes before inserts).

    The keys are in canonical order; `maps` give each canonical index's execution position on
    each side (None: the same), and the script comes out in execution positions, in the
    candidate's execution order. `tiers` run from the most to the least specific keys; the last
    one is the base keys, whose LCS length the number of pairs reaches. `exact()` gives the
    exact keys (canonical order) for the repair pass, only when it runs.
    """
    n, m = len(tiers[-1][0]), len(tiers[-1][1])
    return _emit(_box(tiers, exact, (0, n, 0, m)), n, m, *maps)


_Box = tuple[int, int, int, int]
"""b0, b1, c0, c1: the baseline's [b0, b1) against the candidate's [c0, c1)."""


def _box(tiers: Sequence[Keys], exact: Callable[[], Keys], box: _Box) -> list[_Block]:
    """The common runs of one box: tiered, never fewer pairs than the base LCS of the box."""
    b0, b1, c0, c1 = box
    cells = (b1 - b0) * (c1 - c0)
    if cells > CHUNK_CELLS:
        anchors = _unique_anchors(tiers[0][0], tiers[0][1], box)
        if anchors:
            return _chunked(tiers, exact, anchors, box)
    return _whole(tiers, exact, box)


def _whole(tiers: Sequence[Keys], exact: Callable[[], Keys], box: _Box) -> list[_Block]:
    """The common runs of one box aligned in one piece."""
    b0, b1, c0, c1 = box
    cells = (b1 - b0) * (c1 - c0)
    blocks = _tiered(tiers, 0, box)
    if len(tiers) > 1 and cells <= LCS_CELLS:
        b_base, c_base = tiers[-1]
        paired = sum(block[2] for block in blocks)
        if paired < lcs_length(b_base[b0:b1], c_base[c0:c1]):
            if cells <= WEIGHTED_CELLS:
                return _weighted(tiers, exact(), box)
            blocks = _best_of(blocks, _blocks(b_base, c_base, box), tiers, exact(), box)
    return blocks


def _tiered(tiers: Sequence[Keys], level: int, box: _Box) -> list[_Block]:
    """Common runs of tier `level` over the box, each gap between them refined by the next tier."""
    b, c = tiers[level]
    found = _blocks(b, c, box)
    if level + 1 == len(tiers):
        return found
    b0, b1, c0, c1 = box
    out: list[_Block] = []
    b_next, c_next = b0, c0
    for block in [*found, (b1, c1, 0)]:
        bs, cs, length = block
        if bs > b_next and cs > c_next:
            out.extend(_tiered(tiers, level + 1, (b_next, bs, c_next, cs)))
        if length:
            out.append(block)
        b_next, c_next = bs + length, cs + length
    return out


def _blocks(b: list[int], c: list[int], box: _Box) -> list[_Block]:
    """Common runs of b[b0:b1] and c[c0:c1] forming a common subsequence, in order."""
    b0, b1, c0, c1 = box
    n, m = b1 - b0, c1 - c0
    if n == 0 or m == 0:
        return []
    if n * m > CHUNK_CELLS:
        shared = _shared_keys_only(b, c, box)
        if shared is not None:
            return shared
    banded = n * m > LCS_CELLS
    ops = _opcodes(b[b0:b1], c[c0:c1], banded=banded)
    out: list[_Block] = []
    gap: list[int] | None = None
    for op in ops:
        if op.tag == "equal":
            if gap is not None:
                out.extend(_small_gap(b, c, gap))
                gap = None
            out.append((b0 + op.src_start, c0 + op.dest_start, op.src_end - op.src_start))
        elif banded:
            span = [b0 + op.src_start, b0 + op.src_end, c0 + op.dest_start, c0 + op.dest_end]
            gap = span if gap is None else [gap[0], span[1], gap[2], span[3]]
    if gap is not None:
        out.extend(_small_gap(b, c, gap))
    return out


def _opcodes(b: list[int], c: list[int], *, banded: bool) -> Opcodes:
    """The edit script of two key lists (rapidfuzz): an exact LCS, or banded for a huge box."""
    hint = max(64, abs(len(b) - len(c)) * 2)
    b, c = _for_rapidfuzz(b, c)
    return Levenshtein.opcodes(b, c, score_hint=hint) if banded else Indel.opcodes(b, c)


def _for_rapidfuzz(b: list[int], c: list[int]) -> tuple[list[int], list[int]]:
    """The key lists as rapidfuzz should get them: renumbered (`_dense`) when the box is big."""
    return _dense(b, c) if len(b) * len(c) > CHUNK_CELLS else (b, c)


def _dense(b: list[int], c: list[int]) -> tuple[list[int], list[int]]:
    """The keys of a big box renumbered 0, 1, 2, … from the most frequent (the same pairs).

    rapidfuzz looks a key below 256 up in a table and any other in a hash map, which made a big
    box's interned keys (large ints, negative for tool calls) ~4x slower to align.
    """
    ranked = Counter(chain(b, c)).most_common()
    codes = dict(zip(map(itemgetter(0), ranked), count()))
    return list(map(codes.__getitem__, b)), list(map(codes.__getitem__, c))


def _shared_keys_only(b: list[int], c: list[int], box: _Box) -> list[_Block] | None:
    """The common runs of a big box found among only the steps whose key the other side has.

    No other step can pair, so the pairs are the same; when the sides mostly differ this is far
    fewer cells (two unrelated 100,000-step runs: no cells instead of a near-quadratic banded
    search). None when dropping the unshared steps would not halve the cells.
    """
    b0, b1, c0, c1 = box
    common = set(b[b0:b1]).intersection(c[c0:c1])
    b_at = [i for i in range(b0, b1) if b[i] in common]
    c_at = [j for j in range(c0, c1) if c[j] in common]
    if 2 * len(b_at) * len(c_at) > (b1 - b0) * (c1 - c0):
        return None
    b_keys, c_keys = [b[i] for i in b_at], [c[j] for j in c_at]
    out: list[_Block] = []
    for bs, cs, length in _blocks(b_keys, c_keys, (0, len(b_keys), 0, len(c_keys))):
        start = 0
        for k in range(1, length + 1):
            if (
                k < length
                and b_at[bs + k] == b_at[bs + k - 1] + 1
                and c_at[cs + k] == c_at[cs + k - 1] + 1
            ):
                continue
            out.append((b_at[bs + start], c_at[cs + start], k - start))
            start = k
    return out


def _small_gap(b: list[int], c: list[int], gap: list[int]) -> list[_Block]:
    """A gap the banded path left: aligned exactly when small enough, else left unpaired."""
    if (gap[1] - gap[0]) * (gap[3] - gap[2]) > LCS_CELLS:
        return []
    return _blocks(b, c, (gap[0], gap[1], gap[2], gap[3]))


def _unique_anchors(b: list[int], c: list[int], box: _Box) -> list[tuple[int, int]]:
    """Keys found exactly once on each side, paired, kept where they do not cross (an LIS)."""
    b0, b1, c0, c1 = box
    b_part, c_part = b[b0:b1], c[c0:c1]
    b_count, c_count = Counter(b_part), Counter(c_part)
    c_at = {key: c0 + j for j, key in enumerate(c_part) if c_count[key] == 1}
    candidates = [
        (b0 + i, c_at[key]) for i, key in enumerate(b_part) if b_count[key] == 1 and key in c_at
    ]
    if not candidates:
        return []
    keep = increasing_run([c for _, c in candidates])
    return [candidates[k] for k in sorted(keep)]


def _chunked(
    tiers: Sequence[Keys], exact: Callable[[], Keys], anchors: list[tuple[int, int]], box: _Box
) -> list[_Block]:
    """Cut the box at anchors about `CHUNK` steps apart and align each piece on its own."""
    b0, b1, c0, c1 = box
    out: list[_Block] = []
    b_from, c_from = b0, c0
    for b_at, c_at in [*anchors, (b1, c1)]:
        last = b_at == b1 and c_at == c1
        if not last and b_at - b_from < CHUNK and c_at - c_from < CHUNK:
            continue
        piece = (b_from, b_at, c_from, c_at)
        out.extend(_whole(tiers, exact, box) if piece == box else _box(tiers, exact, piece))
        if not last:
            out.append((b_at, c_at, 1))
        b_from, c_from = b_at + 1, c_at + 1
    return out


def _best_of(
    anchored: list[_Block], plain: list[_Block], tiers: Sequence[Keys], exact: Keys, box: _Box
) -> list[_Block]:
    """Between the runs both pairings share, whichever has more pairs (anchored on ties).

    Both are common subsequences, so a stretch of either between two shared runs can replace
    the other's; taking the longer stretch everywhere reaches the plain (maximal) count. A
    stretch taken from the plain pairing is then re-aligned by the weighted LCS (as many
    pairs, the most identical ones), or gets the repair pass when too big for it.
    """
    out: list[_Block] = []
    b_prev, c_prev = box[0] - 1, box[2] - 1
    for run in [*_shared(anchored, plain), (box[1], box[3], 0)]:
        mine = _clip(anchored, b_prev + 1, run[0])
        theirs = _clip(plain, b_prev + 1, run[0])
        if sum(block[2] for block in theirs) > sum(block[2] for block in mine):
            stretch = (b_prev + 1, run[0], c_prev + 1, run[1])
            if (stretch[1] - stretch[0]) * (stretch[3] - stretch[2]) <= WEIGHTED_CELLS:
                out.extend(_weighted(tiers, exact, stretch))
            else:
                out.extend(_repaired(theirs, (b_prev, c_prev), (run[0], run[1]), exact))
        else:
            out.extend(mine)
        if run[2]:
            out.append(run)
        b_prev, c_prev = run[0] + run[2] - 1, run[1] + run[2] - 1
    return out


def _weighted(tiers: Sequence[Keys], exact: Keys, box: _Box) -> list[_Block]:
    """A common subsequence of the box's base keys, as long as any, the best one by its pairs.

    Pairs are ranked (pairs, then pairs equal on each tier from the most specific, then
    identical pairs at any depth) lexicographically: each pair scores one power of `unit`
    per criterion it meets, `unit` being more than the most pairs the box can hold, so no
    number of lower-ranked pairs outweighs one higher-ranked pair. A table over the box:
    only for boxes of at most `WEIGHTED_CELLS` cells.
    """
    b0, b1, c0, c1 = box
    n, m = b1 - b0, c1 - c0
    unit = min(n, m) + 1
    levels = len(tiers)
    weights = [unit ** (levels - 1 - k) for k in range(levels - 1)]  # tiers above the base
    pair = unit**levels
    b_keys = [keys[0][b0:b1] for keys in (*tiers, exact)]
    c_keys = [keys[1][c0:c1] for keys in (*tiers, exact)]
    scored = list(zip(weights, b_keys[:-2], c_keys[:-2], strict=True))
    table = [[0] * (m + 1) for _ in range(n + 1)]
    b_base, c_base, b_exact, c_exact = b_keys[-2], c_keys[-2], b_keys[-1], c_keys[-1]
    for i in range(n):
        row, below, key = table[i], table[i + 1], b_base[i]
        for j in range(m):
            best = max(below[j], row[j + 1])
            if c_base[j] == key:
                score = row[j] + pair + (b_exact[i] == c_exact[j])
                for weight, b_tier, c_tier in scored:
                    if b_tier[i] == c_tier[j]:
                        score += weight
                best = max(best, score)
            below[j + 1] = best
    out: list[_Block] = []
    i, j = n, m
    while i and j:
        if table[i][j] == table[i - 1][j]:
            i -= 1
        elif table[i][j] == table[i][j - 1]:
            j -= 1
        else:
            i, j = i - 1, j - 1
            out.append((b0 + i, c0 + j, 1))
    out.reverse()
    return out


def _shared(x: list[_Block], y: list[_Block]) -> list[_Block]:
    """The pairs two pairings (blocks in order) have in common, as runs."""
    out: list[_Block] = []
    i = j = 0
    while i < len(x) and j < len(y):
        xb, xc, xl = x[i]
        yb, yc, yl = y[j]
        if xc - xb == yc - yb:
            start, end = max(xb, yb), min(xb + xl, yb + yl)
            if start < end:
                out.append((start, start + xc - xb, end - start))
        if xb + xl <= yb + yl:
            i += 1
        else:
            j += 1
    return out


def _clip(blocks: list[_Block], lo: int, hi: int) -> list[_Block]:
    """The parts of `blocks` whose baseline indexes lie in [lo, hi)."""
    out: list[_Block] = []
    for k in range(max(bisect_right(blocks, (lo, _BIG, 0)) - 1, 0), len(blocks)):
        b, c, length = blocks[k]
        if b >= hi:
            break
        start, end = max(b, lo), min(b + length, hi)
        if start < end:
            out.append((start, c + start - b, end - start))
    return out


_BIG = 1 << 62


def _repaired(
    blocks: list[_Block], before: tuple[int, int], after: tuple[int, int], exact: Keys
) -> list[_Block]:
    """`blocks` after the repair pass, between the pairs `before` and `after`."""
    matched = [
        before,
        *chain.from_iterable(
            zip(range(b, b + length), range(c, c + length), strict=True) for b, c, length in blocks
        ),
        after,
    ]
    _repair(matched, 1, len(matched) - 1, exact)
    return [(b, c, 1) for b, c in matched[1:-1]]


def _repair(matched: list[tuple[int, int]], start: int, end: int, exact: Keys) -> None:
    """Move pairs of matched[start:end] whose steps behave differently onto an unpaired twin."""
    b_exact, c_exact = exact
    n, m = len(b_exact), len(c_exact)
    for i in range(start, end):
        b, c = matched[i]
        if b_exact[b] == c_exact[c]:
            continue
        prev_b, prev_c = matched[i - 1] if i else (-1, -1)
        next_b, next_c = matched[i + 1] if i + 1 < len(matched) else (n, m)
        twin = _nearest(
            c_exact,
            b_exact[b],
            c,
            max(prev_c + 1, c - REPAIR_WINDOW),
            min(next_c, c + REPAIR_WINDOW + 1),
        )
        if twin is not None:
            matched[i] = (b, twin)
            continue
        twin = _nearest(
            b_exact,
            c_exact[c],
            b,
            max(prev_b + 1, b - REPAIR_WINDOW),
            min(next_b, b + REPAIR_WINDOW + 1),
        )
        if twin is not None:
            matched[i] = (twin, c)


def _nearest(exact: list[int], want: int, at: int, lo: int, hi: int) -> int | None:
    for distance in range(1, max(at - lo, hi - at) + 1):
        for index in (at + distance, at - distance):
            if lo <= index < hi and index != at and exact[index] == want:
                return index
    return None


def _emit(
    blocks: list[_Block], n: int, m: int, b_map: Sequence[int] | None, c_map: Sequence[int] | None
) -> list[Pair]:
    """The edit script of `blocks` with indexes mapped through `b_map` / `c_map`.

    The maps hold the execution position of each canonical index; a mapped script comes out in
    the candidate's execution order (a delete stays right after the entry it followed).
    """
    bs_of = range if b_map is None else lambda lo, hi: map(b_map.__getitem__, range(lo, hi))
    cs_of = range if c_map is None else lambda lo, hi: map(c_map.__getitem__, range(lo, hi))
    pairs: list[Pair] = []
    keys: list[int] = []
    extend, more = pairs.extend, keys.extend
    b_next = c_next = 0
    for bs, cs, length in [*blocks, (n, m, 0)]:
        if bs > b_next:
            extend(zip(bs_of(b_next, bs), repeat(None)))
            if c_map is not None:
                more(repeat(2 * c_map[c_next - 1] + 1 if c_next else -1, bs - b_next))
        if cs > c_next:
            extend(zip(repeat(None), cs_of(c_next, cs)))
            if c_map is not None:
                more(map(mul, cs_of(c_next, cs), repeat(2)))
        if length:
            extend(zip(bs_of(bs, bs + length), cs_of(cs, cs + length), strict=True))
            if c_map is not None:
                more(map(mul, cs_of(cs, cs + length), repeat(2)))
        b_next, c_next = bs + length, cs + length
    if c_map is None:
        return pairs
    return list(map(pairs.__getitem__, sorted(range(len(pairs)), key=keys.__getitem__)))
