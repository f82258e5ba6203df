"""Which later call is a failed call's retry (issue 11 §5: "no later attempt of that call").

A failed tool call is retried when the run's next action calls the same tool (with the same
or with other arguments: `other_arguments` says which), or when the same call (same normalized
arguments) comes again later. A call of the same tool with other arguments after the run did
something else is another call: the failure gave up.
"""

from __future__ import annotations

from agentdiff import compare
from agentdiff.diff.recovery import FEW_FAILURES
from agentdiff.render.sentences import finding_line

from .builders import step, tools, trace


def _outcomes(report):
    return [
        (r.error_step_id, r.outcome, r.retry_step_id, r.other_arguments) for r in report.recovery
    ]


def _error_sentences(report) -> list[str]:
    return [finding_line(f, report) for f in report.findings if f.kind == "error"]


def _fetch(i: int, parent: int, prefix: str, url: str, status: str = "success"):
    message = "HTTP 503" if status == "error" else None
    payload = {"url": url}
    return step(
        i,
        "tool_call",
        "fetch",
        parent,
        prefix=prefix,
        input_payload=payload,
        status=status,
        error_message=message,
    )


def _fetch_then_answer_then_fetch(prefix: str, first: str, second: str, status: str = "error"):
    return trace(
        [
            step(0, "llm_call", "model", prefix=prefix),
            _fetch(1, 0, prefix, first, status),
            step(2, "response", "answer", prefix=prefix),
            step(3, "llm_call", "model", prefix=prefix),
            _fetch(4, 3, prefix, second),
        ],
        prefix,
    )


def test_a_fetch_of_another_url_after_the_answer_is_no_retry():
    base = _fetch_then_answer_then_fetch("b", "https://a.example", "https://b.example", "success")
    cand = _fetch_then_answer_then_fetch("c", "https://a.example", "https://b.example")
    report = compare(base, cand)
    assert _outcomes(report) == [("c1", "gave_up", None, False)]
    assert report.candidate.retries == 0 == sum(r.retry for r in report.recovery)
    assert "gave up" in _error_sentences(report)[0]


def test_the_same_url_fetched_again_after_the_answer_is_a_retry():
    cand = _fetch_then_answer_then_fetch("c", "https://a.example", "https://a.example")
    report = compare(cand, cand)
    assert _outcomes(report) == [("c1", "retried_succeeded", "c4", False)]
    assert report.candidate.retries == 1


def test_the_same_tool_called_next_with_other_arguments_is_a_retry_with_other_arguments():
    cand = tools(("fetch", {"url": "a"}, "error"), ("fetch", {"url": "a/"}), prefix="c")
    report = compare(tools(("fetch", {"url": "a/"})), cand)
    assert _outcomes(report) == [("c1", "retried_succeeded", "c3", True)]
    assert report.candidate.retries == 1 == sum(r.retry for r in report.recovery)
    (sentence,) = _error_sentences(report)
    assert "retried with other arguments → succeeded" in sentence


def test_other_arguments_still_failing_and_no_retry_storm():
    calls = [("fetch", {"url": u}, "error") for u in ("a", "b", "c")]
    report = compare(tools(("fetch", {"url": "a"})), tools(*calls, prefix="c"))
    assert [(r.outcome, r.other_arguments) for r in report.recovery] == [
        ("retried_still_failing", True),
        ("retried_still_failing", True),
        ("gave_up", False),
    ]
    assert report.loops == []  # three different calls: no retry storm
    assert "retried with other arguments → still failing" in _error_sentences(report)[0]


def test_three_failures_of_one_call_are_a_storm_of_same_argument_retries():
    calls = [("fetch", {"url": "a"}, "error")] * 3
    report = compare(tools(("fetch", {"url": "a"})), tools(*calls, prefix="c"))
    assert [(lp.kind, lp.repetitions) for lp in report.loops] == [("retry_storm", 3)]
    assert [(r.outcome, r.other_arguments) for r in report.recovery] == [
        ("retried_still_failing", False),
        ("retried_still_failing", False),
        ("gave_up", False),
    ]
    assert report.candidate.retries == 2


