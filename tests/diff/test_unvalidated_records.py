"""Records `compare()` builds without running validation equal the validated ones.

`deltas()` builds its `Delta`s from the values validation would give, `DiffReport.assemble`
skips `model_construct`'s walk, and the id check recognizes plain hex without the regex: each
must give exactly what the slow route gives (values and their types, fields-sets, private
values, JSON), and the same error where the slow route fails.
"""

from __future__ import annotations

import math

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from agentdiff import compare, load_trace
from agentdiff.diff.metrics import deltas
from agentdiff.diff.normalize import _GENERATED, _volatile_id
from agentdiff.models.report import Delta, Deltas, DiffReport, LoopFinding, Summary
from tests.diff.builders import step, trace
from tests.realdata import real_pairs
from tests.records import same_internals, same_record

_MEASURES = tuple(Deltas.model_fields)
_INTS = st.one_of(st.none(), st.integers(0, 2**70))
_FLOATS = st.one_of(st.none(), st.floats(allow_nan=False), st.integers(0, 2**60))
_KINDS = {
    "steps": st.integers(0, 2**70),
    "tool_calls": st.integers(0, 2**70),
    "llm_calls": st.integers(0, 2**70),
    "model_turns": st.integers(0, 2**70),
    "errors": st.integers(0, 2**70),
    "prompt_tokens": _INTS,
    "completion_tokens": _INTS,
    "total_tokens": _INTS,
    "cost_usd": _FLOATS,
    "latency_ms": _FLOATS,
}
_SIDE = st.fixed_dictionaries(_KINDS)


def _summary(measures: dict[str, float | None]) -> Summary:
    return Summary(
        trace_id="t", agent_name="a", source_format=None, cost_estimated=False, **measures
    )


def _validated(b: Summary, c: Summary) -> Deltas:
    """The deltas as they were built before: one validated `Delta` per measure."""
    out = {}
    for name in _MEASURES:
        x, y = getattr(b, name), getattr(c, name)
        if x is None or y is None:
            out[name] = Delta(baseline=x, candidate=y, delta=None, pct=None)
        else:
            pct = ((y - x) / x * 100.0) if x else None
            out[name] = Delta(baseline=x, candidate=y, delta=y - x, pct=pct)
    return Deltas(**out)


def _same(fast: Delta | Deltas, slow: Delta | Deltas) -> None:
    same_internals(fast, slow)
    for name, value in slow.__dict__.items():
        mine = fast.__dict__[name]
        if isinstance(value, Delta):
            _same(mine, value)
        else:
            assert type(mine) is type(value)
            assert mine == value or (math.isnan(mine) and math.isnan(value))


@given(_SIDE, _SIDE)
def test_deltas_equal_the_validated_records(base, cand):
    b, c = _summary(base), _summary(cand)
    fast = deltas(b, c)
    slow = _validated(b, c)
    _same(fast, slow)
    nan = any(math.isnan(d.pct) for d in slow.__dict__.values() if d.pct is not None)
    assert fast == slow or nan  # nan != nan, in both
    assert fast.model_dump_json() == slow.model_dump_json()


def test_a_count_past_a_floats_range_fails_as_validation_fails():
    b = _summary({**dict.fromkeys(_MEASURES, 1), "steps": 10**400})
    c = _summary(dict.fromkeys(_MEASURES, 1))
    with pytest.raises(ValidationError) as slow:
        _validated(b, c)
    with pytest.raises(ValidationError) as fast:
        deltas(b, c)
    assert fast.value.errors()[0]["type"] == slow.value.errors()[0]["type"] == "float_type"


