"""A side prepared in another process (`portable_side`, pickled) is adopted as `prepare` makes it.

`compare_adopting` with the candidate's portable side gives `compare()`'s report, for every real
captured pair (both ways, plain, strict tool signatures, ignore patterns) and for generated
pairs; the side is asked for only once the baseline is prepared, and a side that cannot be of
the candidate (another size), or folding, leaves the preparation to `compare`.
"""

from __future__ import annotations

import importlib
import pickle

import pytest
from hypothesis import given, settings

from agentdiff import compare
from agentdiff.diff.compare import compare_adopting
from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.options import CompareOptions
from agentdiff.diff.order import prepare
from agentdiff.diff.portable import PortableSide, adopted_side, portable_side
from agentdiff.diff.signatures import Signer
from agentdiff.diff.totals import memoized_totals
from agentdiff.models.trace import AgentTrace
from tests.builds import pure_only
from tests.diff.test_compare_properties import traces
from tests.realdata import load, real_pairs

OPTIONS = {
    "plain": CompareOptions(),
    "strict": CompareOptions(strict_tool_signatures=True),
    "ignore": CompareOptions(ignore=("input_payload.*.query",), detect_loops=False),
}
_SIDE_FIELDS = (
    "steps",
    "refs",
    "base",
    "exact",
    "call",
    "depth",
    "group",
    "turn",
    "model_turns",
    "names_models",
    "failed",
    "succeeded",
    "canon",
    "wall_clock",
)


def _shipped(trace: AgentTrace, options: CompareOptions) -> PortableSide:
    """`portable_side` as the parent gets it: pickled and unpickled."""
    found = pickle.loads(pickle.dumps(portable_side(trace, options)))  # noqa: S301 - our own
    assert isinstance(found, PortableSide)
    return found


def _same_report(base: AgentTrace, cand: AgentTrace, options: CompareOptions) -> None:
    side = _shipped(cand, options)
    adopted = compare_adopting(base, cand, options, lambda: side)
    assert adopted.model_dump(mode="json") == compare(base, cand, options=options).model_dump(
        mode="json"
    )


def _same_sides(base: AgentTrace, cand: AgentTrace, options: CompareOptions) -> None:
    normalizer = Normalizer(options.ignore)
    ours = Signer(normalizer, strict=options.strict_tool_signatures)
    theirs = Signer(normalizer, strict=options.strict_tool_signatures)
    prepare(base, ours)
    prepare(base, theirs)
    shipped = _shipped(cand, options)
    made, adopted = prepare(cand, ours), adopted_side(cand, shipped, theirs, options.prices)
    for name in _SIDE_FIELDS:
        assert getattr(adopted, name) == getattr(made, name), name
    assert adopted.totals == (cand, options.prices, *memoized_totals(cand, made, options.prices))
    assert adopted_side(cand, shipped, theirs).totals is None  # no prices: computed when asked


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_every_real_pair_compares_the_same_with_the_candidate_prepared_elsewhere(name):
    options = OPTIONS[name]
    pairs = real_pairs()
    assert pairs
    for pair in pairs:
        base, cand = load(pair.baseline), load(pair.candidate)
        _same_report(base, cand, options)
        _same_report(cand, base, options)
        _same_sides(base, cand, options)


@settings(max_examples=150, deadline=None)
@given(traces("b"), traces("c"))
def test_generated_pairs_compare_the_same_with_the_candidate_prepared_elsewhere(base, cand):
    for options in OPTIONS.values():
        _same_report(base, cand, options)
        _same_sides(base, cand, options)


@pure_only
def test_the_side_is_asked_for_once_the_baseline_is_prepared(monkeypatch):
    pair = real_pairs()[0]
    base, cand = load(pair.baseline), load(pair.candidate)
    side = _shipped(cand, CompareOptions())
    prepared: list[AgentTrace] = []
    asked: list[int] = []

    module = importlib.import_module("agentdiff.diff.compare")
    real_prepare = module.prepare

    def counting(trace, signer):
        prepared.append(trace)
        return real_prepare(trace, signer)

    def given_side():
        asked.append(len(prepared))
        return side

    monkeypatch.setattr(module, "prepare", counting)
    compare_adopting(base, cand, CompareOptions(), given_side)
    assert asked == [1]  # after the baseline, and the candidate was not prepared here
    assert prepared == [base]


def test_a_side_of_another_trace_or_folding_leaves_the_preparation_to_compare():
    pairs = real_pairs()
    base, cand = load(pairs[0].baseline), load(pairs[0].candidate)
    other = next(
        load(p.candidate) for p in pairs if len(load(p.candidate).steps) != len(cand.steps)
    )
    wrong = _shipped(other, CompareOptions())
    report = compare_adopting(base, cand, CompareOptions(), lambda: wrong)
    assert report.model_dump(mode="json") == compare(base, cand).model_dump(mode="json")
    with pytest.raises(ValueError, match="is not of a trace of"):
        adopted_side(cand, wrong, Signer(Normalizer(), strict=False))
    folding = CompareOptions(fold_framework_steps=True)

    def never():
        raise AssertionError("a folded comparison never adopts a side")

    report = compare_adopting(base, cand, folding, never)
    assert report.model_dump(mode="json") == compare(base, cand, options=folding).model_dump(
        mode="json"
    )
