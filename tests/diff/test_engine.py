"""Engine semantics on small hand-made traces: one behaviour per test."""

from __future__ import annotations

import pytest

from agentdiff import CompareOptions, GateThresholds, compare
from agentdiff.models.report import Op

from .builders import step, tools, trace

PARIS = {"city": "Paris"}


def _ops(report):
    return [(e.op.value, (e.candidate or e.baseline).name) for e in report.alignment]


def test_changed_argument_is_a_change_with_a_field_path():
    report = compare(tools(("geocode", PARIS)), tools(("geocode", {"city": "Lyon"}), prefix="c"))
    change = next(e for e in report.alignment if e.op is Op.CHANGE)
    assert change.candidate.name == "geocode"
    assert [(c.path, c.kind, c.baseline, c.candidate) for c in change.changes] == [
        ("input_payload.city", "argument", "Paris", "Lyon")
    ]
    # a change stays on the route (the spec matches on type + name): no divergence
    assert report.first_divergence is None
    assert report.first_change == change
    assert (report.divergence, report.changed_calls) == (0.0, 1)


def test_status_difference_is_a_change():
    report = compare(tools(("geocode", PARIS)), tools(("geocode", PARIS, "error"), prefix="c"))
    change = next(e for e in report.alignment if e.op is Op.CHANGE)
    assert change.changes[0].path == "status"
    assert (change.changes[0].baseline, change.changes[0].candidate) == ("success", "error")


def _turns(*models: str | None, prefix: str = "s"):
    """One LLM step per model (None: no model in its metadata), all named `chat`."""
    return trace(
        [
            step(i, "llm_call", "chat", prefix=prefix, metadata={} if m is None else {"model": m})
            for i, m in enumerate(models)
        ],
        trace_id=prefix,
    )


def test_a_model_turn_that_called_another_model_is_a_change():
    report = compare(
        _turns("gpt-4o-mini", "gpt-4o-mini"), _turns("gpt-4o-mini", "gpt-4o", prefix="c")
    )
    change = next(e for e in report.alignment if e.op is Op.CHANGE)
    assert [(c.path, c.kind, c.baseline, c.candidate) for c in change.changes] == [
        ("model", "model", "gpt-4o-mini", "gpt-4o")
    ]
    assert (report.divergence, report.changed_calls) == (0.0, 1)
    assert report.first_change == change
    assert [w.message for w in report.gate.warnings if w.rule == "changed_calls"] == [
        "1 call changed model: chat"
    ]


def test_the_same_model_or_none_named_is_no_change():
    same = compare(_turns("gpt-4o", None), _turns("gpt-4o", None, prefix="c"))
    assert all(e.op is Op.MATCH and not e.changes for e in same.alignment)
    # an LLM step named after its model, metadata on one side only: the name is the model
    named = trace([step(0, "llm_call", "gpt-4o", metadata={})])
    told = trace([step(0, "llm_call", "gpt-4o", prefix="c", metadata={"model": "gpt-4o"})])
    assert compare(named, told).alignment[0].op is Op.MATCH
    # one side alone names a model in its metadata, another than the step's name: a change
    other = trace([step(0, "llm_call", "gpt-4o", prefix="c", metadata={"model": "gpt-4o-mini"})])
    for report in (compare(named, other), compare(other, named)):
        assert [c.kind for c in report.alignment[0].changes] == ["model"]


def test_changed_calls_words_leave_out_content_that_did_not_count():
    base = tools(("geocode", PARIS))
    cand = tools(("geocode", PARIS, "error"), prefix="c")
    cand.steps[1].output_payload = {"error": "timeout"}
    report = compare(base, cand)
    assert [w.message for w in report.gate.warnings if w.rule == "changed_calls"] == [
        "1 call changed status: geocode"
    ]
    counted = compare(base, cand, options=CompareOptions(compare_content=True))
    assert [w.message for w in counted.gate.warnings if w.rule == "changed_calls"] == [
        "1 call changed status or content: geocode"
    ]


def test_volatile_ids_and_timestamps_never_count():
    base = tools(
        (
            "search",
            {
                "q": "x",
                "request_id": "3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b",
                "timestamp": "2026-01-01T00:00:00Z",
                "latency_ms": 12,
            },
        )
    )
    cand = tools(
        (
            "search",
            {
                "q": "x",
                "request_id": "9b8c7d6e-5f4a-4b3c-8d2e-1f0a9b8c7d6e",
                "timestamp": "2026-02-02T00:00:00Z",
                "latency_ms": 99,
            },
        ),
        prefix="c",
    )
    report = compare(base, cand)
    assert report.divergence == 0.0
    assert all(e.op is Op.MATCH and not e.changes for e in report.alignment)


