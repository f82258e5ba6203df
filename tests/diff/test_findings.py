"""Findings: kind, rows, step ids, tool, counts and token effects read off the steps themselves."""

from __future__ import annotations

import orjson
import pytest

from agentdiff import AgentTrace, CompareOptions, compare, load_trace
from agentdiff.diff import findings
from agentdiff.diff.findings import report_findings
from agentdiff.models.report import DiffReport, Effect, Finding, Op
from agentdiff.render import render
from tests.diff.builders import step, tools, trace
from tests.realdata import real_pairs


def _turns(prefix: str, plan: list[tuple[str, dict[str, object], int]]) -> list:
    """An LLM turn (with `tokens`) before each tool call, flat (no parents)."""
    steps = []
    for name, args, used in plan:
        n = len(steps)
        usage = {"prompt_tokens": used - 10, "completion_tokens": 10, "total_tokens": used}
        steps.append(step(n, "llm_call", "model", prefix=prefix, tokens=usage))
        steps.append(step(n + 1, "tool_call", name, prefix=prefix, input_payload=args))
    return steps


def _by_kind(report: DiffReport) -> dict[str, list]:
    found: dict[str, list] = {}
    for finding in report.findings:
        found.setdefault(finding.kind, []).append(finding)
    return found


def test_loop_rows_and_tokens_come_from_the_extra_steps_own_tokens():
    base = trace(_turns("b", [("search", {"q": "x"}, 100), ("answer", {}, 50)]), "b")
    looped = [("search", {"q": "x"}, 100)] * 4 + [("answer", {}, 50)]
    cand = trace(_turns("c", [(n, a, 100 + 7 * i) for i, (n, a, _) in enumerate(looped)]), "c")
    report = compare(base, cand)
    (loop,) = _by_kind(report)["loop"]
    assert loop.tool == "search" and loop.count == 4 and loop.new
    inserted = [i + 1 for i, e in enumerate(report.alignment) if e.op is Op.INSERT]
    assert set(inserted) <= set(loop.rows)
    own = {s.step_id: s.tokens.total_tokens for s in cand.steps if s.tokens}
    expected = sum(own.get(report.alignment[r - 1].candidate.step_id, 0) for r in inserted)
    assert loop.effect.steps == len(inserted)
    assert loop.effect.tokens == expected
    assert loop.effect.of_tokens == report.deltas.total_tokens.delta
    line = next(x for x in render(report, "terminal").splitlines() if "×4 at rows" in x)
    assert f"these {len(inserted)} extra steps carry +{expected:,} of " in line


def _flat(prefix: str, plan: list[tuple[str, str, int]]) -> list:
    usage = lambda n: {"prompt_tokens": n, "completion_tokens": 0, "total_tokens": n}  # noqa: E731
    return [
        step(i, kind, name, prefix=prefix, tokens=usage(used) if used else None)
        for i, (kind, name, used) in enumerate(plan)
    ]


def test_added_and_removed_runs_name_rows_and_carry_their_tokens():
    base = _flat(
        "b",
        [
            ("llm_call", "plan", 10),
            ("tool_call", "a", 0),
            ("llm_call", "check", 40),
            ("tool_call", "gone", 0),
            ("tool_call", "b", 0),
        ],
    )
    cand = _flat(
        "c",
        [
            ("llm_call", "plan", 10),
            ("tool_call", "a", 0),
            ("tool_call", "b", 0),
            ("llm_call", "think", 30),
            ("tool_call", "extra", 0),
        ],
    )
    report = compare(trace(base, "b"), trace(cand, "c"))
    found = _by_kind(report)
    (removed,) = found["removed_steps"]
    assert removed.count == 2 and removed.rows == [3, 4]
    assert removed.effect.steps == -2 and removed.effect.tokens == -40  # "check" carried 40
    assert removed.tool == "check, gone" and removed.step_ids == ["b2", "b3"]
    (added,) = found["added_steps"]
    assert added.rows == [6, 7] and added.step_ids == ["c3", "c4"]
    assert added.effect.steps == 2 and added.effect.tokens == 30
    assert added.effect.of_tokens == report.deltas.total_tokens.delta == -10
    text = render(report, "terminal", width=200)
    assert (
        "2 steps removed at rows 3–4 (check, gone): these 2 steps carried −40 of −10 tokens" in text
    )
    assert "2 extra steps at rows 6–7 (think, extra): these 2 steps carry +30 of −10 tokens" in text


def test_changed_calls_errors_and_content():
    base = tools(("get", {"city": "Paris"}), ("put", {"v": 1}))
    cand = tools(("get", {"city": "Rome"}), ("put", {"v": 1}, "error"), prefix="c")
    report = compare(base, cand)
    found = _by_kind(report)
    (changed,) = found["changed_calls"]  # an argument and a status
    assert changed.count == report.changed_calls == 2
    assert changed.tool == "get, put" and changed.step_ids == ["c1", "c3"]
    assert [report.alignment[r - 1].candidate.step_id for r in changed.rows] == ["c1", "c3"]
    (error,) = found["error"]
    assert error.step_ids == ["c3"] and error.tool == "put" and error.message == "boom"
    assert error.outcome == "gave_up"
    text = render(report, "markdown")
    assert "2 calls changed (arguments, status) at rows 2, 4 (get, put)" in text
    assert "error in put (row 4): gave up; " in text and '"boom"' in text


