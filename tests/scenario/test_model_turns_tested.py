"""The N-run statistics test model turns, not `llm_call` steps.

A LangGraph or CrewAI run's model turns are routing and response steps: it has no `llm_call`
step, so the metric the statistics tested (`llm_calls`) was 0 in every run and a candidate that
makes more model turns was never tested on them, while the README and `--min-step-effect` promise
"model turns". Real runs: copies of the `identical` baseline (LangGraph: 3 model turns; CrewAI:
5) against copies of the `detour` candidate (4; 6), in `compare-runs` and in a suite. A trace
whose turns are all `llm_call` steps (the real OpenAI Agents SDK pool) gets the numbers it got
before the rename.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentdiff.cli.app import app
from agentdiff.scenario.profile import METRICS
from agentdiff.suite.render import render_suite
from agentdiff.suite.results import load_results

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
POOL = Path(__file__).resolve().parents[1] / "fixtures" / "runs_pool"
RUNS = 6
runner = CliRunner()

# (fixture folder, file shape, model turns of the identical baseline, of the detour candidate)
FRAMEWORKS = [
    pytest.param("langgraph", "messages.json", 3, 4, id="langgraph"),
    pytest.param("crewai", "events.json", 5, 6, id="crewai"),
]


pytestmark = pytest.mark.usefixtures("no_settings_env")
"""No `AGENTDIFF_*` setting from the environment, and `tmp_path` the working folder."""


def _copies(source: Path, folder: Path) -> Path:
    folder.mkdir(parents=True)
    for k in range(RUNS):
        shutil.copyfile(source, folder / f"run-{k}.json")
    return folder


def _sides(root: Path, framework: str, shape: str, scenario: str = "") -> tuple[Path, Path]:
    _copies(REAL / framework / "identical" / f"baseline.{shape}", root / "base" / scenario)
    _copies(REAL / framework / "detour" / f"candidate.{shape}", root / "cand" / scenario)
    return root / "base", root / "cand"


def _invoke(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout


# CrewAI's detour adds 1 turn to 5 (+20 %): more than a threshold of 10 %, not than the default 20
EFFECT = ("--min-step-effect", "10")


def _test(scenario: dict[str, Any], name: str) -> dict[str, Any]:
    (test,) = [t for t in scenario["tests"] if t["name"] == name]
    return test


def _check_model_turns(scenario: dict[str, Any], base_turns: int, cand_turns: int) -> None:
    names = {t["name"] for t in scenario["tests"]}
    assert "llm_calls" not in names
    test = _test(scenario, "model_turns")
    assert (test["baseline"]["median"], test["candidate"]["median"]) == (base_turns, cand_turns)
    assert (test["baseline"]["runs"], test["candidate"]["runs"]) == (RUNS, RUNS)
    assert test["shift"] == cand_turns - base_turns
    assert test["change_pct"] == pytest.approx(100 * (cand_turns - base_turns) / base_turns)
    assert test["threshold_pct"] == 10.0  # --min-step-effect: steps, tool calls, model turns
    assert test["verdict"] == "regressed"
    assert any(r.startswith("model_turns +") for r in scenario["reasons"])
    turns = {"baseline": base_turns, "candidate": cand_turns}
    for run in scenario.get("runs", []):
        assert (run["llm_calls"], run["model_turns"]) == (0, turns[run["side"]])


@pytest.mark.parametrize(("framework", "shape", "base_turns", "cand_turns"), FRAMEWORKS)
def test_compare_runs_tests_the_model_turns_of_runs_with_no_llm_call_step(
    tmp_path: Path, framework: str, shape: str, base_turns: int, cand_turns: int
) -> None:
    base, cand = _sides(tmp_path, framework, shape)
    code, out = _invoke("compare-runs", base, cand, *EFFECT, "-f", "json")
    assert code == 1, out
    report = orjson.loads(out)
    (scenario,) = report["scenarios"]
    _check_model_turns(scenario, base_turns, cand_turns)
    assert report["report_version"] == "2"  # the test is renamed, the runs give model_turns

    pct = round(100 * (cand_turns - base_turns) / base_turns)
    code, text = _invoke("compare-runs", base, cand, *EFFECT)
    assert code == 1
    assert f"model_turns +{pct} % (adjusted p" in text
    rows = [line.split()[:5] for line in text.splitlines() if "[" in line]
    base_band, cand_band = (f"{n} [{n}–{n}]".split() for n in (base_turns, cand_turns))
    assert ["model_turns", *base_band, *cand_band] in rows  # the tests table
    assert "llm_calls" not in text and "LLM call" not in text
    for fmt in ("markdown", "html"):
        code, page = _invoke("compare-runs", base, cand, *EFFECT, "-f", fmt)
        assert code == 1
        page = page.replace("\\_", "_")  # markdown escapes the underscore
        assert f"model_turns +{pct} %" in page and "llm_calls" not in page


@pytest.mark.parametrize(("framework", "shape", "base_turns", "cand_turns"), FRAMEWORKS)
def test_a_suite_tests_the_model_turns_of_a_multi_run_scenario(
    tmp_path: Path, framework: str, shape: str, base_turns: int, cand_turns: int
) -> None:
    base, cand = _sides(tmp_path, framework, shape, scenario="weather")
    code, out = _invoke("suite", base, cand, *EFFECT, "-f", "json")
    assert code == 1, out
    report = orjson.loads(out)
    (row,) = report["scenarios"]
    assert row["verdict"] == "regressed"
    _check_model_turns(row["stats"], base_turns, cand_turns)
    assert report["report_version"] == "3"
    for fmt in ("terminal", "markdown", "html"):
        code, text = _invoke("suite", base, cand, *EFFECT, "-f", fmt)
        assert code == 1
        text = text.replace("\\_", "_")  # markdown escapes the underscore
        assert "model_turns +" in text and "llm_calls" not in text


def test_runs_whose_turns_are_llm_call_steps_get_the_numbers_they_got_before() -> None:
    """Real OpenAI Agents SDK runs: `model_turns` is their `llm_call` count, and its test is the
    one `llm_calls` had before the rename, number for number (recorded from that code)."""
    base, cand = POOL / "baseline", POOL / "loop"
    code, out = _invoke("compare-runs", base, cand, "--scenario", "refund", "-f", "json")
    assert code == 1, out
    (scenario,) = orjson.loads(out)["scenarios"]
    assert all(run["model_turns"] == run["llm_calls"] for run in scenario["runs"])
    test = _test(scenario, "model_turns")
    before = {
        "method": "mann-whitney (exact)",
        "baseline": {"median": 3.0, "q1": 3.0, "q3": 3.25, "runs": 40},
        "candidate": {"median": 3.0, "q1": 3.0, "q3": 4.5, "runs": 40},
        "shift": 0.0,
        "shift_low": 0.0,
        "shift_high": 1.0,
        "change_pct": 0.0,
        "change_low": 0.0,
        "change_high": 33.33333333333333,
        "statistic": 1030.0,
        "p": 0.004686832934932885,
        "p_better": 0.9954665510863091,
        "adjusted_p": 0.032807830544530195,
        "adjusted_p_better": 1.0,
        "threshold_pct": 20.0,
        "verdict": "pass",
        "note": "median moved less than the practical threshold (20 %)",
    }
    assert {k: test[k] for k in before} == before
    assert (scenario["verdict"], scenario["p"]) == ("regressed", 0.005148281748755058)
    assert "model_turns" in METRICS and "llm_calls" not in METRICS


def test_a_saved_version_2_suite_report_still_loads(tmp_path: Path) -> None:
    """A `suite.json` written before: its runs give no `model_turns` and its test is `llm_calls`."""
    base, cand = _sides(tmp_path / "runs", "langgraph", "messages.json", scenario="weather")
    code, out = _invoke("suite", base, cand, *EFFECT, "-f", "json")
    assert code == 1, out
    data = orjson.loads(out)
    stats = data["scenarios"][0]["stats"]
    for run in stats["runs"]:
        del run["model_turns"]
    for test in stats["tests"]:
        test["name"] = "llm_calls" if test["name"] == "model_turns" else test["name"]
    data["report_version"] = "2"
    saved = tmp_path / "saved"
    saved.mkdir()
    (saved / "suite.json").write_bytes(orjson.dumps(data))
    old = load_results(saved)
    row = old.scenario("weather")
    assert old.report_version == "2" and row.stats is not None
    assert {run.model_turns for run in row.stats.runs} == {None}
    assert "weather  regressed (6→6 runs" in render_suite(old, "terminal")
