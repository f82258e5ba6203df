"""The JUnit XML suite report: one test case per scenario, so CI lists each one.

Regressed = `<failure>` (its broken rules and findings), error = `<error>` (the load failure;
also a scenario judged on the runs that loaded while others could not be, unless it failed),
added / removed = `<skipped>` with the reason, improved = a passing case whose `<system-out>` says
why (with the p and q that support it), inconclusive = `<skipped>` with its reasons, or a
`<failure>` (counted as one) when the report's `[stats] inconclusive = "fail"` makes it fail the
suite, as it fails the exit code; passing scenarios are plain test cases. Text is cleaned of the
control characters XML 1.0 cannot hold; ElementTree escapes the rest.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from agentdiff.render import prepare
from agentdiff.render.junit import xml_text
from agentdiff.render.options import RenderOptions
from agentdiff.render.text import multiline
from agentdiff.stats_options import inconclusive_fails
from agentdiff.suite.render.view import scenario_views, summary_line
from agentdiff.suite.report import ScenarioRow, SuiteReport

__all__ = ["render_suite_junit"]

_SKIPPED = {
    "added": "only in the candidate (a new scenario)",
    "removed": "only in the baseline (allowed by --allow-missing)",
}


def render_suite_junit(report: SuiteReport, options: RenderOptions | None = None) -> str:  # noqa: ARG001
    """The suite as JUnit XML."""
    counts = report.counts
    name = f"agentdiff.suite.{report.name}"
    failing = inconclusive_fails(report.stats)  # inconclusive scenarios fail the suite (exit 1)
    suite = ET.Element("testsuite", {"name": prepare.text(name), "tests": str(counts.scenarios)})
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="summary", value=summary_line(report))
    findings = {  # the headline (with the p and q that support the verdict), then findings
        view.row.scenario: [view.headline, *view.findings]
        for views in scenario_views(report).values()
        for view in views
    }
    for row in report.scenarios:
        case = ET.SubElement(
            suite, "testcase", classname=prepare.text(name), name=prepare.text(row.scenario)
        )
        _outcome(case, row, multiline("\n".join(findings.get(row.scenario, []))), failing)
    for key, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
        suite.set(key, str(len(suite.findall(f"testcase/{tag}"))))
    root = ET.Element("testsuites", {"name": "agentdiff"})
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, suite.get(key, "0"))
    root.append(suite)
    ET.indent(root)
    document = ET.tostring(root, "unicode")  # names and findings may hold U+FFFF: `xml_text`
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + xml_text(document) + "\n"


def _outcome(case: ET.Element, row: ScenarioRow, text: str, failing: bool) -> None:
    """The case's one child: failure, error, skipped or system-out (none for a plain pass).

    A run that could not be loaded is an `<error>` of a scenario judged on the other runs,
    unless it failed (a regression or, when that fails, inconclusive), as the exit code says.
    """
    reasons = "; ".join(row.stats.reasons) if row.stats else ""
    if row.verdict == "regressed":
        violations = row.pair.violations if row.pair is not None and row.stats is None else []
        message = reasons or "; ".join(v.message for v in violations) or "regressed"
        ET.SubElement(case, "failure", type="regression", message=prepare.text(message)).text = text
    elif row.verdict == "inconclusive" and failing:
        message = prepare.text(reasons or "inconclusive")
        ET.SubElement(case, "failure", type="inconclusive", message=message).text = text
    elif row.errors or row.verdict == "error":
        message = row.errors[0].message if row.errors else "error"
        ET.SubElement(case, "error", type="input", message=prepare.text(message)).text = text
    elif row.verdict == "inconclusive":
        ET.SubElement(case, "skipped", message=prepare.text(reasons or "inconclusive"))
    elif row.verdict in _SKIPPED:
        ET.SubElement(case, "skipped", message=_SKIPPED[row.verdict])
    elif row.verdict == "improved":  # a passing test case that says why it improved
        ET.SubElement(case, "system-out").text = text
