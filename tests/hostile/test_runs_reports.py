"""`compare-runs` and `routes` show trace data as the pair reports do: step names, route
skeletons, departures, the route trie, run ids and scenario keys have their control characters
and bidi overrides escaped, their secrets redacted and (in markdown) their markup escaped."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import cli, run_folder, spec, write
from .test_control_chars import RAW

EVIL = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202eevil\r"
TOKEN = "ghp_FakeGitHubToken0123456789abcdefghijKL"  # noqa: S105 - a fake, shaped like one
HTML = '<img src="https://evil.example/t.png"> ![p](https://evil.example/p.png) </details>'
WIDE = {"COLUMNS": "2000"}


def _runs(folder, tool: str):
    return run_folder(
        folder,
        4,
        trace_id=f"{EVIL}{TOKEN}",
        scenario=f"scenario{EVIL}{TOKEN}{HTML}",
        step_name=f"{tool}{EVIL}call_{TOKEN}{HTML}",
    )


@pytest.fixture
def folders(tmp_path):
    return _runs(tmp_path / "base", "tool"), _runs(tmp_path / "cand", "other")


def _safe(text: str, fmt: str) -> None:
    found = RAW.findall(text)
    assert not found, sorted({f"U+{ord(c):04X}" for c in found})
    assert TOKEN not in text
    assert TOKEN[-12:] not in text
    assert "\\x1b" in text
    assert "\\u202e" in text
    if fmt in ("markdown", "html", "junit"):
        assert "<img" not in text
        assert "</details> " not in text
    if fmt == "markdown":
        assert "![p](" not in text


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html", "junit"])
def test_compare_runs_neutralizes_and_redacts_trace_data(folders, fmt):
    named = ["--scenario", f"s{EVIL}{TOKEN}{HTML}"] if fmt == "junit" else []
    outcome = cli("compare-runs", *folders, "--format", fmt, *named, env=WIDE)
    assert outcome.code in (0, 1), outcome.stderr
    _safe(outcome.stdout + outcome.stderr, fmt)
    if fmt != "junit":
        assert "departs from the main route" in outcome.stdout


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html"])
def test_routes_neutralizes_and_redacts_trace_data(folders, fmt):
    outcome = cli("routes", *folders, "--format", fmt, "--scenario-key", "metadata.scenario")
    assert outcome.code == 0, outcome.stderr
    _safe(outcome.stdout + outcome.stderr, fmt)
    assert "pwned" in outcome.stdout
    assert "redacted:" in outcome.stdout
    if fmt == "terminal":
        assert "\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202eevil\\r" in outcome.stdout


def test_no_redact_keeps_the_token_but_still_neutralizes(folders):
    outcome = cli("compare-runs", *folders, "--format", "terminal", "--no-redact", env=WIDE)
    assert TOKEN in outcome.stdout
    assert not RAW.findall(outcome.stdout)


@pytest.mark.parametrize("command", ["compare-runs", "routes"])
def test_every_runs_html_page_has_the_strict_csp(tmp_path: Path, command: str) -> None:
    """compare-runs and routes HTML had no Content-Security-Policy (the pair and suite pages do)."""
    folder = tmp_path / "runs"
    folder.mkdir()
    for k in range(2):
        write(folder / f"{k}.json", spec())
    args = (folder, folder) if command == "compare-runs" else (folder,)
    outcome = cli(command, *args, "-f", "html")
    assert outcome.code == 0, outcome.stderr
    head = outcome.stdout.split("</head>")[0]
    csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    assert f'<meta http-equiv="Content-Security-Policy" content="{csp}">' in head
