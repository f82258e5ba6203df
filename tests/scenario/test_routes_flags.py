"""`agentdiff routes` takes only the settings its report depends on (`ROUTE_SETTINGS`).

A gate limit or `--compare-content` cannot change a route report:
each is a usage error (exit 2). The flags kept each change it where they should, and an
`agentdiff.toml` with a `[gate]` section (shared with `compare`) is still read: its sections
and keys checked, the values of settings routes does not take neither parsed nor used.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import pytest
import typer

from agentdiff.cli import runs as cli_runs
from agentdiff.cli import settings as cli_settings
from agentdiff.cli.app import app
from agentdiff.config import SETTINGS, load_options, load_stats
from agentdiff.config_kinds import FLAG
from agentdiff.errors import ConfigError
from tests.hostile.helpers import cli

KEPT = {"detect_loops", "strict_tool_signatures", "ignore", "fold_framework_steps"}
REFUSED = [s for s in SETTINGS if s.section in ("gate", "compare") and s.name not in KEPT]
UNUSED = [*REFUSED, *(s for s in SETTINGS if s.section in ("stats", "baseline"))]
UNUSED = [s for s in UNUSED if s.name != "route_threshold"]
"""The settings `routes` neither takes nor resolves (`[stats] route_threshold` it takes)."""


pytestmark = pytest.mark.usefixtures("no_settings_env")
"""No `AGENTDIFF_*` setting from the environment, and `tmp_path` the working folder."""


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """Two runs calling `search` three times, pages 0-2; the second also passes `lang`."""
    folder = tmp_path / "runs"
    folder.mkdir()
    for number, extra in enumerate(({}, {"lang": "en"})):
        steps = [_search(i, {"q": "x", "page": i, **extra}) for i in range(3)]
        trace = {"schema_version": "1.0.0", "trace_id": f"t{number}", "agent_name": "A"}
        (folder / f"r{number}.json").write_text(json.dumps({**trace, "steps": steps}))
    return folder


def _search(index: int, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "step_id": f"s{index}",
        "step_index": index,
        "step_type": "tool_call",
        "name": "search",
        "input_payload": arguments,
        "output_payload": {"hits": index},
        "status": "success",
    }


def _section(runs: Path, *flags: str) -> dict[str, Any]:
    outcome = cli("routes", runs, "-f", "json", *flags)
    assert outcome.code == 0, outcome.stderr
    section: dict[str, Any] = json.loads(outcome.stdout)["scenarios"]["runs"]
    return section


def _looping(section: dict[str, Any]) -> int:
    return sum(cluster["runs_with_loops"] for cluster in section["clusters"])


@pytest.mark.parametrize("setting", REFUSED, ids=lambda s: s.flag)
def test_a_flag_that_cannot_change_the_routes_is_a_usage_error(runs: Path, setting: Any) -> None:
    value = [] if setting.kind is FLAG else ["0.1"]
    outcome = cli("routes", runs, setting.flag, *value)
    assert outcome.code == 2
    assert "No such option" in outcome.stderr and setting.flag in outcome.stderr


def test_strict_tool_signatures_tells_routes_apart_by_input_keys(runs: Path) -> None:
    assert _section(runs)["distinct"] == 1
    strict = _section(runs, "--strict-tool-signatures")
    assert strict["distinct"] == 2 and len(strict["clusters"]) == 2


def test_ignore_and_detect_loops_decide_the_runs_with_loops(runs: Path) -> None:
    ignored = ("--ignore", "input_payload.page")  # the three calls are then one call, thrice
    assert _looping(_section(runs)) == 0
    assert _looping(_section(runs, *ignored)) == 2
    assert _looping(_section(runs, *ignored, "--no-detect-loops")) == 0


def _offered() -> set[str]:
    """The settings `agentdiff routes` offers a flag for, read from its click command."""
    command = typer.main.get_command(app)
    assert isinstance(command, typer.core.TyperGroup)
    given = {o for p in command.commands["routes"].params for o in (*p.opts, *p.secondary_opts)}
    return {s.name for s in SETTINGS if s.flag in given}


def test_the_flags_offered_are_the_settings_routes_resolves(
    runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A flag routes offers but does not resolve would be ignored; a setting it resolves but
    offers no flag for could be set only by env or file. What it resolves is read from a real
    run: the `only=` of each load_options/load_stats call (`None`, every setting, counts all)."""
    resolved: set[str] = set()

    def spy(real: Callable[..., Any]) -> Callable[..., Any]:
        def record(*args: Any, only: Collection[str] | None = None, **kwargs: Any) -> Any:
            resolved.update(only if only is not None else (s.name for s in SETTINGS))
            return real(*args, only=only, **kwargs)

        return record

    monkeypatch.setattr(cli_settings, "load_options", spy(cli_settings.load_options))
    monkeypatch.setattr(cli_runs, "load_stats", spy(cli_runs.load_stats))
    _section(runs)
    offered = _offered()
    assert offered == resolved
    assert offered >= KEPT and not {s.name for s in REFUSED} & offered