@pytest.mark.parametrize("pair", real_pairs("detour")[:3], ids=lambda p: p.id)
def test_assembled_report_equals_the_constructed_one(pair):
    baseline, candidate = load_trace(pair.baseline), load_trace(pair.candidate)
    report = compare(baseline, candidate)
    given = {name: getattr(report, name) for name in DiffReport.model_fields}
    del given["report_version"]
    built = DiffReport.model_construct(**given).attach_traces(baseline, candidate)
    assert list(report.__dict__) == list(built.__dict__)
    assert all(report.__dict__[k] is v for k, v in built.__dict__.items() if k != "report_version")
    assert report.report_version == built.report_version
    assert report.model_fields_set == built.model_fields_set
    assert report.__pydantic_extra__ == built.__pydantic_extra__
    assert report.__pydantic_private__ == built.__pydantic_private__
    assert report.baseline_trace is baseline and report.candidate_trace is candidate
    assert report.model_dump_json() == built.model_dump_json()
    assert report.to_json_bytes() == built.to_json_bytes()


def test_assemble_refuses_a_missing_or_unknown_field():
    with pytest.raises(TypeError, match="exactly the fields"):
        DiffReport.assemble(None, None, divergence=0.0)  # type: ignore[arg-type]


_ID_TEXT = st.one_of(
    st.text(alphabet="0123456789abcdefABCDEFxXgG_-\n ", max_size=40),
    st.text(max_size=30),
    st.sampled_from(
        [
            "8b025cab199fc3bc",
            "0x1234567",
            "0x12345678",
            "1234567",
            "deadbeef\n",
            "DEADBEEF",
            "3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b",
            "01HZX3K8Q4V6B9N2M5P7R1T3W6",
            "call_a1B2c3D4e5",
            "abcdéf0123",
            "١٢٣٤٥٦٧٨٩",
        ]
    ),
)


@given(_ID_TEXT)
def test_plain_hex_shortcut_agrees_with_the_regex(value):
    assert _volatile_id(value) == bool(_GENERATED.match(value))


def test_deltas_json_is_unchanged_on_real_pairs():
    for pair in real_pairs("loop")[:4]:
        report = compare(load_trace(pair.baseline), load_trace(pair.candidate))
        slow = _validated(report.baseline, report.candidate)
        assert orjson.dumps(report.deltas.model_dump()) == orjson.dumps(slow.model_dump())


def _same_summary(fast: Summary, slow: Summary) -> None:
    same_record(fast, slow)
    assert [type(v) for v in fast.__dict__.values()] == [type(v) for v in slow.__dict__.values()]


@pytest.mark.parametrize("scenario", ["loop", "detour", "cost_spike"])
def test_summaries_equal_the_validated_ones_on_real_pairs(scenario):
    for pair in real_pairs(scenario)[:4]:
        report = compare(load_trace(pair.baseline), load_trace(pair.candidate))
        for fast in (report.baseline, report.candidate):
            _same_summary(fast, Summary(**fast.__dict__))


def test_summaries_are_built_without_validation(monkeypatch):
    pair = real_pairs("loop")[0]
    baseline, candidate = load_trace(pair.baseline), load_trace(pair.candidate)

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("validated")

    monkeypatch.setattr(Summary, "__init__", refuse)
    report = compare(baseline, candidate)
    assert report.baseline.steps == len(baseline.steps)


def test_a_value_validation_converts_still_goes_through_it():
    run = trace([step(0, "llm_call", "gpt-4o")])
    run = run.model_copy(update={"total_latency_ms": 7, "metadata": {"source_format": 3}})
    with pytest.raises(ValidationError):  # the source format must be a string, as before
        compare(run, run)
    run = run.model_copy(update={"metadata": None})
    summary = compare(run, run).baseline
    assert summary.latency_ms == 7.0
    assert type(summary.latency_ms) is float  # made a float by validation, as before


def test_loop_findings_equal_the_validated_ones_on_real_pairs(monkeypatch):
    pairs = [(load_trace(p.baseline), load_trace(p.candidate)) for p in real_pairs("loop")[:4]]
    reports = [compare(b, c) for b, c in pairs]
    found = [loop for report in reports for loop in report.loops]
    assert found
    for fast in found:
        same_record(fast, LoopFinding(**fast.__dict__))

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("validated")

    monkeypatch.setattr(LoopFinding, "__init__", refuse)  # built as validation would, without it
    assert [compare(b, c).loops for b, c in pairs] == [report.loops for report in reports]
