"""Per-scenario `[stats]` overrides of a suite manifest (`[[scenario]] stats = {...}`).

Real runs (tests/fixtures/runs_pool): 10 baseline runs against 10 runs of the `cost` variant
(+50 % tokens and cost) in two scenarios with the same runs, `strict/refund` and
`loose/refund`. The per-pair gate's cost and token rules are off, so only the statistics'
practical thresholds decide: at 10 % both scenarios regress, at 300 % neither does.
Precedence: flag > env > the manifest's `[[scenario]]` > its `[stats]` > agentdiff.toml > default.
"""

from __future__ import annotations

import importlib
import random
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentdiff.cli.app import app
from agentdiff.config import load_options
from agentdiff.diff.order import Side, prepare
from agentdiff.diff.signatures import Signer
from agentdiff.errors import ConfigError
from agentdiff.loader import load_trace
from agentdiff.models.trace import AgentTrace
from agentdiff.scenario.api import compare_runs
from agentdiff.scenario.judge import judge
from agentdiff.suite import RunSet, SuiteOptions, run_suite
from agentdiff.suite import run as suite_run
from agentdiff.suite.manifest import load_manifest
from agentdiff.suite.rows import ScenarioRow, row_json

POOL = Path(__file__).resolve().parents[1] / "fixtures" / "runs_pool"
SCENARIOS = ("loose/refund", "strict/refund")
_GATE_OFF = {"max_cost_increase": "off", "max_token_increase": "off"}
runner = CliRunner()


pytestmark = pytest.mark.usefixtures("no_settings_env")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`ROOT/{baseline,candidate}/<scenario>/<run>.json.gz`, 10 real runs per side."""
    root = tmp_path_factory.mktemp("stats-suite")
    picks = {
        "baseline": random.Random(3).sample(sorted((POOL / "baseline").iterdir()), 10),
        "candidate": random.Random(3).sample(sorted((POOL / "cost").iterdir()), 10),
    }
    for side, files in picks.items():
        for scenario in SCENARIOS:
            folder = root / side / scenario
            folder.mkdir(parents=True)
            for path in files:
                (folder / path.name).symlink_to(path)
    return root


def _manifest(root: Path, folder: Path, top: str = "", scenario: str = "") -> Path:
    path = folder / "agentdiff-suite.toml"
    path.write_text(
        f'[suite]\nbaseline = "{root / "baseline"}"\ncandidate = "{root / "candidate"}"\n'
        '[gate]\nmax_cost_increase = "off"\nmax_token_increase = "off"\n'
        f"[stats]\n{top}\n"
        f'[[scenario]]\nmatch = "strict/*"\n{scenario}\n'
    )
    return path


def _verdicts(*args: str, env: dict[str, str] | None = None) -> dict[str, dict]:
    result = runner.invoke(app, ["suite", *args, "-f", "json"], env=env)
    assert result.exit_code in (0, 1), result.output
    report = orjson.loads(result.stdout)
    return {row["scenario"]: row for row in report["scenarios"]} | {"": report}


HIGH = "min_cost_effect = 300\nmin_token_effect = 300"
STRICT = "stats = { min_cost_effect = 10, min_token_effect = 10 }"


def test_a_scenario_override_beats_the_manifest_and_the_config_file(runs, tmp_path):
    (tmp_path / "agentdiff.toml").write_text("[stats]\nmin_cost_effect = 1\nmin_token_effect = 1\n")
    manifest = _manifest(runs, tmp_path, top=HIGH, scenario=STRICT)
    rows = _verdicts("--manifest", str(manifest))
    assert rows["loose/refund"]["verdict"] == "pass"  # the manifest's [stats] beats the file
    strict = rows["strict/refund"]
    assert strict["verdict"] == "regressed"
    assert strict["overrides"] == {"min_cost_effect": 10.0, "min_token_effect": 10.0}
    reasons = " ".join(strict["stats"]["reasons"])
    assert "cost_usd +" in reasons and "total_tokens +" in reasons
    thresholds = {t["setting"]: t for t in rows[""]["thresholds"]}
    assert thresholds["min_cost_effect"]["value"] == 300
    assert thresholds["min_cost_effect"]["source"] == f"{manifest} [stats]"
    assert rows[""]["scenario_overrides"] == [
        {"match": "strict/*", "min_cost_effect": 10.0, "min_token_effect": 10.0}
    ]


def test_without_the_override_both_scenarios_agree(runs, tmp_path):
    rows = _verdicts("--manifest", str(_manifest(runs, tmp_path, top=HIGH)))
    assert rows["loose/refund"]["verdict"] == rows["strict/refund"]["verdict"] == "pass"
    rows = _verdicts("--manifest", str(_manifest(runs, tmp_path)))  # defaults: 10 %
    assert rows["loose/refund"]["verdict"] == rows["strict/refund"]["verdict"] == "regressed"


def test_env_and_flags_beat_a_scenario_override(runs, tmp_path):
    manifest = str(_manifest(runs, tmp_path, scenario=STRICT))
    env = {"AGENTDIFF_STATS_MIN_COST_EFFECT": "300", "AGENTDIFF_STATS_MIN_TOKEN_EFFECT": "300"}
    rows = _verdicts("--manifest", manifest, env=env)
    assert rows["strict/refund"]["verdict"] == "pass"
    assert rows["strict/refund"]["overrides"] == {}
    low = ("--min-cost-effect", "10", "--min-token-effect", "10")
    rows = _verdicts("--manifest", manifest, *low, env=env)
    assert rows["loose/refund"]["verdict"] == rows["strict/refund"]["verdict"] == "regressed"
    sources = {t["setting"]: t["source"] for t in rows[""]["thresholds"]}
    assert sources["min_cost_effect"] == "flag --min-cost-effect"


def _api_options(manifest, **more) -> SuiteOptions:
    """The manifest's overrides over high top-level thresholds, gate cost/token rules off."""
    return SuiteOptions(
        compare=load_options(_GATE_OFF, env={}).options,
        stats={"min_cost_effect": 300, "min_token_effect": 300},
        overrides=manifest.overrides,
        backend="in-process",
        **more,
    )


