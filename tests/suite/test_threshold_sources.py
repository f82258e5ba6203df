"""A suite's pair reports name each threshold's source as `suite.json` does.

The manifest's `[gate]`, a `[[scenario]]` override, an environment variable, a flag and a
default: the `Thresholds:` lines of a saved pair page (`pairs/NNN-*.html`) and the `thresholds`
of `suite.json` (with the row's `overrides` and `scenario_overrides` for a scenario's own
values) say the same thing.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentdiff import CompareOptions
from agentdiff.cli.app import app
from agentdiff.config import SETTINGS
from agentdiff.gate import GateThresholds
from agentdiff.suite import RunSet, ScenarioOverride, SuiteOptions, load_manifest, run_suite
from agentdiff.suite.settings import resolve_settings

_REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "langfuse"
_LINE = re.compile(r"Thresholds: ([^<]*)")


def _runs(tmp_path: Path) -> tuple[Path, Path]:
    """`loop` (regressed: it has a page) and `identical` (passed), on each side."""
    base, cand = tmp_path / "base", tmp_path / "cand"
    for folder, side in ((base, "baseline"), (cand, "candidate")):
        folder.mkdir()
        for case in ("loop", "identical"):
            (folder / f"{case}.json").write_bytes((_REAL / case / f"{side}.json").read_bytes())
    return base, cand


def _page_sources(page: str) -> dict[str, str]:
    """Setting → source, from a pair page's `Thresholds: a 1, b no (source)` lines."""
    found = {}
    for line in _LINE.findall(page):
        settings, _, source = html.unescape(line).rpartition(" (")
        for item in settings.split(", "):
            found[item.split(" ")[0]] = source.removesuffix(")")
    return found


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """`suite --results` with a manifest `[gate]` value, a `[[scenario]]` override, an
    environment variable and a flag: the manifest, the loop page's sources and suite.json."""
    tmp_path = tmp_path_factory.mktemp("sources")
    base, cand = _runs(tmp_path)
    manifest = tmp_path / "agentdiff-suite.toml"
    manifest.write_text(
        f'[suite]\nbaseline = "{base}"\ncandidate = "{cand}"\nlayout = "files"\n'
        "[gate]\nmax_divergence = 0.4\n"
        '[[scenario]]\nmatch = "loop"\ngate = { max_cost_increase = 40 }\n'
    )
    results = tmp_path / "res"
    args = ["--manifest", str(manifest), "--results", str(results)]
    with pytest.MonkeyPatch.context() as env:
        for setting in SETTINGS:
            env.delenv(setting.env, raising=False)
        env.setenv("AGENTDIFF_MAX_LATENCY_INCREASE", "60")
        env.chdir(tmp_path)
        done = CliRunner().invoke(app, ["suite", *args, "--max-token-increase", "50"])
    assert done.exit_code == 1, done.output
    index = orjson.loads((results / "pairs" / "index.json").read_bytes())
    page = _page_sources((results / index["loop"]).read_text())
    report = orjson.loads((results / "suite.json").read_bytes())
    return manifest, page, report


@pytest.mark.parametrize(
    ("setting", "source"),
    [
        ("max_divergence", "{manifest} [gate]"),
        ("max_token_increase", "flag --max-token-increase"),
        ("max_latency_increase", "env AGENTDIFF_MAX_LATENCY_INCREASE"),
        ("allow_loops", "default"),
        ("max_tool_repeats", "default"),
    ],
)
def test_a_saved_pair_page_names_the_source_suite_json_names(saved, setting, source):
    manifest, page, report = saved
    listed = {t["setting"]: t["source"] for t in report["thresholds"]}
    assert page[setting] == listed[setting] == source.format(manifest=manifest)


def test_a_scenario_override_is_named_by_its_scenario_table(saved):
    manifest, page, report = saved
    # suite.json lists the scenario's own value on its row and the table by its `match`
    assert page["max_cost_increase"] == f'{manifest} [[scenario]] match = "loop"'
    assert report["scenario_overrides"] == [{"match": "loop", "max_cost_increase": 40.0}]
    row = next(r for r in report["scenarios"] if r["scenario"] == "loop")
    assert row["overrides"] == {"max_cost_increase": 40.0}


def test_every_other_gate_setting_agrees(saved):
    _, page, report = saved
    listed = {t["setting"]: t["source"] for t in report["thresholds"]}
    del page["max_cost_increase"]
    assert len(page) >= 7
    assert page == {setting: listed[setting] for setting in page}


@pytest.mark.usefixtures("no_settings_env")
def test_run_suite_pages_agree_with_its_thresholds(tmp_path):
    """A library caller's options: set in code (`options`), by `sources`, or left default."""
    base, cand = _runs(tmp_path)
    options = SuiteOptions(
        backend="in-process",
        pair_pages=True,
        compare=CompareOptions(gate=GateThresholds(max_divergence=0.3, max_token_increase=60)),
        sources={"max_token_increase": "flag --max-token-increase"},
        overrides=(ScenarioOverride(match="lo*", settings={"max_cost_increase": 40}),),
    )
    sets = RunSet.from_dir(base, layout="files"), RunSet.from_dir(cand, layout="files")
    done = run_suite(*sets, options)
    page = _page_sources(done.pair_pages["loop"])
    listed = {t.setting: t.source for t in done.thresholds}
    assert page["max_divergence"] == listed["max_divergence"] == "options"
    assert page["max_token_increase"] == listed["max_token_increase"] == "flag --max-token-increase"  # noqa: S105
    assert page["allow_loops"] == listed["allow_loops"] == "default"
    assert page["max_cost_increase"] == '[[scenario]] match = "lo*"'


def test_resolved_suite_options_carry_the_sources_they_are_reported_with(tmp_path):
    base, cand = _runs(tmp_path)
    path = tmp_path / "suite.toml"
    path.write_text(
        f'[suite]\nbaseline = "{base}"\ncandidate = "{cand}"\n[gate]\nmax_divergence = 0.4\n'
    )
    options, sources = resolve_settings({"max_token_increase": "50"}, load_manifest(path), env={})
    assert options.sources == sources
    assert sources["max_divergence"] == f"{path} [gate]"
    assert sources["max_token_increase"] == "flag --max-token-increase"  # noqa: S105
