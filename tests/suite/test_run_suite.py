"""run_suite on the real-fixture suite: verdicts, edge rows, overrides, multi-run, backends."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from agentdiff import CompareOptions, compare, load_trace
from agentdiff.gate import GateThresholds
from agentdiff.suite import RunSet, ScenarioOverride, SuiteOptions, run_suite
from agentdiff.suite.columns import TABLES
from tests.realdata import SCENARIOS


@pytest.fixture(scope="module")
def report(fixture_sets):
    return run_suite(*fixture_sets, SuiteOptions(backend="in-process"))


def test_every_pair_is_what_compare_says(report, fixture_suite):
    base, cand = fixture_suite
    for row in report.scenarios:
        if row.verdict not in ("pass", "regressed"):
            continue
        pair = row.pair
        direct = compare(
            load_trace(base / pair.baseline.source), load_trace(cand / pair.candidate.source)
        )
        assert pair.divergence == direct.divergence, row.scenario
        assert pair.passed == direct.passed
        assert [v.message for v in pair.violations] == [v.message for v in direct.gate.violations]
        assert row.verdict == ("pass" if direct.passed else "regressed")
        assert pair.ops.insert == sum(e.op.value == "insert" for e in direct.alignment)


def test_verdicts_of_the_real_scenarios(report):
    rows = {row.scenario: row for row in report.scenarios}
    assert list(rows) == sorted(rows)
    for source in ("crewai", "langfuse", "openinference"):
        assert rows[f"{source}/identical"].verdict == "pass"
        assert rows[f"{source}/identical"].pair.divergence == 0.0
        loop = rows[f"{source}/loop"]
        assert loop.verdict == "regressed"
        assert "loop" in {v.rule for v in loop.pair.violations}
        assert loop.pair.new_loops and "×" in loop.pair.new_loops[0]
        detour = rows[f"{source}/detour"].pair
        assert detour.first_divergence is not None and detour.first_divergence.op == "insert"
    assert len(rows) == 7 * len(SCENARIOS) + 3


def test_one_sided_and_broken_scenarios_are_listed(report):
    added, removed, broken = (report.scenario(f"extra/{k}") for k in ("added", "removed", "broken"))
    assert (added.verdict, added.baseline_runs, added.candidate_runs) == ("added", 0, 1)
    assert removed.verdict == "error"
    assert "no candidate run" in removed.errors[0].message
    assert broken.verdict == "error"
    assert broken.errors[0].side == "candidate"
    assert "broken.json" in broken.errors[0].message and "invalid JSON" in broken.errors[0].message
    counts = report.counts
    assert counts.errors == 2 and counts.added == 1 and counts.removed == 0
    assert counts.passed + counts.regressed + 3 == counts.scenarios
    assert report.exit_code == 1 and not report.passed


def test_allow_missing_and_only(fixture_sets):
    options = SuiteOptions(backend="in-process", allow_missing=True, only=("extra/*",))
    done = run_suite(*fixture_sets, options)
    assert [r.scenario for r in done.scenarios] == ["extra/added", "extra/broken", "extra/removed"]
    assert done.scenario("extra/removed").verdict == "removed"
    assert done.exit_code == 2  # the broken file is still an error
    assert done.only == ["extra/*"]


def test_overrides_change_the_verdict_of_matching_scenarios_only(fixture_sets):
    loose = {"allow_loops": True, "max_token_increase": None, "max_cost_increase": None}
    options = SuiteOptions(
        backend="in-process",
        only=("*/loop",),
        overrides=(ScenarioOverride(match="langfuse/*", settings=loose),),
    )
    done = run_suite(*fixture_sets, options)
    rows = {r.scenario: r for r in done.scenarios}
    assert rows["langfuse/loop"].verdict == "pass"
    assert rows["langfuse/loop"].overrides == {**loose}
    assert rows["crewai/loop"].verdict == "regressed" and rows["crewai/loop"].overrides == {}
    assert done.scenario_overrides == [{"match": "langfuse/*", **loose}]


def test_thresholds_say_where_they_came_from(fixture_sets):
    options = SuiteOptions(
        backend="in-process",
        only=("crewai/identical",),
        compare=CompareOptions(gate=GateThresholds(max_divergence=0.2)),
        sources={"max_divergence": "flag --max-divergence"},
    )
    done = run_suite(*fixture_sets, options)
    found = {t.setting: (t.value, t.source) for t in done.thresholds}
    assert found["max_divergence"] == (0.2, "flag --max-divergence")
    assert found["max_cost_increase"] == (25.0, "default")


def test_fail_fast_stops_early(fixture_sets):
    options = SuiteOptions(backend="in-process", fail_fast=True, batch_seconds=1e-9)
    done = run_suite(*fixture_sets, options)
    assert done.counts.scenarios < 38
    assert done.timings["stopped_early"] is True
    assert done.unjudged == 38 - done.counts.scenarios  # the report says what it left out


def test_fail_fast_stops_at_the_first_failure_inside_a_batch(fixture_sets):
    """One batch of every scenario: judging stops at the first that errors or regresses."""
    options = SuiteOptions(backend="in-process", fail_fast=True, batch_seconds=1e9)
    done = run_suite(*fixture_sets, options)
    verdicts = [row.verdict for row in done.rows]
    assert verdicts[-1] in ("error", "regressed")
    assert all(v not in ("error", "regressed") for v in verdicts[:-1])
    assert done.unjudged == 38 - len(verdicts) > 0
    whole = run_suite(*fixture_sets, SuiteOptions(backend="in-process"))
    assert whole.unjudged == 0 and whole.counts.scenarios == 38


def test_multi_run_scenarios_compare_each_candidate_with_its_nearest_baseline(
    tmp_path, fixture_suite
):
    base_src, cand_src = (f / "openinference" for f in fixture_suite)
    base, cand = tmp_path / "b" / "weather", tmp_path / "c" / "weather"
    base.mkdir(parents=True)
    cand.mkdir(parents=True)
    # baseline: one normal run and one that loops; candidates: a loop and a detour
    shutil.copyfile(base_src / "identical.json", base / "r1.json")
    shutil.copyfile(cand_src / "loop.json", base / "r2.json")
    shutil.copyfile(cand_src / "loop.json", cand / "c1.json")
    shutil.copyfile(cand_src / "detour.json", cand / "c2.json")
    done = run_suite(RunSet.from_dir(tmp_path / "b"), RunSet.from_dir(tmp_path / "c"))
    row = done.scenario("weather")
    assert (row.baseline_runs, row.candidate_runs) == (2, 2)
    looped, detour = row.pairs
    assert (looped.candidate.run, looped.baseline.run) == ("c1", "r2")
    assert looped.route_distance == 0.0 and looped.passed  # the baseline loops too
    assert (detour.candidate.run, detour.baseline.run) == ("c2", "r1")
    assert row.deciding == 1  # the detour: the failing pair, or else the most divergent
    # several runs on a side: the N-vs-M statistics decide; 2 v 2 runs cannot reach p <= 0.05
    # and no candidate loop is new (the baseline loops too), so the scenario is inconclusive
    assert row.stats is not None
    assert not row.stats.invariants
    assert row.verdict == "inconclusive" == row.stats.verdict.value
    assert row.stats.needs is not None
    assert row.stats.needs.baseline > 2
    assert [n.baseline_run for n in row.stats.nearest] == ["r2", "r1"]  # the suite's own pairs
    assert done.counts.inconclusive == 1
    assert done.exit_code == 0


def test_pool_and_serial_write_identical_suite_json(fixture_sets, tmp_path):
    serial = run_suite(
        *fixture_sets, SuiteOptions(backend="in-process", results=str(tmp_path / "s"))
    )
    pool = run_suite(
        *fixture_sets,
        SuiteOptions(backend="pool", jobs=2, batch_seconds=0.01, results=str(tmp_path / "p")),
    )
    assert pool.timings["backend"] == "process-pool" and pool.timings["batches"] > 1
    for name in ("suite.json", "runs.jsonl", "pairs.jsonl", "steps.jsonl"):
        assert (tmp_path / "s" / name).read_bytes() == (tmp_path / "p" / name).read_bytes(), name
    assert serial.to_json() == pool.to_json()
    assert "wall_s" in orjson.loads((tmp_path / "p" / "timings.json").read_bytes())


def test_results_tables_hold_every_run_pair_and_step(fixture_sets, tmp_path):
    done = run_suite(*fixture_sets, SuiteOptions(backend="in-process", results=str(tmp_path)))
    tables = {
        name: [
            orjson.loads(line) for line in (tmp_path / f"{name}.jsonl").read_bytes().splitlines()
        ]
        for name in TABLES
    }
    for name, rows in tables.items():
        assert all(list(row) == [c for c, _ in TABLES[name]] for row in rows), name
    pairs = [p for row in done.scenarios for p in row.pairs]
    assert len(tables["pairs"]) == len(pairs)
    loaded = sum(row.baseline_runs + row.candidate_runs for row in done.scenarios)
    assert len([r for r in tables["runs"] if r["load_error"] is None]) == loaded
    # a run that could not be loaded has its row too: where it is and why, nothing read from it
    lost = [
        (e.side, row.scenario, e.run, e.source, e.message)
        for row in done.scenarios
        for e in row.errors
        if e.run is not None
    ]
    assert lost
    assert [
        (r["side"], r["scenario"], r["run_id"], r["source"], r["load_error"])
        for r in tables["runs"]
        if r["load_error"] is not None
    ] == lost
    assert all(
        r["steps"] is None and r["route_id"] is None for r in tables["runs"] if r["load_error"]
    )
    expected_steps = sum(sum(p.ops.model_dump().values()) for p in pairs)
    assert len(tables["steps"]) == expected_steps
    loop = next(p for p in tables["pairs"] if p["scenario"] == "crewai/loop")
    assert "loop" in loop["violated_rules"] and loop["new_loops"] >= 1
    assert not (tmp_path / ".parts").exists()
    assert done.timings["parquet"] == "duckdb"


def test_parquet_tables_carry_the_schema_version_and_query_works(fixture_sets, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    from agentdiff.suite import query_results

    run_suite(
        *fixture_sets, SuiteOptions(backend="in-process", only=("*/loop",), results=str(tmp_path))
    )
    con = duckdb.connect()
    meta = dict(
        con.execute(
            f"SELECT decode(key), decode(value) FROM parquet_kv_metadata('{tmp_path}/pairs.parquet')"
        ).fetchall()
    )
    assert meta["schema_version"] == "4" and meta["agentdiff_table"] == "pairs"
    names, rows, _ = query_results(
        tmp_path, "SELECT count(*) AS n, bool_and(NOT gate_passed) FROM pairs"
    )
    assert names[0] == "n" and rows == [(7, True)]
    names, rows, _ = query_results(
        tmp_path, "SELECT op, count(*) FROM steps WHERE op = 'insert' GROUP BY op"
    )
    assert rows and rows[0][1] > 0
    assert Path(tmp_path / "steps.parquet").stat().st_size > 0


def test_runs_table_counts_model_turns_beside_llm_calls(fixture_sets, tmp_path):
    """LangGraph and CrewAI model turns are not `llm_call` steps: `model_turns` counts them."""
    only = ("langgraph/*", "crewai/*")
    run_suite(*fixture_sets, SuiteOptions(backend="in-process", only=only, results=str(tmp_path)))
    rows = [orjson.loads(line) for line in (tmp_path / "runs.jsonl").read_bytes().splitlines()]
    assert {r["scenario"].split("/")[0] for r in rows} == {"langgraph", "crewai"}
    assert all(r["model_turns"] > 0 and r["llm_calls"] == 0 for r in rows)
    pytest.importorskip("duckdb")
    from agentdiff.suite import query_results

    sql = "SELECT min(model_turns), max(llm_calls), count(*) FROM runs"
    assert (tmp_path / "runs.parquet").is_file()
    for read in ("parquet", "jsonl"):  # the Parquet table, then (without it) the JSON Lines one
        _, got, _ = query_results(tmp_path, sql)
        assert got == [(min(r["model_turns"] for r in rows), 0, len(rows))], read
        (tmp_path / "runs.parquet").unlink(missing_ok=True)


def test_progress_is_reported_after_every_batch(fixture_sets):
    seen = []
    run_suite(
        *fixture_sets,
        SuiteOptions(backend="in-process", batch_seconds=1e-9),
        progress=lambda d, t: seen.append((d, t)),
    )
    assert seen == [(n, 38) for n in range(1, 39)]


def test_results_to_an_fsspec_url(fixture_sets):
    fsspec = pytest.importorskip("fsspec")
    done = run_suite(
        *fixture_sets,
        SuiteOptions(backend="in-process", only=("*/loop",), results="memory://results/run1"),
    )
    fs = fsspec.filesystem("memory")
    assert fs.cat("/results/run1/suite.json").decode() == done.to_json() + "\n"
    assert len(fs.cat("/results/run1/pairs.jsonl").splitlines()) == 7
    assert not fs.exists("/results/run1/.parts")
    assert done.timings["parquet"] == "skipped: remote folder"


def test_report_write_renders_every_format(fixture_sets, tmp_path):
    done = run_suite(*fixture_sets, SuiteOptions(backend="in-process", only=("crewai/*",)))
    written = done.write(tmp_path, formats=("markdown", "junit", "html", "terminal"))
    names = sorted(p.name for p in written)
    assert names == [
        "suite.html",
        "suite.json",
        "suite.junit.xml",
        "suite.md",
        "suite.txt",
        "timings.json",
    ]
    assert (tmp_path / "suite.json").read_text() == done.to_json() + "\n"
    assert (tmp_path / "suite.txt").read_text().startswith("2 passed · 3 regressed\n")


def test_hostile_scenario_names_stay_text_in_every_format(tmp_path, fixture_suite):
    from agentdiff.suite.render import render_suite

    base_src, cand_src = (f / "crewai" for f in fixture_suite)
    name = "evil\x1b[31m<img src=x onerror=alert(1)>|`@all"
    for side, src in (("b", base_src), ("c", cand_src)):
        (tmp_path / side).mkdir()
        shutil.copyfile(src / "loop.json", tmp_path / side / f"{name}.json")
    done = run_suite(RunSet.from_dir(tmp_path / "b"), RunSet.from_dir(tmp_path / "c"))
    assert done.scenarios[0].scenario == name  # the data keeps the name as it is
    terminal = render_suite(done, "terminal")
    assert "\x1b" not in terminal and "\\x1b[31m" in terminal
    assert "<img" not in render_suite(done, "html")
    markdown = render_suite(done, "markdown")
    assert "<img" not in markdown and "@all" not in markdown
    junit = render_suite(done, "junit")
    assert "\x1b" not in junit and "<img" not in junit
