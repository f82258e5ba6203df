"""Secrets in traces never reach a human-facing report unless asked for; data formats keep
them unless `--redact` is given."""

from __future__ import annotations

import pytest

from agentdiff.redact import Redactor

from .helpers import cli, write
from .secrets import KEYED_SECRETS, PATTERN_SECRETS, SECRET_FRAGMENTS, leaky_trace


@pytest.fixture
def leaky_pair(tmp_path):
    return (
        write(tmp_path / "baseline.json", leaky_trace(changed=False)),
        write(tmp_path / "candidate.json", leaky_trace(changed=True)),
    )


GATE = ["--max-new-errors", "0", "--max-divergence", "0"]
"""The leaky candidate's error counts as new, so JUnit shows findings too."""


def _leaks(text: str) -> list[str]:
    return [fragment for fragment in SECRET_FRAGMENTS if fragment in text]


def test_json_report_keeps_data_unless_redact_is_asked_for(leaky_pair):
    plain = cli("compare", *leaky_pair, "--format", "json")
    assert plain.code in (0, 1)
    assert _leaks(plain.stdout)
    redacted = cli("compare", *leaky_pair, "--format", "json", "--redact")
    assert _leaks(redacted.stdout) == []
    assert "[redacted:" in redacted.stdout


def test_convert_keeps_data_unless_redact_is_asked_for(leaky_pair):
    assert _leaks(cli("convert", leaky_pair[1]).stdout)
    redacted = cli("convert", leaky_pair[1], "--redact")
    assert redacted.code == 0
    assert _leaks(redacted.stdout) == []
    assert '"max_tokens": 1000' in redacted.stdout


def test_redaction_setting_from_config_and_env(leaky_pair, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agentdiff.toml").write_text(
        '[report]\nredact = true\nredact_patterns = ["(unclosed"]\n'
    )
    refused = cli("compare", *leaky_pair, "--format", "json")
    assert refused.code == 2
    assert "redact_patterns" in refused.stderr
    (tmp_path / "agentdiff.toml").write_text("[report]\nredact = true\n")
    assert _leaks(cli("compare", *leaky_pair, "--format", "json").stdout) == []
    env = {"AGENTDIFF_REDACT": "false"}
    assert _leaks(cli("compare", *leaky_pair, "--format", "json", env=env).stdout)


HUMAN = ["terminal", "markdown", "html", "junit"]
WIDE = {"COLUMNS": "2000"}


@pytest.mark.parametrize("fmt", HUMAN)
def test_human_reports_redact_every_kind_of_secret(leaky_pair, fmt):
    outcome = cli("compare", *leaky_pair, "--format", fmt, *GATE, env=WIDE)
    assert outcome.code == 1, outcome.stderr
    assert _leaks(outcome.stdout + outcome.stderr) == []
    assert "redacted:" in outcome.stdout


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html"])
def test_a_changed_secret_still_shows_as_changed(leaky_pair, fmt):
    outcome = cli("compare", *leaky_pair, "--format", fmt, env=WIDE)
    password = KEYED_SECRETS["password"]
    before, after = (Redactor().value(p, "password")[-5:-1] for p in (password, password + "-v2"))
    assert before != after
    assert before in outcome.stdout
    assert after in outcome.stdout


@pytest.mark.parametrize("fmt", HUMAN)
def test_no_redact_shows_the_data(leaky_pair, fmt):
    outcome = cli("compare", *leaky_pair, "--format", fmt, "--no-redact", *GATE, env=WIDE)
    assert _leaks(outcome.stdout)


def test_inspect_redacts_the_tree_and_keeps_json_data(leaky_pair):
    tree = cli("inspect", leaky_pair[1], env=WIDE)
    assert tree.code == 0
    assert _leaks(tree.stdout) == []
    assert "redacted:" in tree.stdout
    assert _leaks(cli("inspect", leaky_pair[1], "--no-redact", env=WIDE).stdout)
    assert _leaks(cli("inspect", leaky_pair[1], "--format", "json").stdout)
    assert _leaks(cli("inspect", leaky_pair[1], "--format", "json", "--redact").stdout) == []


def test_error_messages_are_redacted(tmp_path):
    target = tmp_path / "sk-proj-Zq3xV9tLmN2pR8sK4wY7bC1dF6gH0jA5eT.json"
    target.write_text("{")
    outcome = cli("compare", target, target, "--format", "junit")
    assert outcome.code == 2
    assert _leaks(outcome.stdout + outcome.stderr) == []
    assert "redacted:" in outcome.stderr


