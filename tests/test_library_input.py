"""What the library does with input the loader never saw: objects that are not traces, and
traces built in Python whose payloads nest past the pipeline's limit (loading refuses those;
`compare()` must too, with the payload named, in the pure and the compiled engine alike)."""

from __future__ import annotations

from typing import Any

import pytest

from agentdiff import CompareOptions, TraceValidationError, compare
from agentdiff.errors import ConfigError
from agentdiff.limits import MAX_DEPTH
from agentdiff.models.trace import AgentTrace
from agentdiff.render import RENDERERS, render, render_output
from agentdiff.scenario.api import compare_runs, compare_scenarios
from tests.diff.builders import step, trace


def _nested(levels: int, shape: str) -> dict[str, Any]:
    """A payload of exactly `levels` levels (`{"a": 1}` is one): dicts, or lists in a dict."""
    value: Any = 1
    for _ in range(levels - 1):
        value = {"a": value} if shape == "dict" else [value, 0]
    return {"a": value}


def _run(trace_id: str, **payloads: Any) -> AgentTrace:
    calls = [step(0, "tool_call", "search", input_payload={"q": 1})]
    calls.append(step(1, "tool_call", "fetch", **payloads))
    return trace(calls, trace_id=trace_id)


SHALLOW = {"input_payload": {"url": "x"}, "output_payload": {"ok": True}}
CASES = [
    pytest.param(side, field, shape, ignore, id=f"{side}-{field}-{shape}-{ignore or 'plain'}")
    for side in ("baseline", "candidate")
    for field in ("input_payload", "output_payload")
    for shape in ("dict", "list")
    for ignore in ((), ("**.request_id",))
]


def _pair(side: str, field: str, shape: str, levels: int) -> tuple[AgentTrace, AgentTrace]:
    deep = {**SHALLOW, field: _nested(levels, shape)}
    if side == "baseline":
        return _run("b", **deep), _run("c", **SHALLOW)
    return _run("b", **SHALLOW), _run("c", **deep)


@pytest.mark.parametrize(("side", "field", "shape", "ignore"), CASES)
def test_a_payload_at_the_limit_compares(side, field, shape, ignore) -> None:
    baseline, candidate = _pair(side, field, shape, MAX_DEPTH)
    report = compare(baseline, candidate, options=CompareOptions(ignore=list(ignore)))
    changed = report.alignment[1]  # an argument change; output is content (a match)
    assert changed.op.value == ("change" if field == "input_payload" else "match")
    expected = {f"{field}.{key}" for key in [*SHALLOW[field], "a"]}
    assert {c.path for c in changed.changes} == expected
    for fmt in RENDERERS:  # the report holds the deep value, and every format writes it
        assert render(report, fmt)


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 5_000, 50_000])
@pytest.mark.parametrize(("side", "field", "shape", "ignore"), CASES)
def test_a_payload_past_the_limit_is_named_never_a_crash(
    side, field, shape, ignore, levels
) -> None:
    # 50,000 levels overflowed the C stack of the compiled engine (a segfault), and 5,000
    # was a bare RecursionError from the pure one
    baseline, candidate = _pair(side, field, shape, levels)
    with pytest.raises(TraceValidationError) as raised:
        compare(baseline, candidate, options=CompareOptions(ignore=list(ignore)))
    message = str(raised.value)
    assert message.startswith(f"the {side}'s steps[1].{field}")
    assert f"nests deeper than {MAX_DEPTH} levels" in message


def test_equal_deep_payloads_are_refused_too() -> None:
    base = _run("b", **{**SHALLOW, "output_payload": _nested(50_000, "dict")})
    cand = _run("c", **{**SHALLOW, "output_payload": _nested(50_000, "dict")})
    with pytest.raises(TraceValidationError, match=r"the baseline's steps\[1\]\.output_payload"):
        compare(base, cand)


@pytest.mark.parametrize("given", ["baseline.json", {"steps": []}, None])
@pytest.mark.parametrize("side", ["baseline", "candidate"])
def test_compare_says_how_to_load_what_is_not_a_trace(given: object, side: str) -> None:
    run = _run("r", **SHALLOW)
    args = (given, run) if side == "baseline" else (run, given)
    with pytest.raises(TypeError) as raised:
        compare(*args)  # type: ignore[arg-type]
    message = str(raised.value)
    assert f"the {side} is not one (got {type(given).__name__};" in message
    assert "agentdiff.load_trace(path)" in message


@pytest.mark.parametrize(
    ("runs", "words"),
    [
        ("baseline.json", r"the baseline must be a list of runs \(got str\)"),
        (_run("r", **SHALLOW), r"the baseline must be a list of runs \(got AgentTrace\)"),
        (["baseline.json"], r"baseline run 1 is not an AgentTrace .* \(got str;"),
        ([None], r"baseline run 1 is not .* \(got NoneType;"),
        ([("run-1", "baseline.json")], r"baseline run 1 is not .* \(got tuple;"),
    ],
    ids=["path", "one-trace", "list-of-paths", "none", "pair-with-a-path"],
)
def test_compare_runs_says_what_a_run_is(runs: object, words: str) -> None:
    good = [_run("r", **SHALLOW)]
    with pytest.raises(TypeError, match=words):
        compare_runs(runs, good, scenario="s")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=words):
        compare_scenarios({"s": (runs, good)})  # type: ignore[dict-item]


def test_runs_given_as_named_pairs_still_compare() -> None:
    runs = [("one", _run("r", **SHALLOW)), _run("r", **SHALLOW)]
    report = compare_runs(runs, runs, scenario="s")
    assert report.scenario == "s"
    with pytest.raises(ConfigError, match="has no candidate runs"):
        compare_runs(runs, [], scenario="s")


def test_options_given_as_a_dict_are_validated_into_compare_options() -> None:
    run = _run("r", **SHALLOW)
    loop = trace([step(i, "tool_call", "search", input_payload={"q": 1}) for i in range(4)])
    assert compare(run, loop, options={"detect_loops": False}).loops == []
    assert compare(run, loop, options={"detect_loops": True}).loops
    with pytest.raises(ValueError, match="detect_loop\n"):  # a typo is no silent default
        compare(run, run, options={"detect_loop": False})
    with pytest.raises(TypeError, match="a CompareOptions or a dict of its fields, not int"):
        compare(run, run, options=3)  # type: ignore[arg-type]


@pytest.mark.parametrize("given", [None, "report.json", {"alignment": []}])
def test_render_says_it_renders_a_diff_report(given: object) -> None:
    kind = type(given).__name__
    with pytest.raises(TypeError, match=f"render\\(\\) renders a DiffReport .*, not {kind}$"):
        render(given, "terminal")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=f"render_output\\(\\) renders a DiffReport .*not {kind}$"):
        render_output(given, "json")  # type: ignore[arg-type]
