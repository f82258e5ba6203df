"""Renderers at a fixed width against golden files (regenerate: AGENTDIFF_UPDATE_GOLDEN=1)."""

from __future__ import annotations

import os

import pytest

from agentdiff.render import RenderOptions, render

from .reports import GOLDEN, real_report

WIDTH = 100
CASES = [
    ("loop", "terminal", "txt"),
    ("loop", "markdown", "md"),
    ("error_retry", "terminal", "txt"),
    ("error_retry", "markdown", "md"),
    ("identical", "terminal", "txt"),
    ("loop", "junit", "xml"),
    ("error_retry", "junit", "xml"),
    ("error_retry", "json", "json"),
    ("loop", "html", "html"),
]


@pytest.mark.parametrize(("scenario", "fmt", "ext"), CASES, ids=[f"{s}-{f}" for s, f, _ in CASES])
def test_render_matches_golden(scenario, fmt, ext):
    report = real_report(scenario, compare_content=scenario == "error_retry")
    text = render(report, fmt, RenderOptions(width=WIDTH, color=False))
    golden = GOLDEN / f"{scenario}.{ext}"
    if os.environ.get("AGENTDIFF_UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"missing {golden}; run with AGENTDIFF_UPDATE_GOLDEN=1"
    assert text == golden.read_text(encoding="utf-8")


def test_render_api_takes_option_fields_and_names_valid_formats():
    report = real_report("loop")
    assert render(report, "terminal", width=120, color=False) == render(
        report, "terminal", RenderOptions(width=120, color=False)
    )
    with pytest.raises(ValueError, match="unknown report format 'pdf'; choose one of: terminal"):
        render(report, "pdf")
