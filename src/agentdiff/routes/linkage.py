"""Clustering distinct routes under a distance threshold, deterministically.

- `average_linkage`: UPGMA weighted by run counts, by the nearest-neighbour-chain algorithm
  (O(n²) time and memory, no cubic rescans): merges are found in any order, but average linkage
  is reducible and monotone, so the clusters at threshold τ are exactly the groups joined by
  merges of height ≤ τ. Rows are `array('d')`, scanned with C-speed `min`/`index`.
- `leader_clusters`: for many distinct routes; routes in the given (frequency) order join the
  nearest existing leader within τ or lead a new cluster (rapidfuzz `extractOne` at C speed).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import repeat
from operator import add, itemgetter, mul, truediv

from rapidfuzz import process
from rapidfuzz.distance import Indel

__all__ = ["average_linkage", "distance_matrix", "leader_clusters"]

_INF = float("inf")
_SCORE = itemgetter(1)
"""The distance in an `extract_iter` result (choices come back in their order)."""


def distance_matrix(routes: Sequence[str]) -> list[array[float]]:
    """Indel distances between every two encoded routes (rows as `array('d')`).

    Only the upper triangle is computed (rapidfuzz, C speed); the lower one is copied.
    """
    rows: list[array[float]] = []
    scorer = Indel.normalized_distance
    for i, a in enumerate(routes):
        lower = [rows[j][i] for j in range(i)]
        upper = map(_SCORE, process.extract_iter(a, routes[i + 1 :], scorer=scorer))
        row = array("d", lower)
        row.append(0.0)
        row.extend(upper)
        rows.append(row)
    return rows


def average_linkage(
    matrix: Sequence[Sequence[float]], weights: Sequence[int], threshold: float
) -> list[int]:
    """Cluster label (the lowest member index) of each item; items are joined while ≤ τ."""
    n = len(matrix)
    rows = [array("d", row) for row in matrix]
    for i in range(n):
        rows[i][i] = _INF
    size = [float(w) for w in weights]
    parent = list(range(n))
    chain: list[int] = []
    alive = list(range(n))
    live = set(alive)
    while len(live) > 1:
        if not chain:
            chain.append(min(live))
        a = chain[-1]
        row = rows[a]
        nearest = min(row)
        b = row.index(nearest)
        if len(chain) > 1 and row[chain[-2]] == nearest:
            b = chain[-2]
        if len(chain) < 2 or b != chain[-2]:  # noqa: PLR2004
            chain.append(b)
            continue
        del chain[-2:]
        keep, gone = min(a, b), max(a, b)
        if nearest <= threshold:
            parent[gone] = keep
        _merge(rows, size, keep, gone, live)
    return [_root(parent, i) for i in range(n)]


def _merge(
    rows: list[array[float]], size: list[float], keep: int, gone: int, live: set[int]
) -> None:
    """Lance–Williams update for average linkage: `keep` becomes the union, `gone` dies."""
    wk, wg = size[keep], size[gone]
    merged = array(
        "d",
        map(
            truediv,
            map(add, map(mul, rows[keep], repeat(wk)), map(mul, rows[gone], repeat(wg))),
            repeat(wk + wg),
        ),
    )
    live.discard(gone)
    merged[keep] = _INF
    merged[gone] = _INF
    rows[keep] = merged
    for k in live:
        row = rows[k]
        row[gone] = _INF
        row[keep] = merged[k]
    rows[gone] = array("d")
    size[keep] = wk + wg


def _root(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def leader_clusters(routes: Sequence[str], threshold: float) -> list[int]:
    """Leader index of each route: the first earlier leader within τ (nearest), else itself."""
    leaders: list[str] = []
    leader_index: list[int] = []
    labels = []
    scorer = Indel.normalized_distance
    for i, route in enumerate(routes):
        found = process.extractOne(route, leaders, scorer=scorer, score_cutoff=threshold)
        if found is None:
            leaders.append(route)
            leader_index.append(i)
            labels.append(i)
        else:
            labels.append(leader_index[found[2]])
    return labels