def test_meaningful_id_like_values_still_count():
    report = compare(
        tools(("lookup", {"user_id": "alice"})), tools(("lookup", {"user_id": "bob"}), prefix="c")
    )
    assert Op.CHANGE in {e.op for e in report.alignment}


def test_user_ignore_globs():
    base = tools(("search", {"q": "x", "meta": {"nonce": 1}}))
    cand = tools(("search", {"q": "x", "meta": {"nonce": 2}}), prefix="c")
    assert compare(base, cand).changed_calls == 1
    options = CompareOptions(ignore=("input_payload.*.nonce",))
    assert compare(base, cand, options=options).changed_calls == 0
    assert compare(base, cand, options=CompareOptions(ignore=("**.nonce",))).changed_calls == 0


def test_llm_wording_is_content_not_divergence_unless_asked():
    base = tools(("geocode", PARIS))
    cand = tools(("geocode", PARIS), prefix="c")
    cand.steps[-1].output_payload = {"text": "all finished"}
    report = compare(base, cand)
    assert report.divergence == 0.0
    assert report.content_changes == 1
    content = next(e for e in report.alignment if e.changes)
    assert content.changes[0].kind == "content"
    strict = compare(base, cand, options=CompareOptions(compare_content=True))
    assert (strict.divergence, strict.changed_calls) == (0.0, 1)
    assert strict.first_change.candidate.name == "final"
    assert [w.message for w in strict.gate.warnings if w.rule == "changed_calls"] == [
        "1 call changed content: final"
    ]


def test_tool_output_difference_is_content():
    base = tools(("geocode", PARIS))
    cand = tools(("geocode", PARIS), prefix="c")
    cand.steps[1].output_payload = {"lat": 1}
    report = compare(base, cand)
    assert report.divergence == 0.0
    assert report.content_changes == 1


def test_strict_signatures_split_on_input_keys():
    base = tools(("search", {"q": "x"}))
    cand = tools(("search", {"query": "x"}), prefix="c")
    assert Op.CHANGE in {e.op for e in compare(base, cand).alignment}
    strict = compare(base, cand, strict_tool_signatures=True)
    assert [op for op, _ in _ops(strict) if op != "match"] == ["delete", "insert"]


def _parallel(order: list[str], prefix: str):
    steps = [step(0, "llm_call", "model", prefix=prefix)]
    for i, name in enumerate(order, start=1):
        steps.append(step(i, "tool_call", name, 0, prefix=prefix, input_payload={"n": name}))
    return trace(steps, trace_id=prefix)


def test_parallel_calls_in_another_order_are_reorders_not_divergence():
    report = compare(_parallel(["a", "b", "c"], "b"), _parallel(["c", "a", "b"], "c"))
    assert report.divergence == 0.0
    assert report.first_divergence is None
    assert Op.REORDER in {e.op for e in report.alignment}


def test_overlapping_siblings_are_concurrent():
    def run(prefix, first, second):
        meta = {
            first: ("2026-01-01T00:00:00Z", "2026-01-01T00:00:05Z"),
            second: ("2026-01-01T00:00:01Z", "2026-01-01T00:00:04Z"),
        }
        steps = [
            step(
                0,
                "routing",
                "agent",
                prefix=prefix,
                metadata={"started_at": "2026-01-01T00:00:00Z"},
            )
        ]
        for i, name in enumerate((first, second), start=1):
            start, end = meta[name]
            steps.append(
                step(
                    i,
                    "llm_call",
                    name,
                    0,
                    prefix=prefix,
                    metadata={"started_at": start, "ended_at": end},
                )
            )
        return trace(steps, trace_id=prefix)

    report = compare(run("b", "x", "y"), run("c", "y", "x"))
    assert report.divergence == 0.0


def test_sequential_calls_in_another_order_do_diverge():
    base = tools(("a", {}), ("b", {}))
    cand = tools(("b", {}), ("a", {}), prefix="c")
    assert compare(base, cand).divergence > 0


def test_single_call_loop_is_new_and_fails():
    base = tools(("geocode", PARIS), ("get_weather", {"lat": 1}))
    cand = tools(("geocode", PARIS), *[("get_weather", {"lat": 1})] * 4, prefix="c")
    report = compare(base, cand)
    assert [(lp.names, lp.repetitions, lp.new, lp.kind) for lp in report.loops] == [
        (["get_weather"], 4, True, "loop")
    ]
    assert report.loops[0].step_ids == ["c3", "c5", "c7", "c9"]
    assert not report.gate.passed


