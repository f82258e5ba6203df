"""The HTML suite report in real headless Chromium: the index, the sections and the embedded pair
reports load offline under the page's Content-Security-Policy, with no error and no request."""

from __future__ import annotations

import time

import pytest
from typer.testing import CliRunner

from agentdiff.cli.app import app
from tests.render.test_html_browser import _open, browser  # noqa: F401 - the shared fixture

pytestmark = pytest.mark.browser


def _srcdoc_frames(page, count: int, timeout: float = 10.0) -> list:  # type: ignore[type-arg]
    """The page's embedded reports, once `count` of them navigated (a loaded host is slow to)."""
    deadline = time.monotonic() + timeout
    while True:
        frames = [f for f in page.frames if f.url == "about:srcdoc"]
        if len(frames) >= count or time.monotonic() > deadline:
            return frames
        page.wait_for_timeout(100)


def test_suite_page_with_pair_reports_in_chromium(browser, fixture_suite, tmp_path):  # noqa: F811
    base, cand = fixture_suite
    page_file = tmp_path / "suite.html"
    args = ["suite", str(base), str(cand), "--layout", "files", "--only", "crewai/*"]
    result = CliRunner().invoke(app, [*args, "-f", "html", "-o", str(page_file)])
    assert result.exit_code == 1, result.output
    page, seen = _open(browser, page_file)
    assert page.inner_text("#summary") == "2 passed · 3 regressed"
    links = page.eval_on_selector_all("#index a", "els => els.map(e => e.getAttribute('href'))")
    assert links == ["#s1", "#s2", "#s3"]
    frames = _srcdoc_frames(page, 3)
    assert len(frames) == 3
    titles = sorted(f.evaluate("document.title") for f in frames)
    assert all(t.startswith("AgentDiff: FAILED") for t in titles)
    loop = next(f for f in frames if "loop" in f.evaluate("document.body.innerText"))
    assert "Weather Researcher/get_weather ×4" in loop.evaluate("document.body.innerText")
    page.click("#index a[href='#s1']")
    assert seen["console"] == [] and seen["errors"] == []
    assert seen["requests"] == [page_file.as_uri()]
    shot = tmp_path / "suite.png"
    page.screenshot(path=str(shot))
    print(f"screenshot: {shot}")
    page.close()
