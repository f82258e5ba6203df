"""`compare_prepared` (sides prepared once, one Signer for many pairs) gives what `compare` gives.

Every real captured pair of every source and shape, each compared both ways, with runs
prepared by one shared Signer across all pairs of a source (as a scenario's runs are), plain,
with strict tool signatures and with ignore patterns; and the real runs pool, every baseline run
against every candidate run through `PairComparer`.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from agentdiff import compare
from agentdiff.diff.compare import compare_prepared, passes_gate_prepared
from agentdiff.diff.options import CompareOptions
from agentdiff.scenario.folders import runs_in
from agentdiff.scenario.pairs import PairComparer
from tests.builds import pure_only
from tests.realdata import load, real_pairs

POOL = Path(__file__).resolve().parents[1] / "fixtures" / "runs_pool"
OPTIONS = {
    "plain": CompareOptions(),
    "strict": CompareOptions(strict_tool_signatures=True),
    "ignore": CompareOptions(ignore=("input_payload.*.query",), detect_loops=False),
}


def _same(a, b) -> None:
    assert a.model_dump(mode="json") == b.model_dump(mode="json")


def _same_but_findings(lean, full) -> None:
    """A `PairComparer` report: `compare()`'s, except that its findings are not built."""
    lean_dump, full_dump = lean.model_dump(mode="json"), full.model_dump(mode="json")
    assert lean_dump.pop("findings") == []
    full_dump.pop("findings")
    assert lean_dump == full_dump
    # the traces stay attached (a results folder's `steps` rows read them)
    assert lean.baseline_trace is full.baseline_trace
    assert lean.candidate_trace is full.candidate_trace


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_every_real_pair_compares_the_same_prepared(name: str) -> None:
    options = OPTIONS[name]
    comparer = PairComparer(options)  # one Signer for every run of every pair
    pairs = real_pairs()
    assert pairs
    for pair in pairs:
        base, cand = load(pair.baseline), load(pair.candidate)
        _same_but_findings(
            comparer.compare(base, cand, findings=False), compare(base, cand, options=options)
        )
        _same_but_findings(
            comparer.compare(cand, base, findings=False), compare(cand, base, options=options)
        )
        sides = comparer.side(base), comparer.side(cand)
        full = compare_prepared(base, cand, sides, options)
        _same(full, compare(base, cand, options=options))  # findings and all
        _same(comparer.compare(base, cand, findings=True), full)


def test_pool_runs_compare_the_same_through_one_comparer() -> None:
    base = [t for _, t in runs_in(POOL / "baseline")][:6]
    cand = [t for _, t in runs_in(POOL / "loop")][:6]
    comparer = PairComparer(CompareOptions())
    for b, c in itertools.product(base, cand):
        _same_but_findings(comparer.compare(b, c, findings=False), compare(b, c))
    assert len(comparer._sides) == 12  # each run prepared once


def test_folding_is_compared_the_plain_way() -> None:
    folded = CompareOptions(fold_framework_steps=True)
    (pair, *_) = real_pairs("identical")
    base, cand = load(pair.baseline), load(pair.candidate)
    _same(
        PairComparer(folded).compare(base, cand, findings=True), compare(base, cand, options=folded)
    )
    lean = PairComparer(folded).compare(base, cand, findings=False)
    _same_but_findings(lean, compare(base, cand, options=folded))
    comparer = PairComparer(CompareOptions())
    sides = comparer.side(base), comparer.side(cand)
    with pytest.raises(ValueError, match="fold_framework_steps"):
        compare_prepared(base, cand, sides, folded)
    with pytest.raises(ValueError, match="fold_framework_steps off"):  # `given`: folded sides
        compare_prepared(base, cand, sides, CompareOptions(), given=(base, cand))


