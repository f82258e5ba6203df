from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from agentdiff.cli.compare import _render_options
from agentdiff.render import RenderOptions, render

from .reports import ESCAPE, MARKUP, hostile_report, real_report

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_verdict_comes_first_in_plain_words():
    passed = render(real_report("identical"), "terminal", RenderOptions(width=100))
    assert passed.splitlines()[0] == "PASSED  No loops. No cost spike. Trajectory within budget."
    failed = render(real_report("loop"), "terminal", RenderOptions(width=100))
    assert failed.startswith("FAILED  Blocked by: tool loop get_weather ×4;")


def test_first_divergence_and_markers_are_shown():
    text = render(real_report("loop"), "terminal", RenderOptions(width=100))
    row = next(line for line in text.splitlines() if "first divergence" in line and "◀" in line)
    assert row.split()[:3] == ["8", "+", "get_weather"]
    assert "Findings" in text
    assert "get_weather ×4 at rows 6–13 (loop, new): these 6 extra steps carry +877 of +873" in text
    assert re.search(r"^cost\s+\$0\.000081\s+\$0\.000240", text, re.MULTILINE)


def test_changed_arguments_are_field_diffs():
    text = render(hostile_report(), "terminal", RenderOptions(width=120))
    lines = text.splitlines()
    path = next(i for i, line in enumerate(lines) if line.strip() == "input_payload.x:")
    assert lines[path + 1].split() == ["[1]", "→", "[2]"]


@pytest.mark.parametrize("width", [20, 40, 60, 100, 200])
def test_any_width_fits(width):
    for report in (real_report("loop"), hostile_report()):
        text = render(report, "terminal", RenderOptions(width=width))
        assert max(len(line) for line in text.splitlines()) <= width


def test_trace_data_never_styles_or_escapes():
    report = hostile_report()
    plain = render(report, "terminal", RenderOptions(width=120, color=False))
    assert MARKUP in plain
    assert "\x1b" not in plain
    assert "\x07" not in plain
    assert "\\x1b[31mred\\x1b[0m\\x07" in plain
    coloured = render(report, "terminal", RenderOptions(width=120, color=True))
    assert ANSI.search(coloured), "colour was forced on"
    assert ESCAPE not in coloured
    assert MARKUP in ANSI.sub("", coloured)


def test_colour_only_on_a_tty_without_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    assert _render_options(None, None).color is True
    assert _render_options(None, False).color is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert _render_options(None, None).color is False
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setattr("sys.stdout.isatty", lambda: False)
    assert _render_options(None, None).color is False


def test_long_alignments_elide_unchanged_runs():
    report = real_report("loop")
    text = render(report, "terminal", RenderOptions(width=100, max_rows=8))
    assert "unchanged steps …" in text
    assert "◀ first divergence" in text


@pytest.mark.parametrize(
    ("field", "value"), [("width", 0), ("width", -5), ("max_rows", 0), ("max_rows", -1)]
)
def test_sizes_below_one_are_refused(field, value):
    # width -5 rendered an empty report; max_rows 0 or less cut rows by a negative slice
    with pytest.raises(ValidationError, match=field):
        RenderOptions.model_validate({field: value})
    with pytest.raises(ValidationError, match=field):
        render(real_report("loop"), "markdown", **{field: value})
