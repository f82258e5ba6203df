"""The JUnit XML renderer: one test case per gate rule, so CI systems list what regressed.

A hard violation is a `<failure>` of its rule's test case; warnings go to that case's
`<system-out>`. An input error (a trace that does not load) is an `<error>`, written by
`render_junit_error()`, so CI shows "broken input" apart from "regression". Text from traces is
stripped of the control characters XML 1.0 cannot hold; ElementTree escapes the rest.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from agentdiff.gate import RULES
from agentdiff.models.report import DiffReport
from agentdiff.render.options import RenderOptions
from agentdiff.render.view import report_view, text

__all__ = ["error_suite", "render_junit", "render_junit_error", "xml_text"]

SUITE = "agentdiff"
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_text(text: str) -> str:
    r"""`text` with what XML 1.0 cannot hold shown as escapes (`\xffff`).

    C0 controls but tab and line breaks, U+FFFE and U+FFFF: a JUnit file CI cannot parse loses
    the gate's report. A whole document may be passed: none of these is ever XML markup.
    """
    return _XML_INVALID.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _document(suite: ET.Element) -> str:
    root = ET.Element("testsuites", {"name": SUITE})
    for key in ("tests", "failures", "errors"):
        root.set(key, suite.get(key, "0"))
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def render_junit(report: DiffReport, options: RenderOptions) -> str:
    """The gate as JUnit XML: one `<testcase>` per rule, a `<failure>` per broken rule."""
    failed = {v.rule for v in report.gate.violations}
    suite = ET.Element(
        "testsuite",
        {"name": f"{SUITE}.gate", "tests": str(len(RULES)), "failures": str(len(failed))},
        errors="0",
    )
    view = report_view(report, options)
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("verdict", view.state),
        ("divergence", f"{report.divergence:.4f}"),
        ("baseline", view.sides[0].trace_id),
        ("candidate", view.sides[1].trace_id),
    ):
        ET.SubElement(properties, "property", name=name, value=xml_text(value))
    thresholds = [f"thresholds: {line}" for line in view.thresholds]
    for rule in (r.name for r in RULES):
        case = ET.SubElement(suite, "testcase", classname=f"{SUITE}.gate", name=rule)
        broken = [message for name, message in view.violations if name == rule]
        if broken:
            failure = ET.SubElement(case, "failure", type="regression")
            failure.set("message", xml_text("; ".join(broken)))
            failure.text = xml_text("\n".join([view.verdict, *view.findings, *thresholds]))
        warned = [message for name, message in view.warnings if name == rule]
        if warned:
            ET.SubElement(case, "system-out").text = xml_text("\n".join(warned))
    return _document(suite)


def error_suite(message: str, *, suite_name: str, classname: str) -> ET.Element:
    """The `<testsuite>` of a comparison that could not run (bad input): one `<error>`.

    Each command writes it in its own report's document shape, so a CI parser set up for one
    reads the other alike.
    """
    suite = ET.Element(
        "testsuite", {"name": suite_name, "tests": "1", "failures": "0", "errors": "1"}
    )
    case = ET.SubElement(suite, "testcase", classname=classname, name="load")
    shown = xml_text(text(message))
    error = ET.SubElement(case, "error", type="input", message=shown)
    error.text = shown
    return suite


def render_junit_error(
    message: str, *, suite_name: str = f"{SUITE}.gate", classname: str = f"{SUITE}.gate"
) -> str:
    """JUnit XML for a comparison that could not run (bad input): one `<error>`.

    `suite_name` and `classname` name the test suite and its one case as the command's own
    report names them (`compare`'s gate by default). The document is `render_junit`'s shape:
    a `<testsuites>` root, declared `UTF-8`.
    """
    return _document(error_suite(message, suite_name=suite_name, classname=classname))