def test_a_sibling_issued_in_the_same_turn_is_no_retry():
    """One model message issued fetch(a) and fetch(b); fetch(a) failing was not retried."""

    def fan(prefix: str, status: str):
        return trace(
            [
                step(0, "llm_call", "model", prefix=prefix),
                _fetch(1, 0, prefix, "a", status),
                _fetch(2, 0, prefix, "b"),
                step(3, "response", "answer", prefix=prefix),
            ],
            prefix,
        )

    report = compare(fan("b", "success"), fan("c", "error"))
    assert _outcomes(report) == [("c1", "gave_up", None, False)]
    assert report.candidate.retries == 0


def _twins_in_one_turn(prefix: str, *, fetch_again: bool):
    """One LLM turn issues the same fetch twice at once (the first fails), then the run goes on
    (and, when `fetch_again`, fetches that URL again in the next turn)."""
    steps = [
        step(0, "llm_call", "model", prefix=prefix),
        _fetch(1, 0, prefix, "https://a.example", "error"),
        _fetch(2, 0, prefix, "https://a.example"),
        step(3, "llm_call", "model", prefix=prefix),
    ]
    if fetch_again:
        steps.append(_fetch(4, 3, prefix, "https://a.example"))
    steps.append(step(len(steps), "response", "answer", prefix=prefix))
    return trace(steps, prefix)


def test_an_identical_call_issued_in_the_same_turn_is_no_retry():
    """Calls of one turn are issued together: the twin beside the failed call is not a later
    attempt of it, so the failure was never retried."""
    cand = _twins_in_one_turn("c", fetch_again=False)
    report = compare(cand, cand)
    assert _outcomes(report) == [("c1", "gave_up", None, False)]
    assert report.candidate.retries == 0
    assert "gave up" in _error_sentences(report)[0]


def test_the_retry_of_a_call_with_a_twin_in_its_turn_is_the_later_call():
    cand = _twins_in_one_turn("c", fetch_again=True)
    report = compare(cand, cand)
    assert _outcomes(report) == [("c1", "retried_succeeded", "c4", False)]
    assert report.candidate.retries == 1


def test_twins_in_many_turns_are_no_retries_past_the_few_failures_scan():
    """More failed steps than `FEW_FAILURES` take the backward walk: the same answer. (Each
    turn calls another tool, so no turn's calls are the next action's retry either.)"""
    steps = []
    for turn in range(FEW_FAILURES + 4):
        at = len(steps)
        steps.append(step(at, "llm_call", "model", prefix="c"))
        for offset, status in ((1, "error"), (2, "success")):
            steps.append(
                step(
                    at + offset,
                    "tool_call",
                    f"lookup_{turn}",
                    at,
                    prefix="c",
                    input_payload={"q": "same"},
                    status=status,
                    error_message="HTTP 503" if status == "error" else None,
                )
            )
    cand = trace([*steps, step(len(steps), "response", "answer", prefix="c")], "c")
    report = compare(cand, cand)
    assert {r.outcome for r in report.recovery} == {"gave_up"}
    assert len(report.recovery) == FEW_FAILURES + 4
    assert report.candidate.retries == 0


def _fan_out_in_wrappers(prefix: str, *, fetch_again: bool):
    """One model message asks for the same fetch twice and each call runs in its own `tools`
    wrapper (a LangGraph fan-out): the calls are no siblings, but share the message's `turn_id`.
    The first fails; when `fetch_again`, the next model turn fetches that URL again."""
    turn = {"turn_id": f"{prefix}1"}
    steps = [
        step(0, "routing", "graph", prefix=prefix),
        step(1, "llm_call", "model", 0, prefix=prefix),
        step(2, "routing", "tools", 0, prefix=prefix),
        _fetch(3, 2, prefix, "https://a.example", "error").model_copy(update={"metadata": turn}),
        step(4, "routing", "tools", 0, prefix=prefix),
        _fetch(5, 4, prefix, "https://a.example").model_copy(update={"metadata": turn}),
        step(6, "llm_call", "model", 0, prefix=prefix),
    ]
    if fetch_again:
        steps.append(_fetch(7, 6, prefix, "https://a.example"))
    steps.append(step(len(steps), "response", "answer", 0, prefix=prefix))
    return trace(steps, prefix)


