"""`cluster_routes(runs, threshold=0.2) -> RouteMap`: the routes a set of runs takes.

Exact variants first (runs with the same route counted once), then the distinct routes ordered
by run count (most frequent first, then by their label lists, lexicographically: an order that
needs no hashing and does not depend on the order of the runs) are clustered: average linkage up to
`LINKAGE_LIMIT` distinct routes, frequency-ordered leader clustering above it followed by one
pass reassigning every route to its nearest medoid. A cluster's **medoid** is the member route
with the smallest run-weighted sum of distances to the others (with leader clustering, among its
`MEDOID_CANDIDATES` most frequent members against its `MEDOID_SAMPLE` most frequent ones);
its representative run is the first run that took it. Clusters are numbered R1, R2, … by run
count, then by the medoid's route id, so the same runs always give the same map. Route ids are
hashed only for medoids while clustering; `RouteMap.route_ids` (every run's) when first read.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, groupby
from operator import itemgetter, methodcaller, mul
from typing import cast

from rapidfuzz import process
from rapidfuzz.distance import Indel

from agentdiff.config_kinds import model_bounded
from agentdiff.errors import ConfigError
from agentdiff.models.trace import AgentTrace
from agentdiff.routes.encode import RouteCodec, code_point, route_of
from agentdiff.routes.linkage import average_linkage, distance_matrix, leader_clusters
from agentdiff.stats_options import StatsOptions

__all__ = ["LINKAGE_LIMIT", "RouteCluster", "RouteMap", "cluster_routes", "encode_runs"]

LINKAGE_LIMIT = 1500
MEDOID_CANDIDATES = 32
MEDOID_SAMPLE = 2000
DEFAULT_THRESHOLD = 0.2
_THRESHOLD = model_bounded(StatsOptions, "route_threshold")
"""The kind of a route threshold: its range is `[stats] route_threshold`'s, in words too."""


@dataclass(frozen=True)
class RouteCluster:
    """Runs whose routes lie within the threshold of each other (average linkage)."""

    name: str
    """`R1`, `R2`, … by run count."""
    runs: list[int]
    """Indexes of the runs in this cluster (input order)."""
    medoid: list[str]
    """The medoid route's labels."""
    medoid_id: str
    medoid_run: int
    """The first run that took the medoid route."""
    variants: int
    """How many distinct exact routes the cluster holds."""


@dataclass(frozen=True)
class RouteMap:
    """Every run's route and cluster."""

    clusters: list[RouteCluster]
    cluster_of: list[int]
    """Per run: its cluster's position in `clusters`."""
    variant_of: list[int] = field(repr=False)
    """Per run: the index of its distinct route in `routes`."""
    encoded: list[str] = field(repr=False)
    """Per distinct route: its encoding (one character per step)."""
    codec: RouteCodec = field(repr=False)
    threshold: float = DEFAULT_THRESHOLD
    method: str = "average"
    """`average` (average linkage) or `leader` (many distinct routes)."""

    @cached_property
    def route_ids(self) -> list[str]:
        """Per run: its exact route's id (`route_id`; computed when first read)."""
        ids = list(map(self.codec.route_id, self.encoded))
        return list(map(ids.__getitem__, self.variant_of))

    def route(self, variant: int) -> list[str]:
        """The labels of distinct route `variant`."""
        return self.codec.decode(self.encoded[variant])


def encode_runs(
    runs: Sequence[AgentTrace | Sequence[str]], *, strict: bool = False
) -> tuple[RouteCodec, list[str]]:
    """One encoded route per run (traces are read in canonical order first).

    The codec is given every label first, so its codes follow label order (`RouteCodec.ordered`).
    """
    routes = [route_of(run, strict=strict) if isinstance(run, AgentTrace) else run for run in runs]
    codec = RouteCodec(chain.from_iterable(routes))
    return codec, list(map(codec.encode, routes))


def cluster_routes(
    runs: Sequence[AgentTrace | Sequence[str]],
    threshold: float = DEFAULT_THRESHOLD,
    *,
    strict: bool = False,
) -> RouteMap:
    """Cluster the routes of `runs` (traces or label sequences) at distance `threshold`.

    A `threshold` outside 0 to 1, NaN, a bool or a string is a `ConfigError` (the CLI's
    `--threshold` rule).
    """
    tau = checked_threshold(threshold)
    codec, per_run = encode_runs(runs, strict=strict)
    return cluster_encoded(codec, per_run, tau)


