"""Secrets in traces never reach a human-facing report unless asked for; data formats keep
them unless `--redact` is given."""

from __future__ import annotations

import pytest

from .helpers import cli, write
from .secrets import SECRET_FRAGMENTS, leaky_trace


@pytest.fixture
def leaky_pair(tmp_path):
    return (
        write(tmp_path / "baseline.json", leaky_trace(changed=False)),
        write(tmp_path / "candidate.json", leaky_trace(changed=True)),
    )


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
