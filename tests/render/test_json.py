"""The JSON report written straight from the records equals pydantic's JSON dump of it."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentdiff.diff import compare
from agentdiff.models import report as report_module
from agentdiff.models.report import Aligned, Change, DiffReport, Op, StepRef, _fields_of
from agentdiff.models.trace import AgentTrace, TraceStep
from tests.render.reports import hostile_report, real_report

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _pydantic_json(report: DiffReport) -> str:
    return orjson.dumps(report.model_dump(mode="json"), option=orjson.OPT_INDENT_2).decode()


def _joined_parts(report: DiffReport, *, newline: bool = False) -> str:
    return b"".join(report.json_parts(newline=newline)).decode()


def _synthetic(n: int, seed: int) -> DiffReport:
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(BENCHMARKS))
        import synthetic  # the benchmark's generator, found on its own path

    pair = synthetic.make_pair(n, seed=seed)
    return compare(pair.baseline, pair.candidate)


@pytest.mark.parametrize("scenario", ["detour", "error_retry", "identical", "loop", "reworded"])
def test_direct_json_equals_the_pydantic_dump(scenario: str) -> None:
    report = real_report(scenario)
    assert report.to_json() == _pydantic_json(report)
    assert report.to_json(indent=False) == orjson.dumps(report.model_dump(mode="json")).decode()


def test_direct_json_of_a_hostile_report() -> None:
    report = hostile_report()
    assert report.to_json() == _pydantic_json(report)


def _trace(trace_id: str, value: object) -> AgentTrace:
    step = TraceStep(
        step_id="s0", step_index=0, step_type="tool_call", name="t", input_payload={"n": value}
    )
    return AgentTrace(trace_id=trace_id, agent_name="a", steps=[step])


def test_a_value_orjson_writes_differently_takes_the_pydantic_route() -> None:
    when = datetime(2024, 1, 1, tzinfo=timezone.utc)
    report = compare(_trace("b", 1), _trace("c", when))
    text = report.to_json()
    assert text == _pydantic_json(report)
    assert '"2024-01-01T00:00:00Z"' in text


@pytest.mark.parametrize("record", [StepRef, Aligned, Change])
def test_each_dataclass_record_gives_orjson_all_its_fields_in_order(record: type) -> None:
    values = {f.name: f"value of {f.name}" for f in fields(record)}
    given = _fields_of(record(**values))
    assert list(given.items()) == list(values.items())


def test_direct_json_of_a_synthetic_pair_with_every_kind_of_change() -> None:
    report = _synthetic(600, seed=3)
    assert {entry.op for entry in report.alignment} >= {Op.CHANGE, Op.INSERT, Op.DELETE}
    assert report.to_json() == _pydantic_json(report)
    assert report.to_json(indent=False) == orjson.dumps(report.model_dump(mode="json")).decode()


@dataclass
class _Units:
    kind: str
    count: int


def test_a_dataclass_in_a_changed_argument_takes_the_pydantic_route() -> None:
    report = compare(_trace("b", _Units("m", 1)), _trace("c", _Units("m", 2)))
    assert [c.baseline for entry in report.alignment for c in entry.changes] == [_Units("m", 1)]
    text = report.to_json()
    assert text == _pydantic_json(report)
    assert '"kind": "m",\n' in text


# --- the same JSON in parts (what `agentdiff compare -o FILE` writes) ---------------------------


@pytest.mark.parametrize("scenario", ["detour", "error_retry", "identical", "loop", "reworded"])
def test_the_parts_join_into_the_report_json(scenario: str) -> None:
    report = real_report(scenario)
    assert _joined_parts(report) == report.to_json()
    assert _joined_parts(report, newline=True) == report.to_json() + "\n"


@pytest.mark.parametrize("size", [1, 7, 2000])
def test_the_parts_of_a_long_alignment_in_slices_of_any_size(
    size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(report_module, "_SLICE", size)
    report = _synthetic(600, seed=5)
    parts = list(report.json_parts(newline=True))
    assert len(parts) >= 2 * -(-len(report.alignment) // size)  # one part a slice, or more
    assert b"".join(parts) == report.to_json_bytes(newline=True)
    assert b"".join(parts).decode() == _pydantic_json(report) + "\n"


def test_the_parts_of_a_hostile_report_and_of_an_empty_alignment() -> None:
    report = hostile_report()
    assert _joined_parts(report) == _pydantic_json(report)
    empty = compare(
        AgentTrace(trace_id="b", agent_name="a"), AgentTrace(trace_id="c", agent_name="a")
    )
    assert empty.alignment == []
    assert _joined_parts(empty, newline=True) == _pydantic_json(empty) + "\n"


def test_a_slice_orjson_cannot_write_takes_the_pydantic_route(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A datetime in a later entry: its slice alone is dumped by pydantic, the rest directly."""
    monkeypatch.setattr(report_module, "_SLICE", 1)
    when = datetime(2024, 1, 1, tzinfo=timezone.utc)
    steps = [
        TraceStep(step_id=f"s{i}", step_index=i, step_type="tool_call", name=f"t{i}")
        for i in range(3)
    ]
    changed = [
        step.model_copy(update={"input_payload": {"n": value}})
        for step, value in zip(steps, [1, 2, when], strict=True)
    ]
    report = compare(
        AgentTrace(trace_id="b", agent_name="a", steps=steps),
        AgentTrace(trace_id="c", agent_name="a", steps=changed),
    )
    dumps: list[object] = []
    dump = DiffReport.model_dump

    def counted(self: DiffReport, **options: Any) -> dict[str, Any]:
        dumps.append(options)
        return dump(self, **options)

    monkeypatch.setattr(DiffReport, "model_dump", counted)
    text = _joined_parts(report)
    assert dumps == [{"mode": "json", "include": {"alignment"}}]  # the slices' route, once
    assert text == _pydantic_json(report) == report.to_json()
    assert '"2024-01-01T00:00:00Z"' in text


def test_a_first_change_orjson_cannot_write_gives_the_whole_pydantic_dump() -> None:
    when = datetime(2024, 1, 1, tzinfo=timezone.utc)
    report = compare(_trace("b", 1), _trace("c", when))
    parts = list(report.json_parts())
    assert len(parts) == 1
    assert bytes(parts[0]).decode() == _pydantic_json(report)
