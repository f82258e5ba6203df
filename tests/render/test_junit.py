from __future__ import annotations

from agentdiff.gate import RULES
from agentdiff.render import RenderOptions, render
from agentdiff.render.junit import render_junit_error

from .reports import hostile_report, parse_xml, real_report


def test_each_violation_is_a_failure_of_its_rule():
    report = real_report("loop")
    root = parse_xml(render(report, "junit", RenderOptions()))
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == [r.name for r in RULES]
    failed = {c.get("name") for c in cases if c.find("failure") is not None}
    assert failed == {v.rule for v in report.gate.violations} == {"loop", "cost", "tokens"}
    assert root.get("failures") == "3"
    assert root.get("errors") == "0"
    latency = next(c for c in cases if c.get("name") == "latency")
    assert "latency up" in latency.findtext("system-out")


def test_a_passing_report_has_no_failures():
    root = parse_xml(render(real_report("identical"), "junit", RenderOptions()))
    assert root.get("failures") == "0"
    assert not root.findall(".//failure")


def test_input_error_is_an_error_not_a_failure():
    root = parse_xml(render_junit_error("x.json: file not found \x1b"))
    assert root.get("errors") == "1"
    error = root.find("./testsuite/testcase/error")
    assert error is not None
    assert error.get("message") == "x.json: file not found \\x1b"
    assert not root.findall(".//failure")


def test_hostile_text_stays_well_formed_xml():
    root = parse_xml(render(hostile_report(), "junit", RenderOptions()))
    assert root.find(".//property[@name='candidate']").get("value").startswith("c\\x1b[31m")
