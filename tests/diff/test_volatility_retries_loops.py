"""Volatile values, retry outcomes and loop identity (issue 11, items 4-6)."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentdiff import compare, load_trace
from agentdiff.diff.normalize import Normalizer, is_volatile
from agentdiff.diff.order import Side, prepare
from agentdiff.diff.recovery import _scanned, _walked, later_attempts
from agentdiff.diff.signatures import Signer
from agentdiff.models.report import Op
from tests.realdata import real_pairs, tool_steps

from .builders import tools


def _diverges(base_args, cand_args) -> bool:
    report = compare(tools(("read", base_args)), tools(("read", cand_args), prefix="c"))
    return any(e.op is not Op.MATCH for e in report.alignment)


@pytest.mark.parametrize(
    ("key", "a", "b"),
    [
        ("offset", 0, 100),
        ("page", 1, 2),
        ("start", 10, 40),
        ("end", 20, 60),
        ("start_line", 1, 80),
        ("user_id", 42, 43),
        ("order_id", "ord_1234", "ord_5678"),
        ("date", "2026-01-05", "2026-01-06"),
        ("timeout_ms", 1000, 5000),
        ("time", "10:00", "11:00"),
    ],
)
def test_arguments_that_only_look_volatile_count(key, a, b):
    assert _diverges({key: a}, {key: b})


@pytest.mark.parametrize(
    ("key", "a", "b"),
    [
        ("created_at", "2026-01-01T00:00:00Z", "2026-03-04T10:11:12.5+02:00"),
        ("updated_at", 1_767_225_600, 1_767_312_000),
        ("timestamp", 1_767_225_600_000, 1_767_312_000_123),
        ("startTime", "2026-01-01 08:00:00", "2026-01-02 09:30:00"),
        ("latency_ms", 12, 99),
        ("duration", 1.5, 2.5),
        ("request_id", "3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b", "9b8c7d6e5f4a4b3c8d2e1f0a9b8c7d6e"),
        ("trace_id", "01HZX3K8Q4V6B9N2M5P7R1T3W6", "01HZX3K9A1B2C3D4E5F6G7H8J9"),
        ("spanId", "a1b2c3d4e5f60718", "ffeeddccbbaa9988"),
        ("tool_call_id", "call_a1B2c3D4e5F6", "call_Z9y8X7w6V5u4"),
    ],
)
def test_generated_values_never_count(key, a, b):
    assert is_volatile(key, a) and is_volatile(key, b)
    assert not _diverges({"q": "x", key: a}, {"q": "x", key: b})


def test_small_numbers_under_time_keys_are_arguments():
    assert not is_volatile("start", 3)
    assert not is_volatile("created", 12)
    assert not is_volatile("end_ts", "soon")


def test_strict_signatures_compare_key_sets_without_volatile_keys():
    base = tools(("search", {"q": "x", "request_id": "3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"}))
    cand = tools(("search", {"q": "x"}), prefix="c")
    strict = compare(base, cand, strict_tool_signatures=True)
    assert {e.op for e in strict.alignment} == {Op.MATCH}
    other = tools(("search", {"q": "x", "page": 2}), prefix="c")
    ops = {e.op for e in compare(base, other, strict_tool_signatures=True).alignment}
    assert Op.INSERT in ops and Op.DELETE in ops


def _outcomes(report):
    return [(r.error_step_id, r.outcome, r.retry_step_id) for r in report.recovery]


def test_retry_status_is_a_failed_attempt_and_its_retry_succeeded():
    base = tools(("fetch", {"u": 1}))
    cand = tools(("fetch", {"u": 1}, "retry"), ("fetch", {"u": 1}), prefix="c")
    report = compare(base, cand)
    assert _outcomes(report) == [("c1", "retried_succeeded", "c3")]
    assert report.candidate.errors == 1
    assert report.candidate.retries == 1 == sum(r.retry for r in report.recovery)


def test_retried_still_failing_then_succeeded():
    cand = tools(("fetch", {"u": 1}, "error"), ("fetch", {"u": 1}, "retry"), ("fetch", {"u": 1}))
    report = compare(tools(("fetch", {"u": 1})), cand)
    assert _outcomes(report) == [
        ("s1", "retried_still_failing", "s3"),
        ("s3", "retried_succeeded", "s5"),
    ]
    assert report.candidate.retries == 2
    assert report.loops == []


def test_gave_up_when_the_call_is_never_attempted_again():
    cand = tools(("fetch", {"u": 1}, "error"), ("other", {}), prefix="c")
    report = compare(tools(("fetch", {"u": 1}), ("other", {})), cand)
    (rec,) = report.recovery
    assert (rec.outcome, rec.retry_step_id, rec.retry) == ("gave_up", None, False)
    assert rec.recovered
    assert report.candidate.retries == 0


def test_failure_that_never_recovers_is_still_failing_and_off_path():
    cand = tools(("fetch", {"u": 1}, "error"), ("fetch", {"u": 1}, "error"), prefix="c")
    report = compare(tools(("done", {})), cand)
    assert [r.outcome for r in report.recovery] == ["retried_still_failing", "gave_up"]
    assert report.candidate.retries == 1 == sum(r.retry for r in report.recovery)


def test_three_retry_statuses_in_a_row_are_a_retry_storm():
    cand = tools(*[("fetch", {"u": 1}, "retry")] * 3, ("fetch", {"u": 1}), prefix="c")
    report = compare(tools(("fetch", {"u": 1})), cand)
    assert [(lp.kind, lp.repetitions) for lp in report.loops] == [("retry_storm", 4)]


def test_a_retry_storm_is_not_known_from_a_baseline_loop_of_successes():
    """The baseline called `fetch` four times and it worked each time; the candidate's three
    failures of it in a row are a new retry storm (it read 'known in the baseline' and the gate
    let it pass), and a loop of successes is not known from a baseline's retry storm either."""
    fetch, other = ("fetch", {"u": 1}), ("other", {})
    failing = ("fetch", {"u": 1}, "error")
    looped = tools(*[fetch] * 4, other)
    storming = tools(*[failing] * 3, fetch, other)
    (storm,) = compare(looped, tools(*[failing] * 3, other, prefix="c")).loops
    assert (storm.kind, storm.new, storm.baseline_repetitions) == ("retry_storm", True, 0)
    assert not compare(looped, tools(*[failing] * 3, other, prefix="c")).gate.passed
    (loop,) = compare(storming, tools(*[fetch] * 3, other, prefix="c")).loops
    assert (loop.kind, loop.new, loop.baseline_repetitions) == ("loop", True, 0)
    (known,) = compare(storming, tools(*[failing] * 4, other, prefix="c")).loops
    assert (known.kind, known.new, known.baseline_repetitions) == ("retry_storm", False, 4)


