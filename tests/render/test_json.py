"""The JSON report written straight from the records equals pydantic's JSON dump of it."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest

from agentdiff.diff import compare
from agentdiff.models.report import Aligned, Change, DiffReport, Op, StepRef, _fields_of
from agentdiff.models.trace import AgentTrace, TraceStep
from tests.render.reports import hostile_report, real_report

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _pydantic_json(report: DiffReport) -> str:
    return orjson.dumps(report.model_dump(mode="json"), option=orjson.OPT_INDENT_2).decode()


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
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(BENCHMARKS))
        import synthetic  # the benchmark's generator, found on its own path

    pair = synthetic.make_pair(600, seed=3)
    report = compare(pair.baseline, pair.candidate)
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
