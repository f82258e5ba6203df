from __future__ import annotations

import re

import pytest

from agentdiff.render import RenderOptions, render
from agentdiff.render.markdown import md

from .reports import hostile_report, real_report


def test_verdict_first_then_findings_then_details():
    text = render(real_report("loop"), "markdown", RenderOptions())
    lines = text.splitlines()
    assert lines[0] == "## ❌ AgentDiff: FAILED"
    assert lines[2].startswith("**Blocked by: tool loop get\\_weather ×4")
    assert "- loop get\\_weather ×4 \\(new\\)" not in text
    assert "- get\\_weather ×4 at rows 6–13 (loop, new): these 6 extra steps carry" in text
    assert text.count("<details>") == text.count("</details>") == 3
    assert text.index("Gate details") < text.index("Aligned steps")


def test_trace_strings_cannot_break_tables_or_inject_html():
    text = render(hostile_report(), "markdown", RenderOptions())
    assert "<script" not in text
    assert "<img" not in text
    assert "@octocat" not in text
    assert "`" not in text
    for line in text.splitlines():
        if line.startswith("| "):
            unescaped = re.findall(r"(?<!\\)\|", line)
            header = text.splitlines()[text.splitlines().index(line)]
            assert len(unescaped) in (4, 6, 9), header


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("notify @octocat @acme/security-team", "notify @\u200boctocat @\u200bacme/security-team"),
        ("fixes #1 and acme/infra#42", "fixes #\u200b1 and acme/infra#\u200b42"),
        ("# not a heading", "#\u200b not a heading"),
        ("login at https://evil.example/x", "login at https:\u200b//evil.example/x"),
        ("or www.evil.example", "or www\u200b.evil.example"),
        (":white_check_mark: PASSED", ":\u200bwhite\\_check\\_mark: PASSED"),
    ],
)
def test_md_pings_nobody_and_links_nothing(text, shown):
    """GitHub finds mentions, issue references, autolinks and emoji in the rendered HTML,
    where `&#64;` and `\\#` are plain `@` and `#` again: a zero-width space breaks each."""
    assert md(text) == shown


def test_md_escapes_every_special_character():
    assert md("a|b") == "a\\|b"
    assert md("<b>") == "&lt;b&gt;"
    assert md("`x`") == "&#96;x&#96;"
    assert md("[link](http://x)") == "\\[link\\](http:\u200b//x)"  # no autolink either
    assert md("line\\nbreak") == "line\\\\nbreak"  # the view escaped the line break
