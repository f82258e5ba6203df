"""`agentdiff CMD` imports only CMD's module: compare never pays for suites, recording or stats."""

from __future__ import annotations

import subprocess
import sys

from agentdiff.cli.app import COMMANDS, app, build_app

_PROBE = """
import sys
from agentdiff.cli.app import main
sys.argv = ["agentdiff", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
heavy = ("agentdiff.suite", "agentdiff.record", "agentdiff.stats", "agentdiff.cli.results")
print("loaded:" + ",".join(sorted(m for m in heavy if m in sys.modules)))
"""


def _loaded_heavy_modules(*argv: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()[-1].removeprefix("loaded:")


def test_compare_imports_no_suite_recorder_or_statistics() -> None:
    assert _loaded_heavy_modules("--debug", "compare", "--help") == ""


def test_the_root_help_still_lists_every_command() -> None:
    assert _loaded_heavy_modules("--help") != ""


def test_the_full_app_holds_every_command() -> None:
    names = {command.name for command in app.registered_commands}
    assert names == set(COMMANDS)
    assert [c.name for c in build_app(["diff"]).registered_commands] == ["diff"]
