"""The environment of a baseline-loop test: no `AGENTDIFF_*` setting, a known git author.

Approvals record who approved from git's config; each test reads its own, in `tmp_path` (also
the working folder), never the machine's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentdiff.cli.errors import state
from agentdiff.config import SETTINGS


def isolate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No setting from the environment, git's author Ada Lovelace, `tmp_path` the working folder."""
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(state, "debug", False)
