"""`report_kind` knows AgentDiff's own reports, and never takes a trace for one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from agentdiff import compare, compare_scenarios
from agentdiff.errors import AgentDiffError, NotARunError, UnknownFormatError
from agentdiff.loader import load_trace, own_report, parse_trace_data, read_document
from agentdiff.models.report import DiffReport
from agentdiff.report_kinds import REPORT_KINDS, report_kind
from agentdiff.scenario.folders import is_trace_file
from agentdiff.scenario.report import RoutesReport, RunsReport
from agentdiff.suite.report import SuiteReport
from tests.realdata import other_documents

TESTS = Path(__file__).resolve().parent
POOL = TESTS / "fixtures" / "runs_pool"


def _trace_files() -> list[Path]:
    """Every trace file under tests/fixtures, as a search for runs finds them."""
    return sorted(p for p in (TESTS / "fixtures").rglob("*") if is_trace_file(p))


def test_no_trace_fixture_is_a_report() -> None:
    files = _trace_files()
    assert set(other_documents("")) <= set(files)
    assert len(files) > 500
    taken = [p for p in files if report_kind(read_document(p)) is not None or own_report(p)]
    assert taken == []


def _pool(folder: str) -> list[Any]:
    return [load_trace(p) for p in sorted((POOL / folder).iterdir())[:3]]


def test_the_reports_agentdiff_writes_are_known() -> None:
    base, cand = _pool("baseline"), _pool("loop")
    pair = orjson.loads(compare(base[0], cand[0]).to_json())
    runs = orjson.loads(compare_scenarios({"s": (base, cand)}).to_json())
    assert report_kind(pair) == "comparison report"
    assert report_kind(runs) == "runs report"


@pytest.mark.parametrize(
    "document",
    [
        {"report_version": "2", "alignment": [], "divergence": 0, "steps": []},
        {"report_version": "2", "alignment": []},
        {"alignment": [], "divergence": 0},
        {"report_version": "2", "scenarios": []},
        [{"report_version": "2", "settings": {}, "counts": {}}],
        "report_version",
    ],
)
def test_a_document_short_of_a_report_is_none(document: Any) -> None:
    assert report_kind(document) is None


def test_loading_a_report_raises_not_a_run_naming_the_file(tmp_path: Path) -> None:
    base, cand = _pool("baseline"), _pool("loop")
    path = tmp_path / "diff.json"
    path.write_text(compare(base[0], cand[0]).to_json())
    with pytest.raises(NotARunError) as raised:
        load_trace(path)
    assert isinstance(raised.value, UnknownFormatError)
    assert str(raised.value) == (
        f"{path}: an AgentDiff comparison report (report_version 2), not a run"
    )
    assert raised.value.hint == "compare the runs it was made from"
    with pytest.raises(NotARunError):
        parse_trace_data(read_document(path))
    found = own_report(path)
    assert found is not None and found.source == str(path)


def test_a_report_named_by_an_adapter_is_no_report_error(tmp_path: Path) -> None:
    """A forced adapter is asked, not detection: its own error, as for any document."""
    path = tmp_path / "runs.json"
    path.write_text(compare_scenarios({"s": (_pool("baseline"), _pool("loop"))}).to_json())
    with pytest.raises(AgentDiffError) as raised:
        load_trace(path, "generic")
    assert not isinstance(raised.value, NotARunError)


@pytest.mark.parametrize(
    ("kind", "model"),
    [
        ("comparison report", DiffReport),
        ("runs report", RunsReport),
        ("routes report", RoutesReport),
        ("suite report", SuiteReport),
    ],
)
def test_each_kind_is_told_by_fields_its_report_model_has(kind: str, model: type) -> None:
    """The keys a kind is told by are fields of its model, and `report_version` is its first."""
    fields = list(model.model_fields)
    assert fields[0] == "report_version"
    assert REPORT_KINDS[kind] <= set(fields)
    others = [k for k, keys in REPORT_KINDS.items() if k != kind and keys <= set(fields)]
    assert all(list(REPORT_KINDS).index(kind) < list(REPORT_KINDS).index(k) for k in others)
