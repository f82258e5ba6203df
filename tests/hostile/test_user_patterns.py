"""User `redact_patterns` are regexes checked one by one, so each is applied on its own: joined
into one regex after the built-in ones, `(?i)…` crashed every command with a traceback (exit 1,
read as a regression), two patterns with one group name did too, a backreference matched
nothing (the secret printed in clear), and an empty pattern redacted between characters."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentdiff.redact import Redactor

from .helpers import SPEC, cli, spec, write

ACME = "acme-0123456789abcdef"


@pytest.mark.parametrize(
    "patterns",
    [
        ("(?i)ACME-[0-9a-f]{16}",),  # a global flag, legal only at a regex's start
        ("(?P<v>acme-\\w+)", "(?P<v>beta-\\w+)"),  # one group name twice
        ("([\"'])acme-[0-9a-f]{16}\\1",),  # a backreference by number
        ("(?s)nothing.here", "acme-[0-9a-f]{16}"),
    ],
)
def test_each_user_pattern_redacts_on_its_own(patterns: tuple[str, ...]) -> None:
    shown = Redactor(patterns=patterns).text(f'token "{ACME}" and sk-ant-api03-{"x" * 40}')
    assert ACME not in shown
    assert "0123456789abcdef" not in shown
    assert shown.count("[redacted:") == 2  # the built-in patterns still apply
    assert shown.startswith("token ")


def test_a_zero_width_match_leaves_the_text_alone() -> None:
    assert Redactor(patterns=("(?=e)",)).text("keep these") == "keep these"


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    base = tmp_path / "base.json"
    shutil.copy(SPEC, base)
    document = spec()
    document["steps"][0]["output_payload"] = {"text": f"the key is {ACME.upper()}"}
    return base, write(tmp_path / "cand.json", document)


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html", "junit"])
def test_a_config_pattern_with_a_global_flag_redacts_every_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    base, cand = _pair(tmp_path)
    (tmp_path / "agentdiff.toml").write_text(
        '[report]\nredact_patterns = ["(?i)acme-[0-9a-f]{16}"]\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    outcome = cli("compare", base, cand, "--compare-content", "-f", fmt)
    assert outcome.code in (0, 1), outcome.stderr
    assert "Traceback" not in outcome.stderr
    assert "0123456789ABCDEF" not in outcome.stdout + outcome.stderr
    assert "[redacted:" in outcome.stdout or fmt == "junit"  # JUnit shows no payload here


@pytest.mark.parametrize("pattern", ["", "x*", "(?:)"])
def test_a_pattern_matching_the_empty_string_is_refused(tmp_path: Path, pattern: str) -> None:
    base, cand = _pair(tmp_path)
    outcome = cli("compare", base, cand, "--redact-patterns", pattern)
    assert outcome.code == 2, outcome
    assert outcome.stderr.startswith("error: ")
