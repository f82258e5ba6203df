"""Route distance: the formula the issue fixes, checked against a plain LCS."""

from __future__ import annotations

import shutil

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentdiff import AgentTrace, CompareOptions
from agentdiff.loader import load_trace
from agentdiff.suite import RunSet, SuiteOptions, run_suite
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


def _parallel(first: str, second: str, prefix: str) -> AgentTrace:
    from tests.diff.builders import step, trace

    return trace(
        [
            step(0, "llm_call", "plan", prefix=prefix),
            step(1, "tool_call", first, parent=0, prefix=prefix, input_payload={"q": 1}),
            step(2, "tool_call", second, parent=0, prefix=prefix, input_payload={"q": 2}),
            step(3, "llm_call", "plan", prefix=prefix),
            step(4, "tool_call", "search", parent=3, prefix=prefix, input_payload={"q": 3}),
            step(5, "response", "answer", prefix=prefix),
        ],
        trace_id=prefix,
    )


@pytest.mark.parametrize("strict", [False, True])
def test_suite_routes_are_route_of_each_run(tmp_path, fixture_suite, strict):
    """The suite reads routes off the sides compare() prepared: the same as `route_of`."""
    base_root, cand_root = fixture_suite
    # plus parallel calls issued in another order than the canonical one, on both sides
    made = (_parallel("search", "lookup", "b"), _parallel("lookup", "fetch", "c"))
    for root, run in zip((base_root, cand_root), made, strict=True):
        shutil.copytree(root, tmp_path / root.name)
        path = tmp_path / root.name / "made" / "parallel.json"
        path.parent.mkdir()
        path.write_bytes(orjson.dumps(run.model_dump(mode="json")))
    sets = [RunSet.from_dir(tmp_path / r.name, layout="files") for r in fixture_suite]
    options = SuiteOptions(
        backend="in-process",
        results=str(tmp_path / "results"),
        compare=CompareOptions(strict_tool_signatures=strict),
    )
    report = run_suite(*sets, options)
    saved_runs = (tmp_path / "results" / "runs.jsonl").read_bytes().splitlines()
    runs = [orjson.loads(line) for line in saved_runs]
    checked = 0
    for row in report.scenarios:
        for pair in row.pairs:
            routes = {
                side: route_of(load_trace(tmp_path / side / where.source), strict=strict)
                for side, where in (("baseline", pair.baseline), ("candidate", pair.candidate))
            }
            assert pair.route_distance == route_distance(routes["baseline"], routes["candidate"])
            for side, route in routes.items():
                (saved,) = [r for r in runs if r["scenario"] == row.scenario and r["side"] == side]
                assert saved["route_id"] == route_id(route), (row.scenario, side)
                assert saved["route_length"] == len(route)
            checked += 1
    assert checked >= 36
    made_pair = next(row for row in report.scenarios if row.scenario == "made/parallel").pair
    assert made_pair.route_distance > 0  # `fetch` for `search`: the routes differ
