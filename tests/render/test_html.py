"""The HTML page without a browser: self-contained, escaped, all sections present."""

from __future__ import annotations

import re
import sys

import pytest

from agentdiff.errors import AgentDiffError
from agentdiff.render import RenderOptions, html, render

from .reports import ONERROR, SCRIPT, hostile_report, real_report


def test_page_is_self_contained():
    page = render(real_report("loop"), "html", RenderOptions())
    assert "<script" not in page
    assert not re.search(r"""\b(src|href)\s*=""", page)
    assert "@import" not in page
    assert "url(" not in page
    assert "default-src 'none'" in page


def test_sections_and_highlights():
    report = real_report("loop")
    page = render(report, "html", RenderOptions())
    for marker in (
        'id="verdict"',
        'id="summary"',
        'id="trajectories"',
        'id="dag-baseline"',
        'id="dag-candidate"',
        'id="deltas"',
        'id="loops"',
    ):
        assert marker in page
    assert "Blocked by: tool loop get_weather ×4" in page
    plain = page.count('<div class="s">') + page.count('<div class="s m">')  # folded, matching
    assert page.count('<details class="row') + plain == len(report.alignment)
    assert page.count('<details class="fold') == 1
    assert page.count('class="row op-insert first"') == 1
    assert page.count("node op-insert") >= 1
    assert page.count(" loop") >= 4  # loop steps are marked in the DAG


def test_payloads_are_expandable_per_step():
    page = render(real_report("error_retry", compare_content=True), "html", RenderOptions())
    assert "weather service unavailable" in page
    assert '<div class="mute">input</div>' in page
    assert '<div class="mute">output</div>' in page
    assert "error: weather service unavailable (HTTP 503), please retry" in page


def test_every_trace_string_is_escaped():
    page = render(hostile_report(), "html", RenderOptions())
    assert SCRIPT not in page
    assert ONERROR not in page
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page
    assert "onerror=&#34;" in page or "onerror=\\&#34;" in page
    assert "\x1b" not in page


def test_missing_jinja2_is_a_one_line_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "jinja2", None)
    with pytest.raises(AgentDiffError) as caught:
        render(real_report("identical"), "html", RenderOptions())
    assert caught.value.hint == "pip install 'agentdiff[html]'"


def test_the_template_compiles_once_per_process():
    """A suite renders up to 25 pair pages: each must not recompile the template (~40 ms)."""
    report = real_report("loop")
    first = render(report, "html", RenderOptions())
    environment = html._environment()
    template = environment.get_template("report.html.j2")
    assert render(report, "html", RenderOptions()) == first
    assert html._environment() is environment
    assert environment.get_template("report.html.j2") is template


def test_missing_jinja2_is_a_one_line_hint_after_a_page_was_rendered(monkeypatch):
    render(real_report("identical"), "html", RenderOptions())
    test_missing_jinja2_is_a_one_line_hint(monkeypatch)