def checked_threshold(threshold: float) -> float:
    """`threshold` as a float when it is a valid route distance (`[stats] route_threshold`).

    Only an int or a float is one: a bool or a numeric string is refused, as out of range is
    (a `ConfigError`, a `ValueError`, saying the range `StatsOptions` declares).
    """
    try:
        return cast("float", _THRESHOLD.from_value(threshold))
    except (TypeError, ValueError):
        msg = f"arguments: threshold must be {_THRESHOLD.expected}, got {threshold!r}"
        raise ConfigError(msg) from None


def cluster_encoded(codec: RouteCodec, per_run: list[str], threshold: float) -> RouteMap:
    """`cluster_routes` on routes already encoded with `codec`."""
    count = Counter(per_run)
    distinct = sorted(count, key=_label_order(codec))
    distinct.sort(key=count.__getitem__, reverse=True)  # stable: equal counts keep label order
    weights = [count[r] for r in distinct]
    if len(distinct) <= LINKAGE_LIMIT:
        matrix = distance_matrix(distinct)
        labels = average_linkage(matrix, weights, threshold)
        medoids = _medoids_exact(labels, matrix, weights)
        method = "average"
    else:
        labels = leader_clusters(distinct, threshold)
        medoids = _medoids_sampled(labels, distinct, weights)
        labels = _reassign(distinct, medoids)
        method = "leader"
    position = {route: i for i, route in enumerate(distinct)}
    variant_of = list(map(position.__getitem__, per_run))
    return _build(codec, distinct, labels, medoids, variant_of, threshold, method)


def _label_order(codec: RouteCodec) -> Callable[[str], str] | None:
    """A sort key putting encoded routes in the order of their label lists (None: as they are)."""
    if codec.ordered:
        return None
    rank = sorted(range(len(codec.labels)), key=codec.labels.__getitem__)
    table = {ord(code_point(i)): code_point(r) for r, i in enumerate(rank)}
    return methodcaller("translate", table)


def _medoids_exact(
    labels: list[int], matrix: Sequence[Sequence[float]], weights: list[int]
) -> dict[int, int]:
    members: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        members.setdefault(label, []).append(i)
    return {
        label: min(group, key=lambda i: (sum(matrix[i][j] * weights[j] for j in group), i))
        for label, group in members.items()
    }


def _medoids_sampled(labels: list[int], routes: list[str], weights: list[int]) -> dict[int, int]:
    members: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        members.setdefault(label, []).append(i)  # in frequency order already
    medoids = {}
    for label, group in members.items():
        sample = group[:MEDOID_SAMPLE]
        targets = [routes[j] for j in sample]
        mass = [weights[j] for j in sample]
        cost = []
        for i in group[:MEDOID_CANDIDATES]:
            found = process.extract_iter(routes[i], targets, scorer=Indel.normalized_distance)
            cost.append((sum(map(mul, map(itemgetter(1), found), mass)), i))  # in target order
        medoids[label] = min(cost)[1]
    return medoids


def _reassign(routes: list[str], medoids: dict[int, int]) -> list[int]:
    """Each route's nearest medoid (the earlier medoid on ties), as that medoid's label."""
    order = sorted(medoids)
    centres = [routes[medoids[label]] for label in order]
    labels = []
    for route in routes:
        found = process.extractOne(route, centres, scorer=Indel.normalized_distance)
        labels.append(order[found[2]] if found is not None else order[0])
    return labels


def _build(
    codec: RouteCodec,
    distinct: list[str],
    labels: list[int],
    medoids: dict[int, int],
    variant_of: list[int],
    threshold: float,
    method: str,
) -> RouteMap:
    variants = Counter(labels)
    run_label = list(map(labels.__getitem__, variant_of))
    by_label = sorted(range(len(run_label)), key=run_label.__getitem__)  # stable: run order
    runs_of = {lb: list(runs) for lb, runs in groupby(by_label, key=run_label.__getitem__)}
    ids = {label: codec.route_id(distinct[medoid]) for label, medoid in medoids.items()}
    ranked = sorted(runs_of, key=lambda lb: (-len(runs_of[lb]), ids[lb]))
    first: dict[int, int] = {}
    deque(map(first.setdefault, variant_of, range(len(variant_of))), maxlen=0)
    clusters = [
        RouteCluster(
            name=f"R{number}",
            runs=runs_of[label],
            medoid=codec.decode(distinct[medoids[label]]),
            medoid_id=ids[label],
            medoid_run=first[medoids[label]],
            variants=variants[label],
        )
        for number, label in enumerate(ranked, start=1)
    ]
    rank = {label: i for i, label in enumerate(ranked)}
    cluster_of_variant = list(map(rank.__getitem__, labels))
    return RouteMap(
        clusters=clusters,
        cluster_of=list(map(cluster_of_variant.__getitem__, variant_of)),
        variant_of=variant_of,
        encoded=distinct,
        codec=codec,
        threshold=threshold,
        method=method,
    )