def test_loop_identity_does_not_depend_on_where_the_cycle_starts():
    search, open_ = ("search", {"q": "a"}), ("open", {"url": "u"})
    base = tools(*[search, open_] * 3)
    cand = tools(*[open_, search] * 3, prefix="c")
    (loop,) = compare(base, cand).loops
    assert loop.names == ["open", "search"]
    assert (loop.new, loop.baseline_repetitions) == (False, 3)
    grown = compare(base, tools(*[open_, search] * 4, prefix="c"))
    assert grown.loops[0].new and grown.loops[0].baseline_repetitions == 3


def test_three_call_cycle_rotations_match():
    a, b, c = ("a", {}), ("b", {}), ("c", {})
    report = compare(tools(*[a, b, c] * 3), tools(*[b, c, a] * 3, prefix="c"))
    assert [(lp.names, lp.new) for lp in report.loops] == [(["b", "c", "a"], False)]


_KEYS = st.sampled_from(
    ["q", "user", "request_id", "run_id", "created_at", "timestamp", "latency_ms", "page", "id"]
)
_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**62),
    st.floats(allow_nan=False),
    st.sampled_from(["bob", "8b025cab199fc3bc", "call_a1B2c3D4e5", "2026-01-05T10:00:00Z"]),
    st.text(max_size=8),
)
_PAYLOADS = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=5)),
    max_leaves=20,
)


