"""The benchmark's synthetic pairs have the promised shape, and the benchmark script runs.

No timing is asserted here: speed is measured by `make bench` (benchmarks/bench_compare.py).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agentdiff import compare
from agentdiff.diff.normalize import Normalizer
from agentdiff.models.report import DiffReport, Op
from agentdiff.models.trace import AgentTrace, StepType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
N = 200


@pytest.fixture(scope="module")
def bench_modules() -> tuple[ModuleType, ModuleType]:
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(BENCHMARKS))
        import bench_compare
        import synthetic

    return synthetic, bench_compare


@pytest.fixture(scope="module")
def synthetic(bench_modules: tuple[ModuleType, ModuleType]) -> ModuleType:
    return bench_modules[0]


@pytest.fixture(scope="module")
def pair(synthetic: ModuleType) -> Any:
    return synthetic.make_pair(N, seed=7)


@pytest.fixture(scope="module")
def report(pair: Any) -> DiffReport:
    return compare(pair.baseline, pair.candidate)


def _args(trace: AgentTrace, step_id: str) -> Any:
    step = trace.step_map()[step_id]
    return Normalizer().normalize(step.input_payload, ("input_payload",))


def test_generation_is_deterministic(synthetic: ModuleType, pair: Any) -> None:
    again = synthetic.make_pair(N, seed=7)
    assert again.baseline == pair.baseline
    assert again.candidate == pair.candidate
    assert again.facts == pair.facts
    assert synthetic.make_pair(N, seed=8).baseline != pair.baseline


def test_baseline_has_the_requested_size_and_every_step_type(pair: Any) -> None:
    steps = pair.baseline.steps
    assert len(steps) == N
    assert {s.step_type for s in steps} == set(StepType)
    assert len({s.name for s in steps if s.step_type is StepType.TOOL_CALL}) >= 20
    assert all(
        s.tokens and s.tokens.total_tokens for s in steps if s.step_type is StepType.LLM_CALL
    )
    assert all(s.metadata and s.metadata["started_at"].endswith("Z") for s in steps)


@pytest.mark.parametrize("side", ["baseline", "candidate"])
def test_parents_exist_precede_their_children_and_branch(pair: Any, side: str) -> None:
    trace: AgentTrace = getattr(pair, side)
    index = {s.step_id: s.step_index for s in trace.steps}
    assert [s.step_index for s in trace.steps] == list(range(len(trace.steps)))
    for step in trace.steps:
        assert step.parent_id is None or index[step.parent_id] < step.step_index
    children = Counter(s.parent_id for s in trace.steps if s.parent_id)
    assert max(children.values()) >= 3  # branches, not just chains
    assert not trace.metadata or "warnings" not in trace.metadata


def test_candidate_derivation_matches_the_stated_shares(synthetic: ModuleType, pair: Any) -> None:
    facts = pair.facts
    tool_calls = sum(s.step_type is StepType.TOOL_CALL for s in pair.baseline.steps)
    assert len(facts.changed) == round(synthetic.CHANGED_ARGS * tool_calls)
    assert len(facts.deleted) == round(synthetic.DELETED * N)
    loop_extra = 2 * (synthetic.LOOP_LENGTH - 1)
    assert len(facts.inserted) >= round(synthetic.INSERTED * N) + loop_extra
    assert len(pair.candidate.steps) == N - len(facts.deleted) + len(facts.inserted)


def test_the_loop_is_one_call_repeated(synthetic: ModuleType, pair: Any) -> None:
    facts = pair.facts
    calls = [s.step_id for s in pair.candidate.steps if s.step_type is StepType.TOOL_CALL]
    start = calls.index(facts.loop[0])
    assert calls[start : start + synthetic.LOOP_LENGTH] == list(facts.loop)
    steps = pair.candidate.step_map()
    assert {steps[i].name for i in facts.loop} == {facts.loop_tool}
    assert len({repr(_args(pair.candidate, i)) for i in facts.loop}) == 1
    assert len({steps[i].input_payload["request_id"] for i in facts.loop}) == len(facts.loop)


def test_compare_finds_the_loop_and_fails_the_gate(pair: Any, report: DiffReport) -> None:
    new = [loop for loop in report.loops if loop.new]
    assert len(new) == 1
    assert new[0].names == [pair.facts.loop_tool]
    assert new[0].repetitions == len(pair.facts.loop)
    assert new[0].step_ids == list(pair.facts.loop)
    assert not report.gate.passed


def test_compare_reports_changes_inserts_and_deletes(pair: Any, report: DiffReport) -> None:
    ops = Counter(e.op for e in report.alignment)
    changed = {
        e.candidate.step_id
        for e in report.alignment
        if e.op is Op.CHANGE and e.candidate and any(c.kind == "argument" for c in e.changes)
    }
    assert set(pair.facts.changed) <= changed
    assert abs(ops[Op.INSERT] - len(pair.facts.inserted)) <= max(2, len(pair.facts.inserted) // 5)
    assert abs(ops[Op.DELETE] - len(pair.facts.deleted)) <= max(2, len(pair.facts.deleted) // 5)
    assert 0 < report.divergence < 0.2
    assert report.content_changes > 0


def test_yardstick_document_has_only_its_step_types(
    bench_modules: tuple[ModuleType, ModuleType], pair: Any
) -> None:
    document = bench_modules[1].yardstick_document(pair.candidate)
    types = {s["step_type"] for s in document["steps"]}
    assert types == {"tool_call", "llm_call", "routing", "thought"}
    assert all(v is not None for s in document["steps"] for v in s.values())


def test_quick_benchmark_run_writes_its_table(
    bench_modules: tuple[ModuleType, ModuleType], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.md"
    bench = bench_modules[1]
    assert bench.main(["--quick", "--sizes", "200,400", "--output", str(out)]) == 0
    text = out.read_text()
    assert "| 200 |" in text
    assert "| 400 |" in text
    assert "new loops" in text
    assert text in capsys.readouterr().out


def test_reference_engine_runs_from_history_back_to_back(
    bench_modules: tuple[ModuleType, ModuleType], pair: Any, tmp_path: Path
) -> None:
    bench = bench_modules[1]
    paths = bench.write_pair(pair, tmp_path / "pair")
    ref = bench._measure_reference("HEAD", paths, tmp_path)
    assert ref.skipped is None, ref.skipped
    assert len(ref.compare_runs) == len(ref.ours) == len(ref.ratios) == bench.REFERENCE_ROUNDS
    assert all(r > 0 for r in ref.ratios)
    assert (tmp_path / "reference-HEAD" / "src" / "agentdiff" / "diff" / "compare.py").is_file()
    row = bench.Row(200, 200, [0.1], 1.0, [0.2], 10.0, {}, reference=ref)
    (line,) = bench._reference_lines([row])
    assert "commit HEAD" in line
    assert "ours / reference" in line


def test_reference_engine_of_an_unknown_commit_is_skipped_with_the_reason(
    bench_modules: tuple[ModuleType, ModuleType], pair: Any, tmp_path: Path
) -> None:
    bench = bench_modules[1]
    ref = bench._measure_reference("no-such-commit", (tmp_path, tmp_path), tmp_path)
    assert ref.skipped is not None
    assert "git archive no-such-commit failed" in ref.skipped


def test_target_lines_judge_the_cli_against_both_issues(
    bench_modules: tuple[ModuleType, ModuleType],
) -> None:
    bench = bench_modules[1]
    row = bench.Row(100_000, 103_010, [1.9], 97.0, [4.39], 872.0, {})
    lines = bench._target_lines([row])
    assert "- N=100,000 `compare()` < 2 s: 1.90 s — PASS" in lines
    assert "- N=100,000 `agentdiff compare --format json` < 6 s: 4.39 s — PASS" in lines
    assert "- N=100,000 `agentdiff compare --format json` ≤ 3 s (issue 13): 4.39 s — **FAIL**" in (
        lines
    )


@pytest.fixture(scope="module")
def shapes() -> ModuleType:
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(BENCHMARKS))
        import bench_shapes

    return bench_shapes


def _calls(trace: AgentTrace) -> list[tuple[str, Any]]:
    return [(s.name, s.input_payload["q"]) for s in trace.steps]


def test_the_hard_shapes_are_the_same_calls_in_another_order(shapes: ModuleType) -> None:
    base, shuffled = shapes.make_shape(300, "shuffled")
    assert sorted(_calls(base)) == sorted(_calls(shuffled)) != _calls(base)
    assert max(Counter(_calls(base)).values()) > 1  # no call is unique: no anchor to cut at
    _, reversed_ = shapes.make_shape(300, "reversed")
    assert _calls(reversed_) == _calls(base)[::-1]
    _, renamed = shapes.make_shape(300, "renamed")
    assert compare(base, renamed).divergence == 1.0
    _, same = shapes.make_shape(300, "identical")
    assert compare(base, same).divergence == 0.0


def test_the_shapes_benchmark_runs(
    shapes: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.argv", ["bench_shapes", "--sizes", "100,200", "--repeats", "1"])
    shapes.main()
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + 2 * len(shapes.SHAPES)  # the header, then a row per size and shape
    assert rows[2].startswith("| shuffled | 200 |")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak RSS read on Linux")
def test_a_measured_run_counts_its_own_memory_not_the_benchmarks() -> None:
    """A run started by a benchmark holding ~300 MB is measured at its own few MB."""
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(BENCHMARKS))
        from measured import run_measured

    held = b"x" * (300 * 1024 * 1024)  # touched: it is resident
    elapsed, rss, code = run_measured(["sh", "-c", "exit 1"])
    assert held
    assert (code, elapsed > 0) == (1, True)
    assert rss < 100, f"the run was measured at {rss:.0f} MiB: the benchmark's memory counted"
