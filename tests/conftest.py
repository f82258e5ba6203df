"""Shared test helpers: paths to data and a registry that each test may change freely."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentdiff.adapters import registry
from agentdiff.config import SETTINGS

DATA = Path(__file__).parent / "data"
REAL = Path(__file__).parent / "fixtures" / "real"

pytest.register_assert_rewrite("tests.realdata")  # its checks report like test asserts


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> registry._Registry:
    """A new, empty registry (built-ins and entry points load on first use); restored after."""
    fresh = registry._Registry()
    monkeypatch.setattr(registry, "_REGISTRY", fresh)
    return fresh


@pytest.fixture
def spec_example() -> Path:
    return DATA / "spec_example.json"


@pytest.fixture(autouse=True)
def _reset_cli_debug(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--debug` sets process-wide CLI state; no test may leak it into the next."""
    from agentdiff.cli.errors import state

    monkeypatch.setattr(state, "debug", False)


@pytest.fixture
def no_settings_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No `AGENTDIFF_*` setting from the environment, and no agentdiff.toml from the checkout."""
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    monkeypatch.chdir(tmp_path)