def test_loop_the_baseline_already_has_is_not_new():
    loop = [("poll", {"job": 1})] * 3
    report = compare(tools(*loop), tools(*loop, prefix="c"))
    assert report.loops[0].new is False
    assert report.gate.passed
    grown = compare(tools(*loop), tools(*loop, ("poll", {"job": 1}), prefix="c"))
    assert grown.loops[0].new is True
    assert grown.loops[0].baseline_repetitions == 3
    assert not grown.gate.passed


def test_window_loop_of_two_calls():
    cycle = [("search", {"q": "a"}), ("open", {"url": "u"})] * 3
    report = compare(tools(("search", {"q": "a"})), tools(*cycle, prefix="c"))
    assert [(lp.names, lp.repetitions) for lp in report.loops] == [(["search", "open"], 3)]


def test_different_arguments_are_not_a_loop():
    calls = [("get_weather", {"day": d}) for d in range(4)]
    assert compare(tools(*calls), tools(*calls, prefix="c")).loops == []


def test_error_then_identical_retry_is_recovery_not_loop():
    base = tools(("get_weather", {"lat": 1}))
    cand = tools(("get_weather", {"lat": 1}, "error"), ("get_weather", {"lat": 1}), prefix="c")
    report = compare(base, cand)
    assert report.loops == []
    assert [(r.error_step_id, r.recovered, r.retry) for r in report.recovery] == [
        ("c1", True, True)
    ]
    inserted = [e.candidate.step_id for e in report.alignment if e.op is Op.INSERT]
    assert inserted == ["c1", "c2"]  # the failed call and the LLM turn that retries it
    assert report.candidate.errors == 1


def test_three_failures_in_a_row_are_a_retry_storm():
    cand = tools(
        *[("get_weather", {"lat": 1}, "error")] * 3, ("get_weather", {"lat": 1}), prefix="c"
    )
    report = compare(tools(("get_weather", {"lat": 1})), cand)
    assert [(lp.kind, lp.repetitions, lp.new) for lp in report.loops] == [("retry_storm", 4, True)]


def test_loops_can_be_switched_off():
    cand = tools(*[("poll", {})] * 5, prefix="c")
    report = compare(tools(("poll", {})), cand, detect_loops=False)
    assert report.loops == []


def test_error_recovery_counts_steps_until_back_on_the_baseline_path():
    report = compare(tools(("a", {}), ("b", {})), tools(("x", {}, "error"), ("b", {}), prefix="c"))
    (recovery,) = report.recovery
    assert (recovery.error_step_id, recovery.recovered, recovery.retry) == ("c1", True, False)
    assert recovery.steps_to_recover == 1


def test_error_at_the_end_is_not_recovered():
    report = compare(tools(("a", {})), trace([step(0, "tool_call", "x", status="error")]))
    (recovery,) = report.recovery
    assert (recovery.recovered, recovery.steps_to_recover) == (False, None)


def test_empty_traces():
    report = compare(trace([]), trace([]))
    assert report.divergence == 0.0
    assert report.alignment == []


def test_totals_and_deltas_keep_unknown_unknown():
    base = tools(("geocode", PARIS))
    cand = tools(("geocode", PARIS), prefix="c")
    report = compare(base, cand)
    assert report.deltas.total_tokens.model_dump() == {
        "baseline": None,
        "candidate": None,
        "delta": None,
        "pct": None,
    }
    assert report.deltas.steps.pct == 0.0
    assert report.baseline.cost_usd is None
    assert any("unknown" in w.message for w in report.gate.warnings)


def test_zero_baseline_gives_null_percent():
    base = trace([step(0, "llm_call", "m", tokens={"total_tokens": 0})])
    cand = trace([step(0, "llm_call", "m", prefix="c", tokens={"total_tokens": 10})], trace_id="c")
    delta = compare(base, cand).deltas.total_tokens
    assert (delta.baseline, delta.candidate, delta.delta, delta.pct) == (0, 10, 10, None)


def test_tokens_sum_llm_steps_and_percent_units():
    base = trace([step(0, "llm_call", "m", tokens={"prompt_tokens": 80, "completion_tokens": 20})])
    cand = trace(
        [
            step(
                0,
                "llm_call",
                "m",
                prefix="c",
                tokens={"prompt_tokens": 90, "completion_tokens": 22},
            )
        ],
        trace_id="c",
    )
    report = compare(base, cand)
    assert report.baseline.total_tokens == 100
    assert report.deltas.total_tokens.pct == pytest.approx(12.0)