def test_findings_are_in_the_json_contract():
    report = compare(tools(("get", {"a": 1})), tools(("get", {"a": 2}), prefix="c"))
    data = orjson.loads(report.to_json())
    kinds = [f["kind"] for f in data["findings"]]
    assert kinds[0] == "first_divergence" or "changed_calls" in kinds
    assert DiffReport.model_validate(data).findings == report.findings


def test_identical_runs_have_no_findings():
    run = tools(("get", {"a": 1}), ("put", {"b": 2}))
    assert compare(run, run).findings == []


@pytest.mark.parametrize("compare_content", [False, True])
@pytest.mark.parametrize("pair", real_pairs()[::3], ids=lambda p: p.id)
def test_findings_read_off_the_report_alone_equal_compares(pair, compare_content):
    """`compare` hands the findings the content rows it noted; read off the report, the same."""
    options = CompareOptions(compare_content=compare_content)
    report = compare(load_trace(pair.baseline), load_trace(pair.candidate), options=options)
    assert report_findings(report, compare_content=compare_content) == report.findings
    content = [
        r for r, e in enumerate(report.alignment, 1) if any(c.kind == "content" for c in e.changes)
    ]
    assert report.content_changes == len(content)


@pytest.mark.parametrize("pair", real_pairs(), ids=lambda p: p.id)
def test_findings_built_without_validation_equal_validated_ones(pair, monkeypatch):
    """Each finding (and effect) equals the one validation makes of the same values."""
    report = compare(load_trace(pair.baseline), load_trace(pair.candidate))
    fast = report_findings(report)
    monkeypatch.setattr(findings, "_finding", Finding)
    monkeypatch.setattr(findings, "_effect", lambda s, t, o: Effect(steps=s, tokens=t, of_tokens=o))
    slow = report_findings(report)
    assert len(fast) == len(slow)
    for built, validated in zip(fast, slow, strict=True):
        assert built.model_fields_set == validated.model_fields_set
        assert _typed(built) == _typed(validated)
        if built.effect is not None:
            assert built.effect.model_fields_set == validated.effect.model_fields_set
            assert _typed(built.effect) == _typed(validated.effect)
        assert orjson.dumps(built.model_dump()) == orjson.dumps(validated.model_dump())


def _typed(record: Finding | Effect) -> list[tuple[str, type, object]]:
    """Each field's name, value type and value (an int is not a float here)."""
    return [(k, type(v), v) for k, v in record.__dict__.items()]


def _calls(prefix: str, names: list[str]) -> AgentTrace:
    """Flat untimed tool calls, no tokens."""
    return trace([step(i, "tool_call", n, prefix=prefix) for i, n in enumerate(names)], prefix)


def test_a_loop_counts_its_inserted_steps_and_a_step_deleted_inside_it_is_its_own_finding():
    report = compare(
        _calls("b", ["plan", "search", "patch", "answer"]),
        _calls("c", ["plan", "search", "search", "search", "search", "answer"]),
    )
    found = _by_kind(report)
    (loop,) = found["loop"]
    inserted = [i + 1 for i, e in enumerate(report.alignment) if e.op is Op.INSERT]
    (deleted,) = [i + 1 for i, e in enumerate(report.alignment) if e.op is Op.DELETE]
    assert loop.effect.steps == len(inserted) == 3  # not 3 - 1: the deletion is not netted
    assert deleted in loop.rows  # shown inside the loop's rows, and still reported on its own
    (removed,) = found["removed_steps"]
    assert removed.rows == [deleted] and removed.tool == "patch"
    text = render(report, "terminal")
    assert "search ×4 at rows" in text and "(loop, new): these 3 extra steps report no" in text
    assert f"1 step removed at row {deleted} (patch): it reports no tokens" in text


def test_a_loop_that_grew_says_from_how_many_repetitions():
    base = _calls("b", ["plan", *["search", "open"] * 3, "answer"])
    grown = compare(base, _calls("c", ["plan", *["search", "open"] * 4, "answer"]))
    (loop,) = _by_kind(grown)["loop"]
    assert loop.new and grown.loops[0].baseline_repetitions == 3
    assert "×4 at rows" in render(grown, "terminal")
    assert "(loop, grown from ×3)" in render(grown, "terminal")
    assert "(loop, new)" not in render(grown, "markdown")
    fresh = compare(_calls("b", ["plan", "answer"]), _calls("c", ["plan", *["search"] * 3]))
    assert "(loop, new)" in render(fresh, "terminal")
