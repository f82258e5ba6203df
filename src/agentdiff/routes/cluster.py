"""`cluster_routes(runs, threshold=0.2) -> RouteMap`: the routes a set of runs takes.

Exact variants first (runs with the same route counted once), then the distinct routes ordered
by run count (most frequent first, then route id) are clustered: average linkage up to
`LINKAGE_LIMIT` distinct routes, frequency-ordered leader clustering above it followed by one
pass reassigning every route to its nearest medoid. A cluster's **medoid** is the member route
with the smallest run-weighted sum of distances to the others (with leader clustering, among its
`MEDOID_CANDIDATES` most frequent members against its `MEDOID_SAMPLE` most frequent ones);
its representative run is the first run that took it. Clusters are numbered R1, R2, … by run
count, then by the medoid's route id, so the same runs always give the same map.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from operator import mul

from rapidfuzz import process
from rapidfuzz.distance import Indel

from agentdiff.models.trace import AgentTrace
from agentdiff.routes.encode import RouteCodec, route_of
from agentdiff.routes.linkage import average_linkage, distance_matrix, leader_clusters

__all__ = ["LINKAGE_LIMIT", "RouteCluster", "RouteMap", "cluster_routes", "encode_runs"]

LINKAGE_LIMIT = 1500
MEDOID_CANDIDATES = 32
MEDOID_SAMPLE = 2000
DEFAULT_THRESHOLD = 0.2


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
    route_ids: list[str]
    """Per run: its exact route's id."""
    variant_of: list[int] = field(repr=False)
    """Per run: the index of its distinct route in `routes`."""
    encoded: list[str] = field(repr=False)
    """Per distinct route: its encoding (one character per step)."""
    codec: RouteCodec = field(repr=False)
    threshold: float = DEFAULT_THRESHOLD
    method: str = "average"
    """`average` (average linkage) or `leader` (many distinct routes)."""

    def route(self, variant: int) -> list[str]:
        """The labels of distinct route `variant`."""
        return self.codec.decode(self.encoded[variant])


def encode_runs(
    runs: Sequence[AgentTrace | Sequence[str]], *, strict: bool = False
) -> tuple[RouteCodec, list[str]]:
    """One encoded route per run (traces are read in canonical order first)."""
    codec = RouteCodec()
    encoded = [
        codec.encode(route_of(run, strict=strict) if isinstance(run, AgentTrace) else run)
        for run in runs
    ]
    return codec, encoded


def cluster_routes(
    runs: Sequence[AgentTrace | Sequence[str]],
    threshold: float = DEFAULT_THRESHOLD,
    *,
    strict: bool = False,
) -> RouteMap:
    """Cluster the routes of `runs` (traces or label sequences) at distance `threshold`."""
    codec, per_run = encode_runs(runs, strict=strict)
    return cluster_encoded(codec, per_run, threshold)


def cluster_encoded(codec: RouteCodec, per_run: list[str], threshold: float) -> RouteMap:
    """`cluster_routes` on routes already encoded with `codec`."""
    first: dict[str, int] = {}
    count: dict[str, int] = {}
    for i, route in enumerate(per_run):
        if route not in first:
            first[route] = i
            count[route] = 0
        count[route] += 1
    ids = {route: codec.route_id(route) for route in first}
    distinct = sorted(first, key=lambda r: (-count[r], ids[r]))
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
    variant_of = [position[r] for r in per_run]
    parts = (distinct, ids, labels, medoids, variant_of, first)
    return _build(codec, *parts, threshold, method)


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
            dist = map(partial(Indel.normalized_distance, routes[i]), targets)
            cost.append((sum(map(mul, dist, mass)), i))
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
    ids: dict[str, str],
    labels: list[int],
    medoids: dict[int, int],
    variant_of: list[int],
    first: dict[str, int],
    threshold: float,
    method: str,
) -> RouteMap:
    groups: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        groups.setdefault(label, []).append(i)
    runs_of: dict[int, list[int]] = {label: [] for label in groups}
    for run, variant in enumerate(variant_of):
        runs_of[labels[variant]].append(run)
    ranked = sorted(groups, key=lambda lb: (-len(runs_of[lb]), ids[distinct[lb]]))
    clusters = []
    for number, label in enumerate(ranked, start=1):
        medoid = medoids[label]
        clusters.append(
            RouteCluster(
                name=f"R{number}",
                runs=runs_of[label],
                medoid=codec.decode(distinct[medoid]),
                medoid_id=ids[distinct[medoid]],
                medoid_run=first[distinct[medoid]],
                variants=len(groups[label]),
            )
        )
    rank = {label: i for i, label in enumerate(ranked)}
    return RouteMap(
        clusters=clusters,
        cluster_of=[rank[labels[v]] for v in variant_of],
        route_ids=[ids[distinct[v]] for v in variant_of],
        variant_of=variant_of,
        encoded=distinct,
        codec=codec,
        threshold=threshold,
        method=method,
    )