@given(_PAYLOADS)
def test_fast_stripping_equals_the_path_tracking_walk(payload):
    """The fast path (no ignores) drops exactly what the path-tracking walk drops, keeps the
    key order, and never changes its input."""
    before = orjson.dumps(payload)
    fast = Normalizer().normalize(payload, ("input_payload",))
    walked = Normalizer(("no.such.path",)).normalize(payload, ("input_payload",))
    assert orjson.dumps(fast) == orjson.dumps(walked)  # same values, same key order
    assert orjson.dumps(payload) == before


_FLAT_KEYS = st.sampled_from(
    ["q", "request_id", "userId", "id", "created_at", "startTime", "ts", "latency_ms", "page", 3]
)
_FLAT_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**62), 2**62),
    st.floats(allow_nan=False),
    st.sampled_from(
        [
            "8b025cab199fc3bc",
            "deadbee",
            "deadbeef\n",
            "0x12345678",
            "call_a1B2c3D4e5",
            "3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b",
            "2026-01-05T10:00:00Z",
            "2026-01-05",
            1_767_600_000,
            1_767_600_000_000.5,
        ]
    ),
    st.text(alphabet="0123456789abcdefxX_-Z:T ", max_size=12),
)


@given(st.lists(st.dictionaries(_FLAT_KEYS, _FLAT_LEAVES, max_size=6), min_size=1, max_size=4))
def test_flat_fast_path_equals_the_path_tracking_walk(payloads):
    """A dict of scalars takes the per-key-set path (key sets repeat across calls, so cached
    plans are reused): it drops exactly what the walk drops, in the same key order, returns the
    dict itself when nothing is dropped, and never changes its input."""
    for payload in payloads * 2:
        before = orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS)
        fast = Normalizer().normalize(payload, ("input_payload",))
        walked = Normalizer(("no.such.path",)).normalize(payload, ("input_payload",))
        assert list(fast.items()) == list(walked.items())
        assert (fast is payload) == (len(walked) == len(payload))
        assert orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS) == before


def test_call_keys_equal_the_path_tracking_route_on_real_traces():
    """Every tool call of the real fixtures gets the same call key through the fast path as
    through the path-tracking walk."""
    plain = Signer(Normalizer(), strict=False)
    walked = Signer(Normalizer(("no.such.path",)), strict=False)
    calls = 0
    for pair in real_pairs():
        for path in (pair.baseline, pair.candidate):
            for step in tool_steps(load_trace(path)):
                key = plain.call_key(step.name, step.input_payload)
                assert key == walked.call_key(step.name, step.input_payload)
                calls += 1
    assert calls > 100


@given(st.lists(st.integers(0, 5), max_size=40), st.data())
def test_later_attempts_scan_equals_the_backward_walk(exact, data):
    """Few failures take a forward scan per failure; the mapping (and its order) is the one
    the backward walk gives, with and without later attempts (of either exact key)."""
    failed = sorted(data.draw(st.sets(st.integers(0, max(len(exact) - 1, 0))))) if exact else []
    succeeded = {i: data.draw(st.none() | st.integers(0, 5)) for i in failed}
    side = Side(exact=exact, failed=failed, succeeded=succeeded)
    assert list(_scanned(side).items()) == list(_walked(side).items())


def test_later_attempts_agree_on_real_traces():
    signer = Signer(Normalizer(), strict=False)
    failures = 0
    for pair in real_pairs():
        for path in (pair.baseline, pair.candidate):
            side = prepare(load_trace(path), signer)
            failures += len(side.failed)
            assert list(_scanned(side).items()) == list(_walked(side).items())
            for i, later in later_attempts(side).items():  # the same call, or the next action
                assert later == _walked(side)[i] or side.base[later or 0] == side.base[i]
    assert failures > 10