def test_the_python_api_applies_stats_overrides(runs, tmp_path):
    manifest = load_manifest(_manifest(runs, tmp_path, scenario=STRICT))
    options = _api_options(manifest)
    done = run_suite(
        RunSet.from_dir(runs / "baseline"), RunSet.from_dir(runs / "candidate"), options
    )
    assert done.scenario("loose/refund").verdict == "pass"
    assert done.scenario("strict/refund").verdict == "regressed"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("stats = { fdr = 0.1 }", "fdr applies to the whole suite"),
        ('stats = { inconclusive = "fail" }', "inconclusive applies to the whole suite"),
        ("stats = { alpha = 2 }", "alpha"),
        ("stats = { min_cost_efect = 3 }", "unknown setting 'min_cost_efect'"),
        ('stats = { loops = "sometimes" }', "loops must be"),
        ("stat = { alpha = 0.1 }", "valid: match, gate, stats"),
    ],
)
def test_bad_scenario_stats_name_the_table(runs, tmp_path, table, message):
    path = _manifest(runs, tmp_path, scenario=table)
    with pytest.raises(ConfigError, match=message) as caught:
        load_manifest(path)
    assert "[[scenario]] #1" in str(caught.value)


def test_gate_overrides_follow_the_same_precedence(runs, tmp_path):
    gate = "gate = { max_cost_increase = 10, max_token_increase = 10 }"
    manifest = str(_manifest(runs, tmp_path, top=HIGH, scenario=gate))
    rows = _verdicts("--manifest", manifest)
    assert rows["loose/refund"]["verdict"] == "pass"
    strict = rows["strict/refund"]
    assert strict["verdict"] == "regressed"  # its runs fail the per-pair gate
    assert "runs failing the per-pair gate" in " ".join(strict["stats"]["reasons"])
    env = {"AGENTDIFF_MAX_COST_INCREASE": "off", "AGENTDIFF_MAX_TOKEN_INCREASE": "off"}
    rows = _verdicts("--manifest", manifest, env=env)
    assert rows["strict/refund"]["verdict"] == "pass"
    assert rows["strict/refund"]["overrides"] == {}


