"""The HTML report in real headless Chromium (Debian `chromium`, driven by Playwright).

Chromium is `$AGENTDIFF_CHROMIUM`, else `chromium` on PATH. Skipped with a visible reason when
Chromium or Playwright is missing, except when `CI` is set: then a missing browser fails the run.
Each test prints where it saved its screenshot (run with `-s` to see it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agentdiff import compare
from agentdiff.render import RenderOptions, render
from agentdiff.render.view import DELTA_ROWS

from .reports import hostile_report, real_report

pytestmark = pytest.mark.browser
BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium() -> str:
    path = os.environ.get("AGENTDIFF_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    reason = None
    if not Path(path).exists():
        reason = "Chromium not found (apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            reason = "the playwright package is not installed (pip install 'agentdiff[dev]')"
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"browser test needs Chromium in CI: {reason}")
        pytest.skip(reason)
    return path


@pytest.fixture(scope="module")
def browser():
    executable = _chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


def _open(browser, page_file: Path):
    """Load `page_file`, recording console errors, page errors and every request made."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    seen = {"requests": [], "console": [], "errors": []}
    page.on("request", lambda r: seen["requests"].append(r.url))
    page.on("console", lambda m: m.type in ("error", "warning") and seen["console"].append(m.text))
    page.on("pageerror", lambda e: seen["errors"].append(str(e)))
    page.route(
        "**/*",
        lambda route: (
            route.continue_() if route.request.url == page_file.as_uri() else route.abort()
        ),
    )
    page.goto(page_file.as_uri())
    page.wait_for_load_state("load")
    return page, seen


def _write(tmp_path: Path, name: str, report) -> Path:
    path = tmp_path / f"{name}.html"
    path.write_text(render(report, "html", RenderOptions()), encoding="utf-8")
    return path


def test_report_renders_offline_without_errors(browser, tmp_path):
    report = real_report("loop")
    page_file = _write(tmp_path, "loop", report)
    page, seen = _open(browser, page_file)
    assert seen["requests"] == [page_file.as_uri()]
    assert seen["console"] == []
    assert seen["errors"] == []
    assert page.title().startswith("AgentDiff: FAILED")
    assert "Blocked by: tool loop get_weather ×4" in page.inner_text("#verdict")
    rows = page.locator("#trajectories details.row").count()
    assert rows + page.locator("#trajectories div.s").count() - 1 == len(report.alignment)
    assert page.locator("#trajectories details.first").count() == 1
    assert page.locator("svg#dag-baseline g.node").count() == report.baseline.steps
    assert page.locator("svg#dag-candidate g.node").count() == report.candidate.steps
    assert page.locator("svg#dag-candidate g.loop").count() == 4
    # every measure but one count of model calls (`render.view._deltas`), and the header row
    assert page.locator("#deltas tr").count() == len(DELTA_ROWS) - 1 + 1
    first = page.locator("#trajectories details.first")
    assert not first.locator("pre").first.is_visible()
    first.locator("summary").click()
    assert first.locator("pre").first.is_visible()
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 0
    print(f"screenshot: {shot}")


def test_injected_script_never_runs(browser, tmp_path):
    page_file = _write(tmp_path, "hostile", hostile_report())
    page, seen = _open(browser, page_file)
    for row in page.locator("#trajectories details").all():
        row.locator("summary").click()
    page.hover("svg#dag-candidate g.node >> nth=1")
    assert page.evaluate("window.__pwned") is None
    assert page.locator("script").count() == 0
    assert page.locator("#trajectories img").count() == 0
    assert "<script>window.__pwned = 1</script>" in page.inner_text("#trajectories")
    assert seen["errors"] == []
    assert seen["requests"] == [page_file.as_uri()]
    shot = tmp_path / "hostile.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")


def _synthetic_pair(n: int):
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(BENCHMARKS))
        import synthetic
    return synthetic.make_pair(n)


def test_two_thousand_steps_stay_small_and_readable(browser, tmp_path):
    pair = _synthetic_pair(2000)
    report = compare(pair.baseline, pair.candidate)
    page_file = _write(tmp_path, "big", report)
    assert page_file.stat().st_size < 1_000_000
    page, seen = _open(browser, page_file)
    assert seen["console"] == []
    assert seen["errors"] == []
    assert seen["requests"] == [page_file.as_uri()]
    trajectories = page.locator("#trajectories").bounding_box()
    assert page.locator("#deltas").bounding_box()["y"] < trajectories["y"]
    assert "Thresholds:" in page.inner_text("#verdict")
    changed = page.locator("#trajectories details.op-change").first
    assert changed.locator(".inline").is_visible()  # what changed, without a click
    assert "→" in changed.locator(".inline").inner_text()
    fold = page.locator("#trajectories details.fold").first
    hidden = fold.locator(".folded .s").first
    assert not hidden.is_visible()
    fold.locator("summary").click()
    assert hidden.is_visible()
    box = page.locator(".dagbox").bounding_box()
    assert box["height"] <= 0.7 * 1000 + 40  # capped at 70% of the viewport
    for side in ("baseline", "candidate"):
        nodes = page.locator(f"svg#dag-{side} g.node").count()
        assert 0 < nodes <= 301
        assert page.locator(f"svg#dag-{side} g.fold").count() > 0
    shot = tmp_path / "big.png"
    page.screenshot(path=str(shot))
    print(f"screenshot: {shot} ({page_file.stat().st_size:,} bytes)")
