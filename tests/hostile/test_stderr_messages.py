"""Messages on stderr and the `sessions` listing quote file names, step names and trace values:
each is neutralized (controls and bidi overrides shown as escapes) and redacted, like errors."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.realdata import REAL

from .helpers import SPEC, claude_home, cli, spec, write
from .secrets import PATTERN_SECRETS

EVIL = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202eevil\r"
RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
"""Everything that must never be printed raw (newline and tab are layout)."""
OPENAI = PATTERN_SECRETS["openai"]
GITHUB = PATTERN_SECRETS["github"]
WIDE = {"COLUMNS": "300"}


def _clean(text: str, *secrets: str) -> None:
    found = RAW.findall(text)
    assert not found, sorted({f"U+{ord(c):04X}" for c in found})
    for secret in secrets:
        assert secret[-12:] not in text, (secret, text)
        assert secret[:24] not in text, (secret, text)


@pytest.fixture
def evil_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME holding one Claude Code session with a hostile folder, file name and `cwd`."""
    return claude_home(tmp_path, monkeypatch, EVIL, lambda cwd: f"{EVIL}{OPENAI}{cwd}")


def test_sessions_listing_escapes_names_and_redacts_the_cwd(evil_home: Path) -> None:
    outcome = cli("sessions", env=WIDE)
    assert outcome.code == 0, outcome.stderr
    _clean(outcome.stdout + outcome.stderr, OPENAI)
    assert "claude:sess\\x1b]0;pwned\\x07" in outcome.stdout
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202eevil\\rsk-proj-…[redacted:" in outcome.stdout


def test_sessions_listing_escapes_an_unreadable_session(evil_home: Path) -> None:
    folder = next((evil_home / ".claude" / "projects").iterdir())
    (folder / f"bad{EVIL}.jsonl").write_text(f'{{"cwd": "{OPENAI}"\n', encoding="utf-8")
    outcome = cli("sessions", env=WIDE)
    assert outcome.code == 0, outcome.stderr
    _clean(outcome.stdout + outcome.stderr, OPENAI)
    assert "claude:bad\\x1b]0;pwned" in outcome.stdout


def _looping(tmp_path: Path) -> Path:
    document = spec()
    step = document["steps"][0]
    document["steps"] = [
        {
            **step,
            "step_id": f"s{i}",
            "step_index": i,
            "parent_id": None,
            "name": f"loop{EVIL}{GITHUB}",
        }
        for i in range(6)
    ]
    return write(tmp_path / "cand.json", document)


def test_approve_refusal_names_the_loop_neutralized(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    shutil.copy(SPEC, base)
    outcome = cli("approve", _looping(tmp_path), "-b", base)
    assert outcome.code == 1, outcome.stderr
    assert "not approved: the gate failed: tool loop loop\\x1b]0;pwned\\x07" in outcome.stderr
    assert "ghp_…[redacted:" in outcome.stderr
    _clean(outcome.stderr, GITHUB)
    assert base.read_bytes() == SPEC.read_bytes()


def test_update_baseline_refusal_names_the_loop_neutralized(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    shutil.copy(SPEC, base)
    outcome = cli("compare", base, _looping(tmp_path), "--update-baseline", env=WIDE)
    assert outcome.code == 1, outcome.stderr
    assert "not approved: the gate failed: tool loop loop\\x1b]0;pwned" in outcome.stderr
    _clean(outcome.stdout + outcome.stderr, GITHUB)
    assert base.read_bytes() == SPEC.read_bytes()


def test_first_approval_echoes_path_and_reason_neutralized(tmp_path: Path) -> None:
    baseline = tmp_path / f"new{EVIL}.json"
    outcome = cli("approve", SPEC, "-b", baseline, "-m", f"why{EVIL}{OPENAI}")
    assert outcome.code == 0, outcome.stderr
    assert baseline.exists()
    assert "no baseline yet: " in outcome.stderr
    assert "new\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202eevil\\r.json" in outcome.stderr
    assert "reason: why\\x1b]0;pwned" in outcome.stderr
    _clean(outcome.stderr, OPENAI)


def test_load_error_redacts_a_long_value_before_cutting_it(tmp_path: Path) -> None:
    source = REAL / "openinference" / "identical" / "baseline.spans.json"
    document = json.loads(source.read_text(encoding="utf-8"))
    document[1]["attributes"]["llm.token_count.prompt"] = f"a b c d e f g h {OPENAI}"
    outcome = cli("inspect", write(tmp_path / "spans.json", document))
    assert outcome.code == 2, outcome.stderr
    assert 'got "a b c d e f g h sk-proj-…[redacted:' in outcome.stderr
    assert "Zq3xV9" not in outcome.stderr
    _clean(outcome.stderr, OPENAI)


def test_config_error_redacts_a_long_value_before_cutting_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AGENTDIFF_MAX_DIVERGENCE", raising=False)
    value = f"a b c d e f g h i j k l m n o p q r s t u {OPENAI}"
    (tmp_path / "pyproject.toml").write_text(f'[tool.agentdiff.gate]\nmax_divergence = "{value}"\n')
    outcome = cli("compare", SPEC, SPEC)
    assert outcome.code == 2, outcome.stderr
    assert "max_divergence must be" in outcome.stderr
    assert "Zq3xV9" not in outcome.stderr
    _clean(outcome.stderr, OPENAI)


def test_sessions_listing_keeps_every_column_beside_a_long_name(evil_home: Path) -> None:
    outcome = cli("sessions", env={"COLUMNS": "80"})
    assert outcome.code == 0, outcome.stderr
    header, row = outcome.stdout.splitlines()
    assert header.split() == ["reference", "project", "started", "steps", "tokens", "cost"]
    assert row.split()[-3:] == ["11", "47,533", "$0.0512"], row
    _clean(outcome.stdout, OPENAI)


@pytest.mark.parametrize(
    "args",
    [
        ("compare", "--format", OPENAI, "a.json", "b.json"),  # an option's value
        ("compare", "a.json", "b.json", f"{EVIL}{OPENAI}"),  # an extra argument
        (f"{OPENAI}{EVIL}",),  # a command
        ("compare", f"--{GITHUB}", "a.json", "b.json"),  # an option's name
        ("suite", "--jobs", "2", "--format", GITHUB, "x"),
    ],
)
def test_a_usage_error_redacts_what_was_typed(args: tuple[str, ...]) -> None:
    outcome = cli(*args)
    assert outcome.code == 2, outcome
    _clean(outcome.stdout + outcome.stderr, OPENAI, GITHUB)
    assert "Error: " in outcome.stderr
    assert "[redacted:" in outcome.stderr


@pytest.mark.filterwarnings("default::agentdiff.adapters.registry.AdapterPluginWarning")
def test_a_plugins_warning_is_one_neutralized_line(tmp_path: Path, fresh_registry: object) -> None:
    """A plugin's failure quoted the trace: Python printed the warning raw (escape sequences
    and a key) with a source line; it is one `warning:` line like every message."""
    from agentdiff import BaseAdapter, register_adapter

    @register_adapter("picky")
    class Picky(BaseAdapter):
        @classmethod
        def detect(cls, data: object) -> bool:
            msg = f"unsupported variant {data.get('format') if isinstance(data, dict) else data}"
            raise ValueError(msg)

    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"format": f"v{EVIL}{OPENAI}"}), encoding="utf-8")
    outcome = cli("convert", path)
    assert outcome.code == 2, outcome
    _clean(outcome.stdout + outcome.stderr, OPENAI)
    (line,) = [x for x in outcome.stderr.splitlines() if x.startswith("warning: ")]
    assert line.startswith("warning: adapter plugin 'picky' detect() failed: unsupported variant v")
    assert "\\x1b]0;pwned\\x07" in line
    assert all(
        x.startswith(("warning: ", "error: ", "hint: ")) for x in outcome.stderr.splitlines()
    )
