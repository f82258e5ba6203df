"""Route encoding, average linkage against a naive implementation, clustering, skeletons, trie."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentdiff.config import SETTINGS
from agentdiff.errors import ConfigError
from agentdiff.routes import cluster_routes, route_id, route_of
from agentdiff.routes.cluster import LINKAGE_LIMIT, cluster_encoded, encode_runs
from agentdiff.routes.encode import RouteCodec
from agentdiff.routes.linkage import average_linkage, leader_clusters
from agentdiff.routes.skeleton import first_departure, skeleton
from agentdiff.routes.trie import route_trie
from tests.diff.builders import step, trace

PLAN_A = [
    "llm_call\x1fplan",
    "tool_call\x1flookup_order",
    "tool_call\x1frefund_payment",
    "response\x1fanswer",
]
PLAN_B = [
    "llm_call\x1fplan",
    "tool_call\x1fsearch_kb",
    "tool_call\x1flookup_order",
    "tool_call\x1fescalate",
    "response\x1fanswer",
    "response\x1fsurvey",
]


def _naive_average(
    matrix: list[list[float]], weights: list[int], threshold: float
) -> list[set[int]]:
    clusters = [{i} for i in range(len(matrix))]

    def link(a: set[int], b: set[int]) -> float:
        total = sum(weights[i] * weights[j] * matrix[i][j] for i in a for j in b)
        return total / (sum(weights[i] for i in a) * sum(weights[j] for j in b))

    while len(clusters) > 1:
        best = min(
            (
                (link(a, b), i, j)
                for i, a in enumerate(clusters)
                for j, b in enumerate(clusters)
                if i < j
            ),
        )
        if best[0] > threshold:
            break
        _, i, j = best
        clusters[i] |= clusters.pop(j)
    return clusters


def _groups(labels: list[int]) -> list[set[int]]:
    out: dict[int, set[int]] = {}
    for i, label in enumerate(labels):
        out.setdefault(label, set()).add(i)
    return sorted(out.values(), key=min)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 18), st.integers(0, 10_000), st.sampled_from([0.1, 0.2, 0.35]))
def test_average_linkage_matches_naive_upgma(n: int, seed: int, threshold: float) -> None:
    rng = random.Random(seed)
    points = [(rng.random(), rng.random()) for _ in range(n)]
    matrix = [[round(abs(a[0] - b[0]) + abs(a[1] - b[1]), 6) for b in points] for a in points]
    weights = [rng.randint(1, 5) for _ in range(n)]
    ours = _groups(average_linkage(matrix, weights, threshold))
    assert ours == sorted(_naive_average(matrix, weights, threshold), key=min)


def _noisy_runs(count: int, seed: int) -> tuple[list[list[str]], list[str]]:
    rng = random.Random(seed)
    runs, truth = [], []
    for _ in range(count):
        plan = "A" if rng.random() < 0.6 else "B"
        route = list(PLAN_A if plan == "A" else PLAN_B)
        if rng.random() < 0.2:
            route.insert(2, "tool_call\x1fcheck_stock")
        runs.append(route)
        truth.append(plan)
    return runs, truth


def test_clusters_recover_two_planted_plans() -> None:
    runs, truth = _noisy_runs(60, 1)
    routes = cluster_routes(runs, threshold=0.2)
    assert len(routes.clusters) == 2
    for cluster in routes.clusters:
        assert len({truth[i] for i in cluster.runs}) == 1
    assert {tuple(c.medoid) for c in routes.clusters} == {tuple(PLAN_A), tuple(PLAN_B)}
    assert routes.clusters[0].name == "R1"
    assert len(routes.clusters[0].runs) >= len(routes.clusters[1].runs)


def test_clustering_is_deterministic_and_input_order_free() -> None:
    runs, _ = _noisy_runs(50, 2)
    one = cluster_routes(runs)
    order = list(range(len(runs)))
    random.Random(9).shuffle(order)
    two = cluster_routes([runs[i] for i in order])
    as_sets = lambda m, idx: sorted(sorted(idx[i] for i in c.runs) for c in m.clusters)  # noqa: E731
    assert as_sets(one, list(range(len(runs)))) == as_sets(two, order)
    assert [c.medoid_id for c in one.clusters] == [c.medoid_id for c in two.clusters]


def test_leader_clustering_above_the_linkage_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    runs, truth = _noisy_runs(80, 3)
    monkeypatch.setattr("agentdiff.routes.cluster.LINKAGE_LIMIT", 1)
    routes = cluster_routes(runs)
    assert routes.method == "leader"
    assert len(routes.clusters) == 2
    for cluster in routes.clusters:
        assert len({truth[i] for i in cluster.runs}) == 1
    assert LINKAGE_LIMIT == 1500


def test_leader_joins_the_nearest_leader_within_threshold() -> None:
    codec = RouteCodec()
    routes = [codec.encode(r) for r in (PLAN_A, PLAN_B, [*PLAN_A, "response\x1fsurvey"])]
    assert leader_clusters(routes, 0.2) == [0, 1, 0]


def test_concurrent_calls_in_another_order_are_the_same_route() -> None:
    def run(first: str, second: str) -> object:
        return trace(
            [
                step(0, "llm_call", "plan"),
                step(1, "tool_call", first, 0, input_payload={"q": first}),
                step(2, "tool_call", second, 0, input_payload={"q": second}),
                step(3, "response", "answer"),
            ]
        )

    a, b = run("weather", "news"), run("news", "weather")
    assert route_of(a) == route_of(b)
    assert route_id(route_of(a)) == route_id(route_of(b))
    assert route_of(a)[1:3] == ["tool_call\x1fnews", "tool_call\x1fweather"]
    routes = cluster_routes([a, b])
    assert len(routes.clusters) == 1
    assert routes.clusters[0].variants == 1


def test_strict_routes_include_input_keys() -> None:
    run = trace([step(0, "tool_call", "lookup", input_payload={"id": 1, "b": 2})])
    assert route_of(run, strict=True) == ["tool_call\x1flookup\x1fb,id"]


def test_skeleton_folds_repeats_and_departure_names_the_step() -> None:
    looped = [
        "llm_call\x1fplan",
        *["tool_call\x1flookup_order"] * 3,
        "tool_call\x1fescalate",
        "response\x1fanswer",
    ]
    assert skeleton(looped) == "plan → lookup_order ×3 → escalate → answer"
    departure = first_departure(PLAN_A, looped)
    assert departure is not None
    assert departure.step == 3
    assert departure.here == "lookup_order"
    assert departure.extra_steps == 2
    assert first_departure(PLAN_A, PLAN_A) is None


def test_route_trie_counts_each_side_at_every_branch() -> None:
    trie = route_trie(
        [PLAN_A, PLAN_B], [{"baseline": 7, "candidate": 2}, {"baseline": 3, "candidate": 8}]
    )
    assert trie.counts == {"baseline": 10, "candidate": 10}
    (plan,) = trie.children
    assert plan.step == "plan"
    assert [c.step for c in plan.children] == ["search_kb", "lookup_order"]
    assert plan.children[0].counts == {"baseline": 3, "candidate": 8}


def test_encoding_many_runs_keeps_exact_variants_once() -> None:
    runs, _ = _noisy_runs(200, 4)
    codec, encoded = encode_runs(runs)
    routes = cluster_encoded(codec, encoded, 0.2)
    assert len(routes.encoded) == len(set(encoded)) <= 4
    assert len(routes.cluster_of) == 200
    assert routes.route(routes.variant_of[0]) == runs[0]


def test_codec_ids_and_decoding_match_the_label_definitions() -> None:
    codec = RouteCodec()
    for route in (PLAN_A, PLAN_B, [], ["tool_call\x1fx"] * 3):
        encoded = codec.encode(route)
        assert codec.route_id(encoded) == route_id(route)
        assert codec.decode(encoded) == list(route)


def test_a_codec_given_every_label_codes_them_in_label_order() -> None:
    labels = ["tool_call\x1fzeta", "llm_call\x1fplan", "tool_call\x1fälpha", "response\x1fanswer"]
    codec = RouteCodec(labels)
    assert codec.labels == sorted(labels)
    assert codec.ordered
    routes = [PLAN_A, PLAN_B, PLAN_A[:2], [labels[2], labels[0]], [labels[0]], []]
    for route in routes:
        codec.encode(route)
    assert not codec.ordered  # the PLAN_* labels came later, coded after the first four
    assert sorted(routes, key=RouteCodec(labels).encode) == sorted(routes)
    late = RouteCodec()
    assert late.encode(["tool_call\x1fz"]) < late.encode(["tool_call\x1fa"])  # first seen
    unordered = RouteCodec()
    for label in sorted({*PLAN_A, *PLAN_B}, reverse=True):
        unordered.encode([label])
    assert not unordered.ordered
    together = RouteCodec([*PLAN_A, *PLAN_B])
    assert sorted([PLAN_A, PLAN_B, PLAN_A[:3]], key=together.encode) == sorted(
        [PLAN_A, PLAN_B, PLAN_A[:3]]
    )


def test_codec_ids_of_non_ascii_labels_and_many_codes() -> None:
    labels = [f"tool_call\x1fwerkzeug_{i}_é" for i in range(0xD800 + 10)][-300:]
    codec = RouteCodec(labels)
    route = [labels[5], labels[299], labels[5], "response\x1fänswer"]
    encoded = codec.encode(route)
    assert codec.route_id(encoded) == route_id(route)
    assert codec.decode(encoded) == route


def test_routes_with_equal_counts_are_ordered_by_their_labels() -> None:
    runs = [PLAN_B, PLAN_A, [*PLAN_A, "response\x1fsurvey"], PLAN_B, PLAN_A[:3]]
    routes = cluster_routes(runs, threshold=0.0)
    ordered = [routes.route(v) for v in range(len(routes.encoded))]
    assert ordered == [PLAN_B, *sorted([PLAN_A, [*PLAN_A, "response\x1fsurvey"], PLAN_A[:3]])]


def test_any_codec_gives_the_map_of_an_ordered_one() -> None:
    runs, _ = _noisy_runs(120, 6)
    reference = cluster_routes(runs)
    shuffled = sorted({label for run in runs for label in run}, reverse=True)
    codec = RouteCodec()
    codec.encode(shuffled)
    assert not codec.ordered
    routes = cluster_encoded(codec, [codec.encode(run) for run in runs], 0.2)
    assert [c.runs for c in routes.clusters] == [c.runs for c in reference.clusters]
    assert [c.medoid for c in routes.clusters] == [c.medoid for c in reference.clusters]
    assert [routes.route(v) for v in range(len(routes.encoded))] == [
        reference.route(v) for v in range(len(reference.encoded))
    ]
    assert routes.route_ids == reference.route_ids == [route_id(run) for run in runs]


def test_leader_clustering_is_input_order_free(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agentdiff.routes.cluster.LINKAGE_LIMIT", 1)
    rng = random.Random(11)
    names = [f"tool_call\x1ft{i}" for i in range(12)]
    runs = [[rng.choice(names) for _ in range(rng.randint(3, 8))] for _ in range(300)]
    order = list(range(len(runs)))
    rng.shuffle(order)
    one, two = cluster_routes(runs, 0.4), cluster_routes([runs[i] for i in order], 0.4)
    assert one.method == two.method == "leader"
    assert len(one.clusters) > 5
    as_sets = lambda m, idx: sorted(sorted(idx[i] for i in c.runs) for c in m.clusters)  # noqa: E731
    assert as_sets(one, list(range(len(runs)))) == as_sets(two, order)
    assert [c.medoid for c in one.clusters] == [c.medoid for c in two.clusters]
    assert [c.medoid_run for c in one.clusters] == [
        min(r for r in c.runs if runs[r] == c.medoid) for c in one.clusters
    ]


@pytest.mark.parametrize("threshold", [5, -1, 1.5, float("nan")])
def test_a_threshold_outside_zero_to_one_is_refused(threshold: float) -> None:
    # the CLI checks --threshold by [stats] route_threshold; the function took any float
    with pytest.raises(ConfigError, match="threshold must be a number from 0 to 1, got"):
        cluster_routes([["a", "b"], ["a", "c"]], threshold)


@pytest.mark.parametrize("threshold", [True, False, "0.5", "1", None])
def test_a_threshold_of_another_type_is_refused_naming_it(threshold: object) -> None:
    """A bool or a numeric string is no threshold (pydantic read True as 1.0, "0.5" as 0.5).

    The range is said in the words of the [stats] route_threshold setting (one place).
    """
    (setting,) = [s for s in SETTINGS if s.name == "route_threshold"]
    with pytest.raises(ValueError) as caught:
        cluster_routes([["a", "b"], ["a", "c"]], threshold)  # type: ignore[arg-type]
    assert isinstance(caught.value, ConfigError)
    expected = f"arguments: threshold must be {setting.kind.expected}, got {threshold!r}"
    assert str(caught.value) == expected


@pytest.mark.parametrize("threshold", [0, 1, 0.5])
def test_thresholds_zero_to_one_are_kept(threshold: float) -> None:
    assert cluster_routes([["a", "b"], ["a", "c"]], threshold).threshold == threshold