def test_a_config_file_gate_section_is_read_and_not_used(runs: Path, tmp_path: Path) -> None:
    strict = _section(runs, "--strict-tool-signatures")
    config = "[gate]\nmax_divergence = 0.1\n[compare]\ncompare_content = true\n"
    (tmp_path / "agentdiff.toml").write_text(config + "strict_tool_signatures = true\n")
    assert _section(runs) == strict  # the file is read: its [compare] setting routes uses


def test_routes_help_says_what_each_route_flag_does_there() -> None:
    """Not compare's words: routes has no candidate, and --ignore only tells loops apart."""
    outcome = cli("routes", "--help")
    assert outcome.code == 0, outcome.stderr
    shown = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", outcome.stdout).split())
    assert "every route cluster counts its runs with loops" in shown
    assert "Tell route steps apart by their input keys too" in shown
    assert "left out when telling repeated tool calls apart for loops" in shown
    assert "candidate" not in shown and "never compared" not in shown


@pytest.mark.parametrize("setting", UNUSED, ids=lambda s: s.env)
def test_a_bad_value_of_a_setting_routes_does_not_take_cannot_fail_it(
    runs: Path, setting: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No flag can override such a value (routes has none): it is not parsed, so it cannot fail
    routes (`AGENTDIFF_MAX_DIVERGENCE=5` was exit 2, "got '5'")."""
    resolve = load_stats if setting.section == "stats" else load_options
    with pytest.raises(ConfigError, match=setting.env):  # a bad value where it is resolved
        resolve(env={setting.env: "maybe"})
    plain = _section(runs)
    monkeypatch.setenv(setting.env, "maybe")
    assert _section(runs) == plain


def test_the_divergence_limit_in_env_or_file_is_not_parsed_by_routes(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = _section(runs)
    monkeypatch.setenv("AGENTDIFF_MAX_DIVERGENCE", "5")
    assert _section(runs) == plain
    monkeypatch.delenv("AGENTDIFF_MAX_DIVERGENCE")
    config = tmp_path / "agentdiff.toml"
    config.write_text(
        '[gate]\nmax_divergence = 5\n[compare]\ncompare_content = "maybe"\n'
        "strict_tool_signatures = true\n[stats]\nalpha = 7\n[baseline]\nstale_after_days = -1\n"
    )
    assert _section(runs) == _section(runs, "--strict-tool-signatures")  # [compare] is read
    assert cli("compare-runs", runs, runs).code == 2  # where the limits are taken: refused


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("[gatex]\nmax_divergence = 5\n", "unknown section [gatex]"),
        ("[gate]\nmax_divergenc = 5\n", "unknown setting 'max_divergenc'"),
        ("[compare]\ndetect_loops = 5\n", "[compare]: detect_loops must be true or false"),
        ("[report]\nredact = 5\n", "[report]: redact must be true or false"),
        ("[stats]\nroute_threshold = 5\n", "route_threshold must be a number from 0 to 1"),
    ],
)
def test_the_file_and_the_settings_routes_takes_are_still_checked(
    runs: Path, tmp_path: Path, config: str, message: str
) -> None:
    (tmp_path / "agentdiff.toml").write_text(config)
    outcome = cli("routes", runs)
    assert outcome.code == 2
    assert message in outcome.stderr


def test_a_route_setting_from_env_is_still_checked(
    runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTDIFF_DETECT_LOOPS", "maybe")
    outcome = cli("routes", runs)
    assert outcome.code == 2
    assert "env AGENTDIFF_DETECT_LOOPS: detect_loops must be true or false" in outcome.stderr