def test_a_scenario_regressed_by_the_statistics_keeps_its_pair_report(runs, tmp_path):
    manifest = load_manifest(_manifest(runs, tmp_path, scenario=STRICT))
    options = _api_options(manifest, results=str(tmp_path / "results"))
    done = run_suite(manifest.baseline, manifest.candidate, options)
    # no pair fails the per-pair gate (cost and tokens are off): only the statistics regress it
    assert all(pair.passed for row in done.rows for pair in row.pairs)
    assert list(done.pair_pages) == ["strict/refund"]
    index = (tmp_path / "results" / "pairs" / "index.json").read_text()
    assert "strict/refund" in index and "loose/refund" not in index


def test_a_multi_run_scenario_prepares_each_run_once_and_equals_compare_runs(runs, monkeypatch):
    prepared: list[str] = []

    def counting(trace: AgentTrace, signer: Signer) -> Side:
        prepared.append(trace.trace_id)
        return prepare(trace, signer)

    for module in ("scenario.pairs", "scenario.profile", "routes.route", "diff.compare"):
        monkeypatch.setattr(importlib.import_module(f"agentdiff.{module}"), "prepare", counting)
    done = run_suite(
        RunSet.from_dir(runs / "baseline"),
        RunSet.from_dir(runs / "candidate"),
        SuiteOptions(backend="in-process"),
    )
    # 2 scenarios of 10 + 10 runs: each run prepared once for its route, profile and pairs
    assert len(prepared) == 40
    row = done.scenario("strict/refund")
    assert row.verdict == "regressed"
    gate = next(t for t in row.stats.tests if t.name == "runs failing the per-pair gate")
    assert gate.note is None  # a candidate run failed: the baseline's own pairs were compared
    prepared.clear()
    sides = [
        [(path.name.split(".")[0], load_trace(path)) for path in sorted(folder.iterdir())]
        for folder in (runs / "baseline" / "strict/refund", runs / "candidate" / "strict/refund")
    ]
    alone = compare_runs(*sides, scenario="strict/refund")
    assert len(prepared) == 20
    assert row.stats.model_dump() == alone.model_dump()


def test_settling_the_statistics_rewrites_only_what_judge_settles(runs, tmp_path, monkeypatch):
    seen = {}
    settle = suite_run._judge_statistics

    def capture(rows, options, own):
        seen.update(rows=rows, options=options, own=own)
        seen["out"] = settle(rows, options, own)
        return seen["out"]

    monkeypatch.setattr(suite_run, "_judge_statistics", capture)
    manifest = load_manifest(_manifest(runs, tmp_path, scenario=STRICT))
    done = run_suite(manifest.baseline, manifest.candidate, _api_options(manifest))
    assert [row.verdict for row in done.rows] == ["pass", "regressed"]
    # the reference: every row parsed into the models, judged, copied and dumped again
    parsed = [ScenarioRow.model_validate_json(row.json) for row in seen["rows"]]
    options = seen["options"]
    judged = judge([row.stats for row in parsed], options.stats, options.sources, seen["own"])
    expected = [
        row_json(row.model_copy(update={"stats": settled, "verdict": settled.verdict.value}))
        for row, settled in zip(parsed, judged.scenarios, strict=True)
    ]
    rows, threshold = seen["out"]
    assert [row.json for row in rows] == expected
    assert threshold == judged.tarone_threshold
    assert [(row.scenario, row.verdict) for row in rows] == [
        ("loose/refund", "pass"),
        ("strict/refund", "regressed"),
    ]
