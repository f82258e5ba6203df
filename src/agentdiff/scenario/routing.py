"""The routes of one scenario: clusters per side, the noise floor and the route-shift test.

Runs of both sides are clustered together (`cluster_routes`); the main route is the cluster most
baseline runs take. Route distances are computed once, between distinct routes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

from agentdiff.routes.cluster import RouteMap, cluster_routes
from agentdiff.routes.linkage import distance_matrix
from agentdiff.routes.skeleton import Part, first_departure, joined, skeleton_parts
from agentdiff.routes.trie import route_trie
from agentdiff.scenario.checks import Draft, band, rate_band, rate_test
from agentdiff.scenario.profile import RunProfile
from agentdiff.scenario.report import (
    Band,
    Departure,
    RouteRow,
    RouteSection,
    SkeletonPart,
    TrieNode,
)
from agentdiff.stats import energy_test, min_p, noise_floor
from agentdiff.stats.energy import EXACT_SPLITS
from agentdiff.stats_options import StatsOptions

__all__ = ["Routing", "describe_routes", "route_scenario"]


@dataclass
class Routing:
    """Everything the scenario needs of its routes."""

    section: RouteSection
    routes: RouteMap
    tests: list[Draft]
    noise: Band | None
    nearest: list[int]
    """For each candidate run: its nearest baseline run (route distance; first on ties)."""
    distance_to_nearest: list[float]
    baseline_nearest: list[int | None]
    """For each baseline run: its nearest other baseline run (None with one baseline run)."""


def route_scenario(
    baseline: Sequence[RunProfile], candidate: Sequence[RunProfile], stats: StatsOptions
) -> Routing:
    """Cluster, test and describe the routes of both sides."""
    n, m = len(baseline), len(candidate)
    runs = [*baseline, *candidate]
    routes = cluster_routes([r.route for r in runs], stats.route_threshold)
    matrix = distance_matrix(routes.encoded)
    b_var, c_var = routes.variant_of[:n], routes.variant_of[n:]
    near = [_nearest(matrix[v], b_var, skip=None) for v in c_var]
    own = [_nearest(matrix[v], b_var, skip=i) if n > 1 else None for i, v in enumerate(b_var)]
    tests: list[Draft] = []
    floor = noise_floor(matrix, b_var, c_var, seed=stats.seed)
    if floor is not None and len(set(floor.baseline + floor.candidate)) > 1:
        tests.append(
            Draft(
                name="divergence vs noise floor",
                method="mann-whitney (nearest route distance)",
                p=floor.test.p_greater,
                p_better=floor.test.p_less,
                min_p=min_p(len(floor.baseline), m),
                worse_enough=stats.route_shift,
                better_enough=False,
                baseline=band(floor.baseline),
                candidate=band(floor.candidate),
            )
        )
    energy = energy_test(matrix, b_var, c_var, seed=stats.seed, permutations=stats.permutations)
    if len(set(routes.variant_of)) > 1 and n and m:
        floor_p = min_p(n, m) if energy.exact else max(min_p(n, m), 1 / (1 + stats.permutations))
        method = "energy (exact)" if energy.exact else f"energy ({stats.permutations} permutations)"
        tests.append(
            Draft(
                name="route shift",
                method=method,
                p=energy.p,
                p_better=1.0,
                min_p=floor_p,
                worse_enough=stats.route_shift,
                better_enough=False,
                statistic=energy.statistic,
                note=f"exact up to {EXACT_SPLITS:,} split patterns" if energy.exact else None,
            )
        )
    new_route = _new_route_rate(matrix, (b_var, c_var), (own, near), stats.route_threshold)
    if new_route is not None:
        tests.append(new_route)
    unexplained = (
        sum(1 for j in range(m) if matrix[c_var[j]][b_var[near[j]]] > stats.route_threshold)
        if n
        else m
    )
    sides = ["baseline"] * n + ["candidate"] * m
    section = _section(routes, runs, sides).model_copy(
        update={"unexplained": rate_band(unexplained, m)}
    )
    noise = band(floor.baseline) if floor is not None else None
    return Routing(
        section=section,
        routes=routes,
        tests=tests,
        noise=noise,
        nearest=near,
        distance_to_nearest=[matrix[c_var[j]][b_var[near[j]]] for j in range(m)] if n else [],
        baseline_nearest=own,
    )


def _nearest(row: Sequence[float], base: Sequence[int], skip: int | None) -> int:
    best, where = 2.0, 0
    for i, v in enumerate(base):
        if i != skip and row[v] < best:
            best, where = row[v], i
    return where


def _new_route_rate(
    matrix: Sequence[Sequence[float]],
    variants: tuple[list[int], list[int]],
    nearest: tuple[list[int | None], list[int]],
    threshold: float,
) -> Draft | None:
    """Runs farther than the route threshold from every baseline run (or every other one).

    A baseline run counts when it is that far from every *other* baseline run. The same rule
    as the routes' footnote ("k/M candidate runs are farther than 0.2 from every baseline
    run"): by distance, not by cluster, since average linkage can put a run in a cluster of no
    baseline run while one is within the threshold (or the reverse).
    """
    (b_var, c_var), (own, near) = variants, nearest
    if len(b_var) < 2 or not c_var:  # noqa: PLR2004
        return None
    alone = sum(
        1
        for i, v in enumerate(b_var)
        if (k := own[i]) is not None and matrix[v][b_var[k]] > threshold
    )
    fresh = sum(1 for j, v in enumerate(c_var) if matrix[v][b_var[near[j]]] > threshold)
    return rate_test("runs on a new route", alone, len(b_var), fresh, len(c_var))


def describe_routes(
    runs: Sequence[RunProfile], sides: Sequence[str], threshold: float
) -> RouteSection:
    """Cluster one or two sides' runs and describe each route (no tests)."""
    return _section(cluster_routes([r.route for r in runs], threshold), runs, sides)


