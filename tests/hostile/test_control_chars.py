"""No raw control byte ever reaches a terminal, log or report: C0/C1 controls, ESC/CSI/OSC
sequences and bidi overrides are shown as visible escapes; markup stays literal."""

from __future__ import annotations

import re

import pytest

from .helpers import SPEC, cli, refused, spec, write

EVIL = (
    "\x1b[31mRED\x1b[0m\x1b]0;pwned\x07\x1b]8;;http://x\x1b\\link\x9b2J\u202eevil\u2066\x00\x7f\r"
)
MARKUP = "[bold red]not bold[/] <script>alert(1)</script> | `code` @here"
RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
"""Everything that must never be printed raw (newline and tab are layout)."""
WIDE = {"COLUMNS": "2000"}


def _hostile(changed: bool):
    document = spec()
    document["trace_id"] = f"run{EVIL}"
    document["agent_name"] = f"agent{EVIL}{MARKUP}"
    step = document["steps"][1]
    step["name"] = f"tool{EVIL}{MARKUP}"
    step["input_payload"] = {f"key{EVIL}": f"value{EVIL}{'2' if changed else ''}", "m": MARKUP}
    if changed:
        step["status"] = "error"
        step["error_message"] = f"boom{EVIL}\nsecond line{EVIL}"
    document["steps"].append({**step, "step_id": f"x{EVIL}", "step_index": 2, "parent_id": None})
    return document


@pytest.fixture
def hostile_pair(tmp_path):
    return (
        write(tmp_path / "base.json", _hostile(changed=False)),
        write(tmp_path / "cand.json", _hostile(changed=True)),
    )


def _clean(text: str) -> None:
    found = RAW.findall(text)
    assert not found, sorted({f"U+{ord(c):04X}" for c in found})


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html", "junit"])
def test_reports_print_no_raw_control_character(hostile_pair, fmt):
    outcome = cli("compare", *hostile_pair, "--format", fmt, "--max-new-errors", "0", env=WIDE)
    assert outcome.code == 1, outcome.stderr
    _clean(outcome.stdout + outcome.stderr)
    assert "\\x1b" in outcome.stdout
    if fmt == "html":
        assert "<script>" not in outcome.stdout
        assert "&lt;script&gt;" in outcome.stdout
    if fmt == "terminal":
        assert "[bold red]not bold[/]" in outcome.stdout
        assert "\\u202e" in outcome.stdout


def test_inspect_prints_no_raw_control_character(hostile_pair):
    outcome = cli("inspect", hostile_pair[1], env=WIDE)
    assert outcome.code == 0
    _clean(outcome.stdout)
    assert "[bold red]not bold[/]" in outcome.stdout


def test_stderr_names_hostile_files_and_keys_visibly(tmp_path, monkeypatch):
    evil_name = tmp_path / f"trace{EVIL.replace(chr(0), '').replace('/', '')}.json"
    evil_name.write_text("{broken")
    outcome = cli("inspect", evil_name)
    refused(outcome, "invalid JSON", "\\x1b")
    _clean(outcome.stderr)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agentdiff.toml").write_text('[gate]\n"max\\u001b[31m\\u202e" = 1\n')
    outcome = cli("compare", SPEC, SPEC)
    refused(outcome, "unknown setting", "\\x1b", "\\u202e")
    _clean(outcome.stderr)


def test_verdict_and_summary_lines_are_clean_with_several_outputs(hostile_pair, tmp_path):
    outcome = cli("compare", *hostile_pair, "-o", f"markdown={tmp_path / 'r.md'}", "-o", "-")
    _clean(outcome.stdout + outcome.stderr)
    _clean((tmp_path / "r.md").read_text())


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html", "junit", "json"])
def test_suite_reports_show_hostile_scenario_names_visibly(tmp_path, fmt):
    """Scenario keys come from file names (or a manifest): every suite format neutralizes them."""
    name = "scen" + EVIL.replace("\x00", "").replace("/", "")  # a file name holds neither
    for side, changed in (("base", False), ("cand", True)):
        (tmp_path / side).mkdir()
        write(tmp_path / side / f"{name}.json", _hostile(changed))
        (tmp_path / side / f"broken{name[4:]}.json").write_text("{cut")
    outcome = cli("suite", tmp_path / "base", tmp_path / "cand", "-f", fmt, env=WIDE)
    assert outcome.code in (1, 2)
    if fmt != "json":  # machine output: the keys exact (JSON escapes C0 itself)
        _clean(outcome.stdout)
    assert ("\\u001b" if fmt == "json" else "\\x1b") in outcome.stdout
