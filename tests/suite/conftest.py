from __future__ import annotations

from pathlib import Path

import pytest

from agentdiff.suite import RunSet
from tests.suite.fixture_suite import build


@pytest.fixture(scope="session")
def fixture_suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The 35-scenario real-fixture suite with the added/removed/broken extras (read-only)."""
    return build(tmp_path_factory.mktemp("suite"), extras=True)


@pytest.fixture(scope="session")
def fixture_sets(fixture_suite: tuple[Path, Path]) -> tuple[RunSet, RunSet]:
    base, cand = fixture_suite
    return RunSet.from_dir(base, layout="files"), RunSet.from_dir(cand, layout="files")
