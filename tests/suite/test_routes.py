"""Route distance: the formula the issue fixes, checked against a plain LCS."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentdiff import AgentTrace, CompareOptions
from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.order import prepare
from agentdiff.diff.signatures import Signer
from agentdiff.loader import load_trace
from agentdiff.suite import RunSet, SuiteOptions, run_suite
from agentdiff.suite.routes import (
    nearest_run,
    route_distance,
    route_from_refs,
    route_id,
    route_of,
    side_route,
)
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


def test_multi_run_pairs_take_the_nearest_baseline_run_by_route(tmp_path):
    """Distances are computed once per pair of distinct routes: the same picks and distances
    as `nearest_run` / `route_distance` on every run's own route (runs sharing routes too)."""
    pool = Path(__file__).resolve().parents[1] / "fixtures" / "runs_pool"
    base_files = sorted((pool / "baseline").iterdir())[:8]
    picked = {
        "loop": sorted((pool / "loop").iterdir())[:5],
        "cost": sorted((pool / "cost").iterdir())[:4] + base_files[:2],  # shared routes
    }
    for scenario, cand_files in picked.items():
        for side, files in (("baseline", base_files + base_files[:2]), ("candidate", cand_files)):
            folder = tmp_path / side / scenario
            folder.mkdir(parents=True)
            for k, path in enumerate(files):
                shutil.copy(path, folder / f"{k:02d}-{path.name}")
    sets = [RunSet.from_dir(tmp_path / side) for side in ("baseline", "candidate")]
    report = run_suite(*sets, SuiteOptions(backend="in-process"))
    checked = 0
    for row in report.scenarios:
        folder = {side: tmp_path / side / row.scenario for side in ("baseline", "candidate")}
        base_runs = sorted(folder["baseline"].iterdir())
        base_routes = [route_of(load_trace(p)) for p in base_runs]
        assert len({tuple(r) for r in base_routes}) < len(base_routes)  # some share a route
        for pair in row.pairs:
            cand_route = route_of(load_trace(tmp_path / "candidate" / pair.candidate.source))
            nearest = base_runs[nearest_run(cand_route, base_routes)]
            assert pair.baseline.source == f"{row.scenario}/{nearest.name}", pair.candidate.run
            base_route = base_routes[base_runs.index(nearest)]
            assert pair.route_distance == route_distance(base_route, cand_route)
            checked += 1
    assert checked == 11


@pytest.mark.parametrize("strict", [False, True])
def test_route_from_refs_and_side_route_agree_on_real_runs(strict):
    reference = Path(__file__).resolve().parents[1] / "fixtures" / "reference"
    paths = sorted(reference.glob("*/*/baseline.json")) + sorted(
        reference.glob("*/*/candidate.json")
    )
    assert len(paths) >= 10
    with_keys = 0
    for path in paths:
        trace = load_trace(path)
        side = prepare(trace, Signer(Normalizer(()), strict=strict))
        order = range(len(side.steps)) if side.canon is None else side.canon
        refs = [side.refs[i] for i in order]
        by_id = {step.step_id: step for step in trace.steps}
        route = side_route(side, strict=strict)
        assert (
            route_from_refs(refs, by_id, strict=strict) == route == route_of(trace, strict=strict)
        )
        assert route == [f"{r.step_type.value}\x1f{r.name}" for r in refs] or strict
        with_keys += any(label.count("\x1f") == 2 for label in route)
    assert bool(with_keys) == strict  # strict labels carry the sorted input keys