def _section(routes: RouteMap, runs: Sequence[RunProfile], sides: Sequence[str]) -> RouteSection:
    return RouteSection(
        threshold=routes.threshold,
        method=routes.method,
        runs=len(runs),
        distinct=len(routes.encoded),
        clusters=_rows(routes, runs, sides),
        trie=_trie(routes, sides),
        folded_framework_steps=_folded(runs),
    )


def _folded(runs: Sequence[RunProfile]) -> int | None:
    """Framework steps folded out of `runs` in all (None: they were read without folding)."""
    counts = [r.folded_framework_steps for r in runs if r.folded_framework_steps is not None]
    return sum(counts) if counts else None


def _rows(routes: RouteMap, runs: Sequence[RunProfile], sides: Sequence[str]) -> list[RouteRow]:
    """Each cluster's counts and look; the main route is the one most baseline runs take."""
    first_side = sides[0] if sides else "runs"
    main = max(
        range(len(routes.clusters)),
        key=lambda k: (sum(1 for i in routes.clusters[k].runs if sides[i] == first_side), -k),
    )
    main_route = routes.clusters[main].medoid
    main_groups = _groups(runs[routes.clusters[main].medoid_run], main_route)
    rows = []
    for k, cluster in enumerate(routes.clusters):
        members = [runs[i] for i in cluster.runs]
        counts = dict.fromkeys(dict.fromkeys(sides), 0)
        for i in cluster.runs:
            counts[sides[i]] += 1
        costs = [r.cost_usd for r in members if r.cost_usd is not None]
        departure = None if k == main else first_departure(main_route, cluster.medoid)
        groups = _groups(runs[cluster.medoid_run], cluster.medoid)
        here_in = departure is not None and _within(groups, departure.step)
        main_in = departure is not None and _within(main_groups, departure.main_step)
        parts, concurrent = skeleton_parts(cluster.medoid, groups)
        side_routes = _side_routes(cluster.medoid, members, [sides[i] for i in cluster.runs])
        rows.append(
            RouteRow(
                name=cluster.name,
                counts=counts,
                skeleton=joined(parts),
                skeleton_parts=_records(parts),
                concurrent=concurrent or any(c for _, c in side_routes.values()),
                medoid_run=runs[cluster.medoid_run].run_id,
                medoid_id=cluster.medoid_id,
                variants=cluster.variants,
                new="baseline" in counts and counts["baseline"] == 0,
                runs_with_loops=sum(1 for r in members if r.loops),
                runs_with_errors=sum(1 for r in members if r.errors),
                cost_median=median(costs) if costs else None,
                side_routes={side: joined(route) for side, (route, _) in side_routes.items()},
                side_route_parts={side: _records(r) for side, (r, _) in side_routes.items()},
                departure=None
                if departure is None
                else Departure(
                    step=_placed(runs[cluster.medoid_run], departure.step),
                    main=departure.main,
                    here=departure.here,
                    extra_steps=departure.extra_steps,
                    concurrent=here_in or main_in,
                    here_concurrent=here_in,
                    main_concurrent=main_in,
                ),
            )
        )
    return rows


def _trie(routes: RouteMap, sides: Sequence[str]) -> TrieNode:
    names = list(dict.fromkeys(sides))
    weights: list[dict[str, int]] = [dict.fromkeys(names, 0) for _ in routes.encoded]
    for run, variant in enumerate(routes.variant_of):
        weights[variant][sides[run]] += 1
    trie = route_trie([routes.route(v) for v in range(len(routes.encoded))], weights)
    # the whole tree read off the dataclass nodes' same-named fields in one validation (not
    # one model per node from Python: a 10 v 10 scenario's trie has ~80 nodes)
    return TrieNode.model_validate(trie, from_attributes=True)


def _side_routes(
    medoid: Sequence[str], members: Sequence[RunProfile], sides: Sequence[str]
) -> dict[str, tuple[list[Part], bool]]:
    """Each side of a cluster none of whose runs take its medoid's route: their most common.

    Each as its skeleton's parts, and whether one is a concurrent group.
    """
    taken: dict[str, Counter[tuple[str, ...]]] = {}
    for run, side in zip(members, sides, strict=True):
        taken.setdefault(side, Counter())[run.route] += 1
    target = tuple(medoid)
    shown = {}
    for side, routes in taken.items():
        if target not in routes:
            route = routes.most_common(1)[0][0]
            taker = next(run for run in members if run.route == route)  # its groups are shown
            shown[side] = skeleton_parts(route, _groups(taker, route))
    return shown


def _records(parts: Sequence[Part]) -> list[SkeletonPart]:
    """A skeleton's parts as the report gives them."""
    return [SkeletonPart(shown=shown, steps=steps) for shown, steps in parts]


def _groups(run: RunProfile, route: Sequence[str]) -> tuple[tuple[int, ...], ...]:
    """The concurrent groups of `run`, whose route is `route` (none without its shape)."""
    if run.shape is None or tuple(run.route) != tuple(route) or len(run.shape.group) != len(route):
        return ()
    return run.shape.groups()


def _placed(run: RunProfile, step: int) -> int:
    """The 1-based route position `step` of `run` as a place in the run as given (folded runs)."""
    return step if run.places is None else run.places[step - 1]


def _within(groups: Sequence[Sequence[int]], step: int) -> bool:
    """The 1-based `step` is a member (or under one) of a concurrent group."""
    return any(bounds[0] < step <= bounds[-1] for bounds in groups)