def test_cost_is_estimated_from_the_model_and_marked():
    usage = {"prompt_tokens": 1_000_000, "completion_tokens": 1_000_000}
    base = trace([step(0, "llm_call", "gpt", tokens=usage, metadata={"model": "gpt-4o-mini"})])
    report = compare(base, base)
    assert report.baseline.cost_usd == pytest.approx(0.75)
    assert report.baseline.cost_estimated is True
    unknown = trace([step(0, "llm_call", "x", tokens=usage, metadata={"model": "mystery-1"})])
    assert compare(unknown, unknown).baseline.cost_usd is None


def test_given_cost_wins_over_estimates():
    usage = {"prompt_tokens": 10, "completion_tokens": 10, "estimated_cost_usd": 0.5}
    base = trace([step(0, "llm_call", "gpt", tokens=usage, metadata={"model": "gpt-4o"})])
    summary = compare(base, base).baseline
    assert (summary.cost_usd, summary.cost_estimated) == (0.5, False)


def test_latency_prefers_total_then_wall_clock_then_roots():
    timed = trace(
        [
            step(
                0,
                "routing",
                "a",
                metadata={"started_at": "2026-01-01T00:00:00Z", "ended_at": "2026-01-01T00:00:02Z"},
                latency_ms=2000,
            ),
            step(
                1,
                "llm_call",
                "m",
                0,
                metadata={"started_at": "2026-01-01T00:00:01Z", "ended_at": "2026-01-01T00:00:03Z"},
                latency_ms=2000,
            ),
        ]
    )
    assert compare(timed, timed).baseline.latency_ms == 3000.0
    given = timed.model_copy(update={"total_latency_ms": 42.0})
    assert compare(given, given).baseline.latency_ms == 42.0
    nested = trace(
        [
            step(0, "routing", "a", latency_ms=100.0),
            step(1, "llm_call", "m", 0, latency_ms=80.0),
            step(2, "routing", "b", latency_ms=50.0),
        ]
    )
    assert compare(nested, nested).baseline.latency_ms == 150.0


def test_gate_thresholds_flow_through_options():
    base = tools(("a", {}))
    cand = tools(("b", {}), prefix="c")
    assert not compare(
        base, cand, options=CompareOptions(gate=GateThresholds(max_divergence=0.1))
    ).gate.passed
    assert compare(
        base, cand, options=CompareOptions(gate=GateThresholds(max_divergence=0.9))
    ).gate.passed


def test_thresholds_follow_each_options_object_however_often_they_alternate():
    """The applied thresholds are kept per options object: a copy with another gate, or
    options alternating call by call, never report another object's values."""
    base = tools(("a", {}))
    loose = CompareOptions(gate=GateThresholds(max_divergence=0.9))
    tight = loose.model_copy(update={"gate": GateThresholds(max_divergence=0.1)})

    def value(options: CompareOptions | None) -> object:
        report = compare(base, base, options=options)
        return next(t.value for t in report.thresholds if t.setting == "max_divergence")

    for _ in range(2):
        assert [value(loose), value(tight), value(None), value(tight)] == [0.9, 0.1, 0.5, 0.1]
    # short-lived options objects (their ids reused) never get another's records
    for i in range(200):
        limit = (i % 7) / 10
        assert value(CompareOptions(gate=GateThresholds(max_divergence=limit))) == limit
    # `sources` is a plain mapping: changed in place, the records follow it
    named = CompareOptions(sources={})
    assert _source(named) == "default"
    named.sources["max_divergence"] = "flag --max-divergence"  # type: ignore[index]
    assert _source(named) == "flag --max-divergence"
    first, again = compare(base, base, options=loose), compare(base, base, options=loose)
    assert first.thresholds == again.thresholds
    assert first.thresholds is not again.thresholds  # each report owns its list


def _source(options: CompareOptions) -> str:
    report = compare(tools(("a", {})), tools(("a", {})), options=options)
    return next(t.source for t in report.thresholds if t.setting == "max_divergence")


def test_alignment_is_in_candidate_execution_order():
    base = tools(("a", {}), ("b", {}))
    cand = tools(("a", {}), ("x", {}), ("b", {}), prefix="c")
    cand_ids = [e.candidate.step_id for e in compare(base, cand).alignment if e.candidate]
    assert cand_ids == [s.step_id for s in cand.steps]
