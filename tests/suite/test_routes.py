"""Route distance: the formula the issue fixes, checked against a plain LCS."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentdiff.loader import load_trace
from agentdiff.suite.routes import nearest_run, route_distance, route_id, route_of
from tests.realdata import RealSource

routes = st.lists(st.sampled_from("abcde"), max_size=12)


def _lcs(a: list[str], b: list[str]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = (
                table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
            )
    return table[-1][-1]


@given(routes, routes)
def test_distance_is_one_minus_twice_lcs_over_lengths(a, b):
    expected = 0.0 if not a and not b else 1 - 2 * _lcs(a, b) / (len(a) + len(b))
    assert abs(route_distance(a, b) - expected) < 1e-12
    assert route_distance(a, b) == route_distance(b, a)
    assert route_distance(a, a) == 0.0


def test_nearest_run_prefers_the_closest_and_the_first_on_ties():
    assert nearest_run(list("abcd"), [list("xyz"), list("abce"), list("abcd")]) == 2
    assert nearest_run(list("ab"), [list("ac"), list("ad")]) == 0


def test_routes_of_real_runs_match_the_engine_divergence_on_a_detour():
    from agentdiff import compare

    source = RealSource("openai_agents")
    base = load_trace(source.path("export", "detour", "baseline"))
    cand = load_trace(source.path("export", "detour", "candidate"))
    a, b = route_of(base), route_of(cand)
    assert len(a) == len(base.steps) and len(b) == len(cand.steps)
    # the detour adds steps only: the engine's divergence counts the same LCS
    assert abs(route_distance(a, b) - compare(base, cand).divergence) < 1e-9
    assert route_id(a) == route_id(list(a)) != route_id(b)


def test_parallel_calls_finishing_in_another_order_keep_the_route():
    from tests.diff.builders import step, trace

    def run(first: str, second: str) -> list[str]:
        return route_of(
            trace(
                [
                    step(0, "llm_call", "plan"),
                    step(1, "tool_call", first, parent=0, input_payload={"q": 1}),
                    step(2, "tool_call", second, parent=0, input_payload={"q": 2}),
                    step(3, "response", "answer"),
                ]
            )
        )

    a, b = run("search", "lookup"), run("lookup", "search")
    assert a == b  # the concurrent calls of one turn in canonical order
    assert route_distance(a, b) == 0.0 and route_id(a) == route_id(b)
    assert len(a) == 4