def test_a_twin_the_same_model_message_issued_in_another_wrapper_is_no_retry():
    cand = _fan_out_in_wrappers("c", fetch_again=False)
    report = compare(cand, cand)
    assert _outcomes(report) == [("c3", "gave_up", None, False)]
    assert report.candidate.retries == 0


def test_the_retry_of_a_wrapped_twin_is_the_call_of_a_later_message():
    cand = _fan_out_in_wrappers("c", fetch_again=True)
    report = compare(cand, cand)
    assert _outcomes(report) == [("c3", "retried_succeeded", "c7", False)]
    assert report.candidate.retries == 1


def _fan_out(prefix: str, status: str, copies: int = 3, turn_ids: bool = False):
    """One LLM turn issues the same fetch `copies` times at once; then the answer. With
    `turn_ids`, each call sits in a wrapper of its own (a LangGraph tools node) and only its
    `turn_id` says which model message issued it."""
    steps = [step(0, "llm_call", "model", prefix=prefix)]
    for _ in range(copies):
        parent = 0
        if turn_ids:
            parent = len(steps)
            steps.append(step(parent, "routing", "tools", 0, prefix=prefix))
        at = len(steps)
        fetch = _fetch(at, parent, prefix, "https://a.example", status)
        if turn_ids:
            fetch = fetch.model_copy(update={"metadata": {"turn_id": "msg-1"}})
        steps.append(fetch)
    steps.append(step(len(steps), "response", "answer", prefix=prefix))
    return trace(steps, prefix)


def test_identical_calls_issued_at_once_are_no_retry_storm():
    """Three identical failed calls of one turn ran at once: each gave up (none was retried), so
    they are no 'retry storm' either (which says each but the last was retried)."""
    for turn_ids in (False, True):
        report = compare(_fan_out("b", "success"), _fan_out("c", "error", turn_ids=turn_ids))
        assert report.loops == [], turn_ids
        assert [r.outcome for r in report.recovery] == ["gave_up"] * 3
        assert report.candidate.retries == 0


def test_identical_successful_calls_issued_at_once_are_no_loop():
    report = compare(_fan_out("b", "success", copies=1), _fan_out("c", "success", copies=4))
    assert report.loops == []


def test_the_same_fan_out_repeated_turn_after_turn_is_still_a_loop():
    """One call per turn, turn after turn: each call ran after the one before, a real loop."""
    calls = [("fetch", {"url": "a"})] * 4
    report = compare(tools(("fetch", {"url": "a"})), tools(*calls, prefix="c"))
    assert [(lp.kind, lp.repetitions, lp.new) for lp in report.loops] == [("loop", 4, True)]


def test_a_loop_the_baseline_ran_longer_says_it_shrank():
    """'known in the baseline' alone read as if the baseline looped as much; it looped more."""
    base = tools(*[("w", {"q": 1})] * 5, prefix="b")
    shrunk = compare(base, tools(*[("w", {"q": 1})] * 3, prefix="c"))
    (line,) = [finding_line(f, shrunk) for f in shrunk.findings if f.kind == "loop"]
    assert "w ×3" in line and "(loop, known in the baseline, shrunk from ×5)" in line
    assert "known loop w ×3 (the baseline has it ×5)" in [w.message for w in shrunk.gate.warnings]
    same = compare(base, tools(*[("w", {"q": 1})] * 5, prefix="c"))
    (line,) = [finding_line(f, same) for f in same.findings if f.kind == "loop"]
    assert "(loop, known in the baseline)" in line
    assert "known loop w ×5 (the baseline has it too)" in [w.message for w in same.gate.warnings]