@pure_only
def test_each_side_is_summarized_once_per_trace_and_price_table(monkeypatch) -> None:
    from agentdiff.diff import totals

    summarized: list[str] = []
    real = totals.side_totals

    def counting(trace, side, prices, attempts):
        summarized.append(trace.trace_id)
        return real(trace, side, prices, attempts)

    monkeypatch.setattr(totals, "side_totals", counting)
    base = [t for _, t in runs_in(POOL / "baseline")][:3]
    cand = [t for _, t in runs_in(POOL / "cost")][:3]
    comparer = PairComparer(CompareOptions())
    reports = [comparer.compare(b, c, findings=False) for b, c in itertools.product(base, cand)]
    assert sorted(summarized) == sorted(t.trace_id for t in base + cand)  # 6, not 18
    assert reports[0].baseline is reports[1].baseline  # the same frozen Summary, shared
    for report, (b, c) in zip(reports, itertools.product(base, cand), strict=True):
        _same_but_findings(report, compare(b, c))
    price = {"input_per_million": 1000.0, "output_per_million": 1000.0}
    priced = CompareOptions(prices={"gpt": price})
    side_b, side_c = comparer.side(base[0]), comparer.side(cand[0])
    before = len(summarized)
    again = compare_prepared(base[0], cand[0], (side_b, side_c), priced)
    assert len(summarized) == before + 2  # another price table: both summarized again
    _same(again, compare(base[0], cand[0], options=priced))


@pure_only
def test_each_side_s_loops_are_found_once_for_its_profile_and_pairs(monkeypatch) -> None:
    from agentdiff.diff import loops
    from agentdiff.scenario.profile import profile_run

    found: list[int] = []
    real = loops.find_loops

    def counting(calls, keys):
        found.append(len(calls))
        return real(calls, keys)

    monkeypatch.setattr(loops, "find_loops", counting)
    base = [t for _, t in runs_in(POOL / "baseline")][:3]
    cand = [t for _, t in runs_in(POOL / "loop")][:3]
    comparer = PairComparer(CompareOptions())
    profiles = [profile_run(t, t.trace_id, comparer.options, comparer.side(t)) for t in cand]
    reports = [comparer.compare(b, c, findings=False) for b, c in itertools.product(base, cand)]
    assert len(found) == 6  # each run once, not once per profile and pair side (3 + 18)
    assert any(p.loops for p in profiles)
    assert any(r.loops for r in reports)
    for report, (b, c) in zip(reports, itertools.product(base, cand), strict=True):
        _same_but_findings(report, compare(b, c))


GATES = {
    "default": {},
    "tight": {"max_divergence": 0.05, "max_cost_increase": 0.0, "max_token_increase": 0.0},
    "loose": {"max_divergence": None, "max_cost_increase": None, "max_token_increase": None},
    "allow_loops": {"allow_loops": True, "max_divergence": 0.9},
    "errors_repeats": {"max_new_errors": 0, "max_tool_repeats": 1},
    "changed_calls": {"max_changed_calls": 0, "max_divergence": None},
}


@pytest.mark.parametrize("gate", sorted(GATES))
def test_passes_gate_agrees_with_the_whole_report(gate: str) -> None:
    """`passes_gate` (no alignment entries) says what the whole report's gate says.

    Every real pair both ways and pool runs (loops, cost changes, unchanged) against each
    other, under gates that fail on each rule; both answers occur under each gate but the
    loosest.
    """
    options = CompareOptions(gate=GATES[gate])
    comparer = PairComparer(options)
    pairs = [(load(p.baseline), load(p.candidate)) for p in real_pairs()]
    pairs += [(c, b) for b, c in pairs]
    pool = [t for name in ("baseline", "loop", "cost") for _, t in runs_in(POOL / name)[:4]]
    pairs += list(itertools.product(pool, pool))
    answers = []
    for base, cand in pairs:
        passed = comparer.passes_gate(base, cand)
        assert passed is compare(base, cand, options=options).passed, (gate, base.trace_id)
        answers.append(passed)
    assert True in answers
    assert False in answers or gate == "loose"


def test_passes_gate_folds_as_compare_does() -> None:
    folded = CompareOptions(fold_framework_steps=True, gate={"max_divergence": 0.0})
    comparer = PairComparer(folded)
    for pair in real_pairs():
        base, cand = load(pair.baseline), load(pair.candidate)
        assert comparer.passes_gate(base, cand) is compare(base, cand, options=folded).passed
    sides = comparer.side(base), comparer.side(cand)
    with pytest.raises(ValueError, match="fold_framework_steps"):
        passes_gate_prepared(base, cand, sides, folded)
