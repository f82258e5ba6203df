"""The pytest plugin (entry point `pytest11: agentdiff`): golden-baseline checks for agent runs.

    def test_weather_agent(agentdiff_baseline):
        trace = run_my_agent()                      # an AgentTrace, or a trace file path
        agentdiff_baseline("weather", trace)        # vs baselines/weather.json next to the test

The baseline lives in `<test folder>/<agentdiff_baseline_dir>/<name>.json` (ini option, default
`baselines`). A missing baseline fails the test; `pytest --agentdiff-update-baseline` writes
(creates or replaces) it from the candidate instead of comparing, through the one baseline
write, `agentdiff.baselines.save_baseline` (provenance recorded; a multi-trace file is refused).
Thresholds are keyword arguments and resolve like the CLI's (see `agentdiff.regressions`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentdiff.baselines import VIA_PYTEST, TraceSource, as_trace, save_baseline
from agentdiff.models.report import DiffReport
from agentdiff.models.trace import AgentTrace
from agentdiff.regressions import assert_no_regressions

__all__ = ["BaselineCheck", "agentdiff_baseline", "pytest_addoption"]

UPDATE_FLAG = "--agentdiff-update-baseline"
_NAME = re.compile(r"[\w.-]+")


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add `--agentdiff-update-baseline` and the `agentdiff_baseline_dir` ini option."""
    group = parser.getgroup("agentdiff", "AgentDiff golden baselines")
    group.addoption(
        UPDATE_FLAG,
        action="store_true",
        default=False,
        help="Write agentdiff baselines from the candidates instead of comparing.",
    )
    parser.addini(
        "agentdiff_baseline_dir",
        "Folder of agentdiff baselines, relative to each test file (default: baselines).",
        default="baselines",
    )


@dataclass(frozen=True)
class BaselineCheck:
    """Compare a candidate with the named golden baseline (or write it when updating)."""

    folder: Path
    update: bool

    def path(self, name: str) -> Path:
        """Where the baseline called `name` lives."""
        if not _NAME.fullmatch(name) or name.startswith("."):
            msg = f"baseline name {name!r} must be letters, digits, '_', '-' or '.'"
            raise ValueError(msg)
        return self.folder / f"{name}.json"

    def __call__(
        self, name: str, candidate: TraceSource, **thresholds: object
    ) -> DiffReport | None:
        """Assert no regression against baseline `name`; `None` when the baseline was written."""
        path = self.path(name)
        trace = as_trace(candidate)
        if self.update:
            source = None if isinstance(candidate, AgentTrace) else candidate
            inputs = [Path(source)] if source is not None else []
            save_baseline(path, trace, via=VIA_PYTEST, candidate=source, inputs=inputs)
            return None
        if not path.exists():
            pytest.fail(f"no agentdiff baseline {path}; create it with pytest {UPDATE_FLAG}")
        return assert_no_regressions(path, trace, **thresholds)


@pytest.fixture
def agentdiff_baseline(request: pytest.FixtureRequest) -> BaselineCheck:
    """`agentdiff_baseline(name, candidate, **thresholds)`: a golden-baseline check."""
    folder = Path(request.path).parent / str(request.config.getini("agentdiff_baseline_dir"))
    return BaselineCheck(folder, bool(request.config.getoption(UPDATE_FLAG)))
