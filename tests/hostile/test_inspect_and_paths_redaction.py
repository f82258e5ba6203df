"""Trace strings `inspect` shows outside the step lines (its warnings, the names of dropped
spans), values inside lists under secret keys, passwords in JSON text, acronym keys and the
suite's page file names: escaped and redacted like every other trace string (found by a
hostile reader of the reports)."""

from __future__ import annotations

import json

import pytest

from agentdiff.redact import Redactor, is_secret_key

from .helpers import cli, spec, write
from .secrets import PATTERN_SECRETS
from .test_control_chars import EVIL, WIDE, _clean

KEY = PATTERN_SECRETS["openai"]


def test_inspect_warnings_are_escaped_and_redacted(tmp_path):
    """A dangling parent id becomes a warning; so does a warning the trace carries."""
    document = spec()
    document["steps"][1]["parent_id"] = f"p{EVIL} {KEY}"
    document["metadata"] = {"warnings": [f"w{EVIL} {PATTERN_SECRETS['github']}"]}
    shown = cli("inspect", write(tmp_path / "run.json", document), env=WIDE)
    assert shown.code == 0, shown.stderr
    _clean(shown.stdout)
    assert "dangling parent_id kept as root" in shown.stdout
    assert KEY not in shown.stdout and PATTERN_SECRETS["github"] not in shown.stdout
    assert shown.stdout.count("[redacted:") >= 2
    assert "\\x1b" in shown.stdout


def test_inspect_dropped_span_names_are_escaped_and_redacted(tmp_path):
    document = spec()
    document["metadata"] = {"dropped_spans": 3, "dropped_span_names": {f"GET {KEY} {EVIL}": 3}}
    shown = cli("inspect", write(tmp_path / "run.json", document), env=WIDE)
    assert shown.code == 0, shown.stderr
    _clean(shown.stdout)
    assert "3 not agent steps (GET sk-proj-…" in shown.stdout
    assert "\\x1b" in shown.stdout
    assert KEY not in shown.stdout


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html"])
@pytest.mark.parametrize("payload", ["flat", "nested"])
def test_an_item_of_a_list_under_a_secret_key_is_redacted_when_it_changes(tmp_path, fmt, payload):
    def run(password: str, name: str):
        document = spec()
        secret = {"password": [password]}
        document["steps"][1]["input_payload"] = secret if payload == "flat" else {"auth": secret}
        return write(tmp_path / name, document)

    pair = run("oldpass123", "b.json"), run("hunter2secretpw", "c.json")
    shown = cli("compare", *pair, "--format", fmt, env=WIDE)
    assert shown.code in (0, 1), shown.stderr
    assert "password.0" in shown.stdout  # the change is listed ...
    assert "hunter2secretpw" not in shown.stdout and "oldpass123" not in shown.stdout  # ... hidden
    assert "[redacted:" in shown.stdout


@pytest.mark.parametrize(
    "body",
    [
        '{"password": "hunter2secretpw"}',
        '{\\"password\\": \\"hunter2secretpw\\"}',
        "password=hunter2secretpw",
        "PWD: 'hunter2secretpw'",
    ],
)
def test_passwords_in_json_text_are_redacted(body):
    shown = Redactor().text(f"calling with {body} now")
    assert "hunter2secretpw" not in shown
    assert "[redacted:" in shown and shown.startswith("calling with ")


@pytest.mark.parametrize("key", ["OpenAIApiKey", "openaiAPIKey", "APIKey", "GitHubPAToken"])
def test_keys_with_acronyms_are_secret_keys(key):
    assert is_secret_key(key)


@pytest.mark.parametrize("key", ["totalTokens", "maxTokens", "HTTPStatus", "URLPath"])
def test_counters_and_plain_keys_with_acronyms_are_not(key):
    assert not is_secret_key(key)


@pytest.mark.parametrize("own", [False, True])
def test_suite_page_files_are_not_named_after_a_secret(tmp_path, monkeypatch, own):
    """Nor after a match of the user's `redact_patterns` (they named the page, and its link)."""
    key = "acme-0123456789abcdef" if own else KEY
    if own:
        (tmp_path / "agentdiff.toml").write_text(
            '[report]\nredact_patterns = ["acme-[0-9a-f]{16}"]\n', encoding="utf-8"
        )
        monkeypatch.chdir(tmp_path)
    base, cand, results = tmp_path / "b", tmp_path / "c", tmp_path / "res"
    for side, changed in ((base, False), (cand, True)):
        side.mkdir()
        document = spec()
        if changed:
            document["steps"][1]["status"] = "error"
            document["steps"][1]["error_message"] = "boom"
        write(side / f"{key}.json", document)
    shown = cli(
        "suite", base, cand, "--format", "html", "--results", results, "--max-new-errors", "0"
    )
    assert shown.code == 1, shown.stderr
    assert key not in shown.stdout
    pages = json.loads((results / "pairs" / "index.json").read_text())
    assert pages and not any(key in page for page in pages.values())
    assert not any(key in path.name for path in (results / "pairs").iterdir())
    again = cli("results", results, "--format", "html")
    assert again.code in (0, 1), again.stderr
    assert key not in again.stdout