@pytest.fixture
def acme_trace(tmp_path, monkeypatch):
    """A trace holding an in-house credential only a `[report] redact_patterns` entry knows."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agentdiff.toml").write_text('[report]\nredact_patterns = ["acme-[0-9a-f]{8}"]\n')
    document = leaky_trace(changed=False)
    document["steps"][1]["name"] = "tool acme-deadbeef"
    document["steps"][1]["error_message"] = f"refused acme-deadbeef {PATTERN_SECRETS['openai']}"
    return write(tmp_path / "acme.json", document)


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        ([], False),
        (["--no-redact"], True),
        (["--format", "json"], True),
        (["--format", "json", "--redact"], False),
    ],
)
def test_inspect_follows_the_report_settings(acme_trace, args, shown):
    outcome = cli("inspect", acme_trace, *args, env=WIDE)
    assert outcome.code == 0, outcome.stderr
    assert ("acme-deadbeef" in outcome.stdout) is shown
    assert ("redacted:" in outcome.stdout) is not shown


def test_inspect_tree_redaction_can_be_turned_off_in_the_config(acme_trace, tmp_path):
    (tmp_path / "agentdiff.toml").write_text("[report]\nredact = false\n")
    assert _leaks(cli("inspect", acme_trace, env=WIDE).stdout)
    assert _leaks(cli("inspect", acme_trace, "--redact", env=WIDE).stdout) == []


@pytest.mark.parametrize(
    "command",
    [
        ["compare", "{f}", "{f}"],
        ["compare", "{f}", "{f}", "--no-redact"],
        ["suite", "{d}", "{d}"],
        ["compare-runs", "{d}", "{d}"],
    ],
)
def test_stderr_redacts_the_config_patterns_too(tmp_path, monkeypatch, command):
    """A broken file named after an in-house credential: stderr hides it as reports do (it
    knew the built-in patterns only), whatever `--no-redact` says for the report."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agentdiff.toml").write_text('[report]\nredact_patterns = ["acme-[0-9a-f]{8}"]\n')
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "acme-deadbeef.json").write_text("{")
    args = [a.format(f=runs / "acme-deadbeef.json", d=runs) for a in command]
    outcome = cli(*args)
    assert outcome.code == 2, outcome.stderr
    shown = outcome.stdout + outcome.stderr  # the suite lists the load error in its report
    assert "acme-deadbeef" not in shown
    assert "redacted:" in shown


def test_the_config_patterns_of_one_command_do_not_reach_the_next(tmp_path, monkeypatch):
    """The CLI embedded (tests, notebooks): a later command without that config starts afresh."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agentdiff.toml").write_text('[report]\nredact_patterns = ["acme-[0-9a-f]{8}"]\n')
    broken = tmp_path / "acme-deadbeef.json"
    broken.write_text("{")
    assert "acme-deadbeef" not in cli("compare", broken, broken).stderr
    (tmp_path / "agentdiff.toml").unlink()
    assert "acme-deadbeef" in cli("compare", broken, broken).stderr


@pytest.mark.parametrize(
    ("args", "patterns", "shown"),
    [
        ([], False, False),
        ([], True, False),
        (["--no-redact"], True, True),
    ],
)
def test_suite_html_pair_pages_follow_the_report_settings(
    tmp_path, monkeypatch, args, patterns, shown
):
    """The pair page of a regressed scenario (embedded in the suite's HTML and kept in its
    results folder) is redacted as the suite report is: the config's own patterns too, and
    not at all under `--no-redact`."""
    monkeypatch.chdir(tmp_path)
    if patterns:
        (tmp_path / "agentdiff.toml").write_text(
            '[report]\nredact_patterns = ["acme-[0-9a-f]{8}"]\n'
        )
    for side, changed in (("base", False), ("cand", True)):
        document = leaky_trace(changed=changed)
        document["steps"][1]["input_payload"]["note"] = "in-house acme-deadbeef"
        (tmp_path / side).mkdir()
        write(tmp_path / side / "leaky.json", document)
    results = tmp_path / "results"
    html = tmp_path / "suite.html"
    outcome = cli(
        "suite",
        "base",
        "cand",
        "--max-new-errors",
        "0",
        "-f",
        "html",
        "-o",
        html,
        "--results",
        results,
        *args,
    )
    assert outcome.code == 1, outcome.stderr  # the candidate's new error regresses it
    page = (results / "pairs" / "001-leaky.html").read_text()
    embedded = html.read_text()
    assert ("redacted:" in page) is not shown
    for text in (page, embedded):
        assert bool(_leaks(text)) is shown
        assert ("acme-deadbeef" in text) is (shown or not patterns)


def _leaky_results(tmp_path, *args: str):
    """A results folder whose one regressed scenario's pair page holds the fake keys."""
    for side, changed in (("base", False), ("cand", True)):
        (tmp_path / side).mkdir()
        write(tmp_path / side / "leaky.json", leaky_trace(changed=changed))
    results = tmp_path / "results"
    base, cand = tmp_path / "base", tmp_path / "cand"
    outcome = cli("suite", base, cand, "--max-new-errors", "0", "--results", results, *args)
    assert outcome.code == 1, outcome.stderr
    return results


@pytest.mark.parametrize("args", [["--redact"], []])
def test_results_html_never_embeds_pages_saved_unredacted_when_redacting(tmp_path, args):
    """`suite --no-redact` saved the pair page with the keys: `results -f html` (redaction on,
    its default) leaves it out with a note, and shows it only under `--no-redact`."""
    results = _leaky_results(tmp_path, "--no-redact")
    assert _leaks((results / "pairs" / "001-leaky.html").read_text())
    page = cli("results", results, "-f", "html", *args)
    assert page.code == 0, page.stderr
    assert not _leaks(page.stdout)
    assert "left out: it was saved without redaction" in page.stdout
    plain = cli("results", results, "-f", "html", "--no-redact")
    assert _leaks(plain.stdout) and "left out" not in plain.stdout


def test_results_html_embeds_pages_saved_redacted(tmp_path):
    results = _leaky_results(tmp_path)
    page = cli("results", results, "-f", "html")
    assert "srcdoc=" in page.stdout and not _leaks(page.stdout)
    assert "left out" not in page.stdout
