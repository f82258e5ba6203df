"""The JUnit XML suite report: one test case per scenario, so CI lists each one.

Regressed = `<failure>` (its broken rules and findings), error = `<error>` (the load failure),
added / removed = `<skipped>` with the reason, improved = a passing case whose `<system-out>` says
why (with the p and q that support it), inconclusive = `<skipped>` with its reasons, or a
`<failure>` (counted as one) when the report's `[stats] inconclusive = "fail"` makes it fail the
suite, as it fails the exit code; passing scenarios are plain test cases. Text is cleaned of the
control characters XML 1.0 cannot hold; ElementTree escapes the rest.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from agentdiff.render.options import RenderOptions
from agentdiff.render.text import multiline, one_line
from agentdiff.suite.render.view import fails, scenario_views, summary_line
from agentdiff.suite.report import SuiteReport

__all__ = ["render_suite_junit"]

_SKIPPED = {
    "added": "only in the candidate (a new scenario)",
    "removed": "only in the baseline (allowed by --allow-missing)",
}


def render_suite_junit(report: SuiteReport, options: RenderOptions | None = None) -> str:  # noqa: ARG001
    """The suite as JUnit XML."""
    counts = report.counts
    name = f"agentdiff.suite.{report.name}"
    failing = fails(report)  # inconclusive scenarios fail the suite (exit 1)
    suite = ET.Element(
        "testsuite",
        {
            "name": one_line(name),
            "tests": str(counts.scenarios),
            "failures": str(counts.regressed + (counts.inconclusive if failing else 0)),
            "errors": str(counts.errors),
            "skipped": str(counts.added + counts.removed + (0 if failing else counts.inconclusive)),
        },
    )
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="summary", value=summary_line(report))
    findings = {  # the headline (with the p and q that support the verdict), then findings
        view.row.scenario: [view.headline, *view.findings]
        for views in scenario_views(report).values()
        for view in views
    }
    for row in report.scenarios:
        case = ET.SubElement(
            suite, "testcase", classname=one_line(name), name=one_line(row.scenario)
        )
        text = multiline("\n".join(findings.get(row.scenario, [])))
        if row.verdict == "regressed" and row.stats is not None:
            failure = ET.SubElement(
                case, "failure", type="regression", message=one_line("; ".join(row.stats.reasons))
            )
            failure.text = text
        elif row.verdict == "inconclusive":
            reason = "; ".join(row.stats.reasons) if row.stats else "inconclusive"
            if failing:
                failure = ET.SubElement(
                    case, "failure", type="inconclusive", message=one_line(reason)
                )
                failure.text = text
            else:
                ET.SubElement(case, "skipped", message=one_line(reason))
        elif row.verdict == "regressed" and row.pair is not None:
            rules = "; ".join(v.message for v in row.pair.violations) or "regressed"
            failure = ET.SubElement(case, "failure", type="regression", message=one_line(rules))
            failure.text = text
        elif row.verdict == "error":
            message = row.errors[0].message if row.errors else "error"
            error = ET.SubElement(case, "error", type="input", message=one_line(message))
            error.text = text
        elif row.verdict in _SKIPPED:
            ET.SubElement(case, "skipped", message=_SKIPPED[row.verdict])
        elif row.verdict == "improved":  # a passing test case that says why it improved
            ET.SubElement(case, "system-out").text = text
    root = ET.Element("testsuites", {"name": "agentdiff"})
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, suite.get(key, "0"))
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"
