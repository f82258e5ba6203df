"""`agentdiff CMD` imports only CMD's module: compare never pays for suites, recording or stats."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import orjson

from agentdiff import __version__
from agentdiff.cli.app import COMMANDS, app, build_app

REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "reference"

_MAIN = """
from agentdiff.cli.app import main
sys.argv = ["agentdiff", *sys.argv[1:]]
main()
"""
_COMPARE = """
from agentdiff.cli.app import build_app
build_app(["compare"])(sys.argv[1:])  # not main(): it ends the process without returning
"""
_PROBE = """
import sys
try:
{run}
except SystemExit:
    pass
heavy = (
    "agentdiff.suite",
    "agentdiff.record",
    "agentdiff.stats",
    "agentdiff.cli.results",
    "agentdiff.render.view",
    "rich",
)
print("loaded:" + ",".join(sorted(m for m in heavy if m in sys.modules)))
"""


def _loaded_heavy_modules(*argv: str, run: str = _MAIN) -> str:
    probe = _PROBE.format(run=textwrap.indent(run.strip(), "    "))
    done = subprocess.run(
        [sys.executable, "-c", probe, *argv], capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()[-1].removeprefix("loaded:")


def test_compare_imports_no_suite_recorder_or_statistics() -> None:
    assert _loaded_heavy_modules("--debug", "compare", "--help") == ""


def test_a_json_report_written_to_a_file_never_imports_the_view_model(tmp_path: Path) -> None:
    pair = REFERENCE / "langsmith" / "extra_tool_detour"
    out = tmp_path / "report.json"
    args = ("compare", str(pair / "baseline.json"), str(pair / "candidate.json"))
    assert _loaded_heavy_modules(*args, "--format", "json", "-o", str(out), run=_COMPARE) == ""
    assert orjson.loads(out.read_bytes())["report_version"]


def test_the_root_help_still_lists_every_command() -> None:
    assert _loaded_heavy_modules("--help") != ""


def test_the_full_app_holds_every_command() -> None:
    names = {command.name for command in app.registered_commands}
    assert names == set(COMMANDS)
    assert [c.name for c in build_app(["diff"]).registered_commands] == ["diff"]


def test_a_json_suite_report_never_imports_rich_or_jinja2(tmp_path: Path) -> None:
    pair = REFERENCE / "langsmith" / "extra_tool_detour"
    manifest = tmp_path / "suite.jsonl"
    rows = [
        {"scenario": "detour", "side": side, "path": str(pair / f"{side}.json")}
        for side in ("baseline", "candidate")
    ]
    manifest.write_bytes(b"\n".join(map(orjson.dumps, rows)))
    out = tmp_path / "suite.json"
    probe = _PROBE.replace('"rich",', '"rich", "jinja2", "agentdiff.suite.render.terminal",')
    run = textwrap.indent(_MAIN.strip(), "    ")
    argv = ("suite", "--manifest", str(manifest), "-f", "json", "-o", str(out))
    command = [sys.executable, "-c", probe.format(run=run), *argv]
    done = subprocess.run(command, capture_output=True, text=True, check=False)  # exit 1: regressed
    loaded = set(done.stdout.splitlines()[-1].removeprefix("loaded:").split(","))
    assert "agentdiff.suite" in loaded  # the probe sees what the command imported
    assert not loaded & {"rich", "jinja2", "agentdiff.suite.render.terminal"}
    assert orjson.loads(out.read_bytes())["counts"]["scenarios"] == 1


def test_version_alone_builds_no_command() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _PROBE.format(run=textwrap.indent(_MAIN.strip(), "    ")),
            "--version",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.splitlines()[0] == f"agentdiff {__version__}"
    assert done.stdout.splitlines()[-1] == "loaded:"  # no command module, so no suite or rich


def test_comparing_canonical_json_imports_no_adapter_of_another_format(tmp_path: Path) -> None:
    pair = REFERENCE / "langsmith" / "extra_tool_detour"
    runs = []
    for side in ("baseline", "candidate"):
        runs.append(tmp_path / f"{side}.json")  # converted: canonical JSON, loaded by no adapter
        done = subprocess.run(
            [sys.executable, "-m", "agentdiff", "convert", str(pair / f"{side}.json")],
            capture_output=True,
            check=True,
        )
        runs[-1].write_bytes(done.stdout)
    probe = _PROBE.replace('"rich",', '"rich", "agentdiff.adapters.langsmith.adapter",')
    run = textwrap.indent(_COMPARE.strip(), "    ")
    out = tmp_path / "report.json"
    argv = ("compare", *map(str, runs), "--format", "json", "-o", str(out))
    command = [sys.executable, "-c", probe.format(run=run), *argv]
    done = subprocess.run(command, capture_output=True, text=True, check=False)  # exit 1: gate
    assert done.stdout.splitlines()[-1] == "loaded:"
    assert orjson.loads(out.read_bytes())["baseline"]["steps"] > 0
