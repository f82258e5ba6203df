"""AgentDiff's own JSON reports, told apart from runs by their top-level keys.

Every JSON report AgentDiff writes is an object that starts with `report_version` and holds
keys no trace has: a `compare` report (`DiffReport`) its `alignment` and `divergence`, a
`compare-runs` report (`RunsReport`) its `settings` and `counts`, a `routes` report
(`RoutesReport`) its `threshold` and `scenarios`, a `suite` report (`SuiteReport`) its
`counts` beside `baseline` and `candidate`. The loader asks `report_kind` only of a document no
adapter recognises, so a trace is never read as a report.
"""

from __future__ import annotations

from typing import Any

__all__ = ["REPORT_KINDS", "report_kind"]

REPORT_KINDS: dict[str, frozenset[str]] = {
    "suite report": frozenset({"counts", "baseline", "candidate"}),
    "comparison report": frozenset({"alignment", "divergence"}),
    "runs report": frozenset({"settings", "counts"}),
    "routes report": frozenset({"threshold", "scenarios"}),
}
"""Each report kind and the top-level keys (beside `report_version`) only its documents hold
all of, the kinds asked in this order (a suite report's three keys first: a runs report holds
`counts` too). `tests/test_report_kinds.py` checks them against the report models' fields."""


def report_kind(document: Any) -> str | None:
    """Which of AgentDiff's own reports `document` (parsed JSON) is, e.g. "runs report".

    `None` for anything else: a report is an object with `report_version`, every key of one
    kind in `REPORT_KINDS`, and no `steps` (what a trace holds).
    """
    if not isinstance(document, dict) or "report_version" not in document or "steps" in document:
        return None
    keys = document.keys()
    return next((kind for kind, needs in REPORT_KINDS.items() if needs <= keys), None)
