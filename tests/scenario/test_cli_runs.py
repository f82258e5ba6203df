"""`agentdiff compare-runs` and `agentdiff routes` end to end, and the [stats] settings."""

from __future__ import annotations

import gzip
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdiff.cli.app import app
from agentdiff.config import load_stats
from agentdiff.errors import ConfigError
from agentdiff.scenario.folders import _distinct, group_runs
from agentdiff.stats_options import StatsOptions

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from runs_synthetic import Variant, make_runs

runner = CliRunner()


pytestmark = pytest.mark.usefixtures("no_settings_env")
"""No `AGENTDIFF_*` setting from the environment, and `tmp_path` the working folder."""


def _folder(root: Path, name: str, seed: int, count: int, variant: Variant | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    for trace in make_runs(seed, count, variant or Variant(), prefix=name):
        (folder / f"{trace.trace_id}.json").write_text(trace.model_dump_json())
    return folder


def test_compare_runs_passes_an_unchanged_candidate(tmp_path: Path) -> None:
    base, cand = _folder(tmp_path, "base", 1, 8), _folder(tmp_path, "cand", 2, 8)
    result = runner.invoke(app, ["compare-runs", str(base), str(cand)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("1 passed · 0 regressed")
    assert "cand · 8 baseline runs, 8 candidate runs → PASS" in result.output


def test_compare_runs_fails_a_costlier_candidate_and_writes_json(tmp_path: Path) -> None:
    base = _folder(tmp_path, "base", 1, 10)
    cand = _folder(tmp_path, "cand", 2, 10, Variant(cost_factor=1.5))
    out = tmp_path / "report.json"
    result = runner.invoke(
        app, ["compare-runs", str(base), str(cand), "-f", "json", "-o", str(out)]
    )
    assert result.exit_code == 1
    data = json.loads(out.read_text())
    assert data["report_version"] == "2"
    (scenario,) = data["scenarios"]
    assert scenario["verdict"] == "regressed"
    assert {t["name"] for t in scenario["tests"] if t["verdict"] == "regressed"} >= {"cost_usd"}
    assert len(scenario["runs"]) == 20
    assert scenario["routes"]["trie"]["counts"] == {"baseline": 10, "candidate": 10}


def test_inconclusive_fails_only_when_asked(tmp_path: Path) -> None:
    base, cand = _folder(tmp_path, "base", 1, 3), _folder(tmp_path, "cand", 2, 2)
    ok = runner.invoke(app, ["compare-runs", str(base), str(cand)])
    assert ok.exit_code == 0, ok.output
    assert "INCONCLUSIVE" in ok.output
    assert "add runs" in ok.output
    strict = runner.invoke(app, ["compare-runs", str(base), str(cand), "--inconclusive", "fail"])
    assert strict.exit_code == 1
    env = runner.invoke(
        app, ["compare-runs", str(base), str(cand)], env={"AGENTDIFF_STATS_INCONCLUSIVE": "fail"}
    )
    assert env.exit_code == 1


@pytest.mark.parametrize("fmt", ["markdown", "html", "junit"])
def test_compare_runs_formats(tmp_path: Path, fmt: str) -> None:
    base = _folder(tmp_path, "base", 1, 10)
    cand = _folder(tmp_path, "cand", 3, 10, Variant(loop_share=0.3))
    result = runner.invoke(app, ["compare-runs", str(base), str(cand), "-f", fmt])
    assert result.exit_code == 1
    if fmt == "markdown":
        assert "### REGRESSED · cand" in result.output
        assert "| route | baseline | candidate |" in result.output
    elif fmt == "html":
        assert 'class="trie"' in result.output
        assert "Distributions per side" in result.output
        assert "<script" not in result.output
    else:
        assert "<failure" in result.output


def test_compare_runs_bad_folder_is_exit_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["compare-runs", str(empty), str(empty)])
    assert result.exit_code == 2
    assert "no trace files" in result.output


def _junit_error(path: Path) -> str:
    """The message of the one `<error>` of a JUnit file `compare-runs` wrote on bad input."""
    suite = ET.fromstring(path.read_text())  # noqa: S314 - our own output
    assert suite.tag == "testsuite"  # the shape of its report: a bare `<testsuite>`
    assert suite.get("name") == "agentdiff compare-runs"
    assert suite.get("errors") == "1" and not suite.findall(".//failure")
    (case,) = suite.findall("testcase")
    assert case.get("classname") == "agentdiff.runs"
    return case.find("error").get("message")


def _shape(path: Path) -> tuple[str, str]:
    """A JUnit file's XML declaration and root element: what a CI parser is set up for."""
    text = path.read_text()
    return text.splitlines()[0], ET.fromstring(text).tag  # noqa: S314 - our own output


def test_compare_runs_reports_an_input_error_in_its_report_shape(tmp_path: Path) -> None:
    """Its input error has the root element and XML declaration of its report, as parsed."""
    base, cand = _folder(tmp_path, "base", 1, 3), _folder(tmp_path, "cand", 2, 3)
    report, error = tmp_path / "report.xml", tmp_path / "error.xml"
    ran = runner.invoke(app, ["compare-runs", str(base), str(cand), "-o", f"junit={report}"])
    assert ran.exit_code == 0, ran.output
    missing = str(tmp_path / "nosuch")
    failed = runner.invoke(app, ["compare-runs", str(base), missing, "-o", f"junit={error}"])
    assert failed.exit_code == 2
    assert (
        _shape(error) == _shape(report) == ('<?xml version="1.0" encoding="utf-8"?>', "testsuite")
    )


def test_compare_runs_reports_a_run_it_cannot_load_in_junit(tmp_path: Path) -> None:
    """A run file that does not load still gets a JUnit `<error>` (CI shows why); exit 2."""
    base, cand = _folder(tmp_path, "base", 1, 3), _folder(tmp_path, "cand", 2, 3)
    (cand / "broken.json").write_text("{not json")
    junit, plain, md = tmp_path / "r.xml", tmp_path / "plain.xml", tmp_path / "r.md"
    args = ["compare-runs", str(base), str(cand), "-o", f"junit={junit}", "-o", f"markdown={md}"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "broken.json" in _junit_error(junit)
    assert not md.exists()  # a format with no error shape is not written
    given = runner.invoke(app, [*args[:3], "--format", "junit", "-o", str(plain)])
    assert given.exit_code == 2
    assert "broken.json" in _junit_error(plain)


def test_compare_runs_reports_a_missing_or_empty_folder_in_junit(tmp_path: Path) -> None:
    """A folder missing, empty or a file gets a JUnit `<error>` too (it got none: exit 2 with
    no report); the outputs are still checked first, so a file given for a folder is never
    written over."""
    cand = _folder(tmp_path, "cand", 2, 3)
    empty = tmp_path / "empty"
    empty.mkdir()
    for given, message in (
        (tmp_path / "nosuch", "not a folder of runs"),
        (empty, "no trace files"),
    ):
        for args in ([str(given), str(cand)], [str(cand), str(given)]):
            junit, md = tmp_path / "r.xml", tmp_path / "r.md"
            junit.unlink(missing_ok=True)
            out = ["-o", f"junit={junit}", "-o", f"markdown={md}"]
            result = runner.invoke(app, ["compare-runs", *args, *out])
            assert result.exit_code == 2, result.output
            assert message in _junit_error(junit)
            assert str(given) in _junit_error(junit)
            assert not md.exists()
    run = tmp_path / "run.json"  # a file where a folder belongs, in no folder given
    run.write_bytes(next(cand.iterdir()).read_bytes())
    before = run.read_bytes()
    refused = runner.invoke(app, ["compare-runs", str(run), str(cand), "-o", f"junit={run}"])
    assert refused.exit_code == 2
    assert "is an input of this command" in refused.output
    assert run.read_bytes() == before
    first = runner.invoke(  # the baseline's error is the one reported, as before
        app, ["compare-runs", str(tmp_path / "nosuch"), str(empty), "-f", "junit", "-o", "e.xml"]
    )
    assert first.exit_code == 2
    assert "nosuch: not a folder of runs" in _junit_error(tmp_path / "e.xml")


def test_compare_runs_reports_a_bad_setting_in_junit(tmp_path: Path) -> None:
    base, cand = _folder(tmp_path, "base", 1, 3), _folder(tmp_path, "cand", 2, 3)
    out = tmp_path / "r.xml"
    result = runner.invoke(
        app,
        ["compare-runs", str(base), str(cand), "-f", "junit", "-o", str(out)],
        env={"AGENTDIFF_STATS_ALPHA": "2"},
    )
    assert result.exit_code == 2
    assert "AGENTDIFF_STATS_ALPHA" in _junit_error(out)


def test_compare_runs_names_runs_of_one_stem_by_file_name(tmp_path: Path) -> None:
    """`a.json` beside `a.json.gz` and `a.jsonl` are three runs, each named by its file."""
    base = _folder(tmp_path, "base", 1, 6)
    cand = tmp_path / "cand"
    cand.mkdir()
    t = make_runs(2, 5, Variant(), prefix="c")
    (cand / "a.json").write_text(t[0].model_dump_json())
    (cand / "a.json.gz").write_bytes(gzip.compress(t[1].model_dump_json().encode()))
    (cand / "a.jsonl").write_text(f"{t[2].model_dump_json()}\n{t[3].model_dump_json()}\n")
    (cand / "b.json").write_text(t[4].model_dump_json())
    result = runner.invoke(app, ["compare-runs", str(base), str(cand), "-f", "json"])
    assert result.exit_code in (0, 1), result.output
    (scenario,) = json.loads(result.output)["scenarios"]
    names = [r["run_id"] for r in scenario["runs"] if r["side"] == "candidate"]
    assert names == ["a.json", "a.json.gz", "a.jsonl#c-2", "a.jsonl#c-3", "b"]


def test_routes_command_groups_by_folder_and_filters(tmp_path: Path) -> None:
    _folder(tmp_path / "runs", "refund", 1, 12)
    _folder(tmp_path / "runs", "other", 2, 4, Variant(p_plan_a=0.0))
    result = runner.invoke(app, ["routes", str(tmp_path / "runs"), "--scenario", "ref*"])
    assert result.exit_code == 0, result.output
    assert "refund · 12 runs" in result.output
    assert "other" not in result.output
    as_json = runner.invoke(
        app, ["routes", str(tmp_path / "runs"), "-f", "json", "--threshold", "0.05"]
    )
    data = json.loads(as_json.output)
    assert set(data["scenarios"]) == {"other", "refund"}
    assert data["threshold"] == 0.05


def test_routes_threshold_errors_name_a_flag_the_command_takes(tmp_path: Path) -> None:
    """A bad threshold's message names a flag `routes` takes, which sets the same threshold."""
    runs = _folder(tmp_path, "runs", 1, 4)
    bad = runner.invoke(app, ["routes", str(runs), "--threshold", "nan"])
    assert bad.exit_code == 2
    (flag,) = [w.rstrip(":") for w in bad.output.split() if w.startswith("--")]
    same = runner.invoke(app, ["routes", str(runs), flag, "0.05", "-f", "json"])
    assert same.exit_code == 0, same.output
    assert json.loads(same.output)["threshold"] == 0.05


@pytest.mark.parametrize("flag", ["--threshold", "--route-threshold"])
def test_routes_threshold_errors_name_the_flag_given(tmp_path: Path, flag: str) -> None:
    """An out-of-range threshold is reported under the name it was given by, never the other."""
    runs = _folder(tmp_path, "runs", 1, 4)
    bad = runner.invoke(app, ["routes", str(runs), flag, "1.5"])
    assert bad.exit_code == 2
    assert f"flag {flag}: route_threshold must be a number from 0 to 1, got '1.5'" in bad.output
    (named,) = [w.rstrip(":") for w in bad.output.split() if w.startswith("--")]
    assert named == flag


def test_routes_threshold_from_env_or_file_names_where_it_was_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = _folder(tmp_path, "runs", 1, 4)
    monkeypatch.setenv("AGENTDIFF_STATS_ROUTE_THRESHOLD", "1.5")
    from_env = runner.invoke(app, ["routes", str(runs)])
    assert from_env.exit_code == 2
    allowed = "route_threshold must be a number from 0 to 1, got"
    assert f"env AGENTDIFF_STATS_ROUTE_THRESHOLD: {allowed} '1.5'" in from_env.output
    monkeypatch.delenv("AGENTDIFF_STATS_ROUTE_THRESHOLD")
    (tmp_path / "agentdiff.toml").write_text("[stats]\nroute_threshold = 1.5\n")
    from_file = runner.invoke(app, ["routes", str(runs)])
    assert from_file.exit_code == 2
    assert f"agentdiff.toml [stats]: {allowed} 1.5" in from_file.output
    assert "--" not in from_file.output


@pytest.mark.parametrize("value", ["off", "nan", "abc", "-0.1"])
def test_routes_threshold_errors_say_what_is_allowed_and_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """'off' is no route threshold: it reads as any bad value does, from every source (it said
    "must be a number or 'off'", or "Input should be a valid number (got None)" for 'off')."""
    runs = _folder(tmp_path, "runs", 1, 4)
    allowed = "route_threshold must be a number from 0 to 1, got"
    for flag in ("--threshold", "--route-threshold"):
        bad = runner.invoke(app, ["routes", str(runs), f"{flag}={value}"])
        assert bad.exit_code == 2
        assert f"flag {flag}: {allowed} {value!r}" in bad.output
    monkeypatch.setenv("AGENTDIFF_STATS_ROUTE_THRESHOLD", value)
    from_env = runner.invoke(app, ["routes", str(runs)])
    assert f"env AGENTDIFF_STATS_ROUTE_THRESHOLD: {allowed} {value!r}" in from_env.output
    monkeypatch.delenv("AGENTDIFF_STATS_ROUTE_THRESHOLD")
    (tmp_path / "agentdiff.toml").write_text(f"[stats]\nroute_threshold = {value!r}\n")
    from_file = runner.invoke(app, ["routes", str(runs)])
    assert f"agentdiff.toml [stats]: {allowed} {value!r}" in from_file.output
    (tmp_path / "agentdiff.toml").unlink()
    with pytest.raises(ConfigError, match=f"^m.toml \\[stats\\]: {allowed} {value!r}$"):
        load_stats(manifest={"route_threshold": value}, manifest_source="m.toml [stats]", env={})


@pytest.mark.parametrize(
    ("flag", "value", "allowed"),
    [
        ("--alpha", "off", "alpha must be a number above 0 and below 1"),
        ("--fdr", "1", "fdr must be a number above 0 and below 1"),
        ("--min-cost-effect", "off", "min_cost_effect must be a number of 0 or more"),
        ("--seed", "off", "seed must be a whole number from 0 to 2**63-1"),  # not 19 digits
        ("--permutations", "5", "permutations must be a whole number from 99 to 100,000"),
        ("--bootstrap", "off", "bootstrap must be a whole number from 100 to 100,000"),
    ],
)
def test_stats_numbers_that_cannot_be_off_say_what_is_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: str, value: str, allowed: str
) -> None:
    base, cand = _folder(tmp_path, "base", 1, 4), _folder(tmp_path, "cand", 2, 4)
    bad = runner.invoke(app, ["compare-runs", str(base), str(cand), flag, value])
    assert bad.exit_code == 2
    assert f"flag {flag}: {allowed}, got {value!r}" in bad.output
    env = "AGENTDIFF_STATS_" + flag[2:].replace("-", "_").upper()
    monkeypatch.setenv(env, value)
    from_env = runner.invoke(app, ["compare-runs", str(base), str(cand)])
    assert from_env.exit_code == 2
    assert f"env {env}: {allowed}, got {value!r}" in from_env.output
    assert f"{flag} N " in runner.invoke(app, ["compare-runs", "--help"]).output


def test_routes_threshold_is_given_once(tmp_path: Path) -> None:
    runs = _folder(tmp_path, "runs", 1, 4)
    both = runner.invoke(
        app, ["routes", str(runs), "--threshold", "0.1", "--route-threshold", "0.2"]
    )
    assert both.exit_code == 2
    assert "--threshold" in both.output and "--route-threshold" in both.output


def test_routes_by_trace_field(tmp_path: Path) -> None:
    folder = tmp_path / "flat"
    folder.mkdir()
    for k, trace in enumerate(make_runs(5, 6)):
        trace.metadata = {"scenario": "even" if k % 2 == 0 else "odd"}
        (folder / f"{k}.json").write_text(trace.model_dump_json())
    result = runner.invoke(
        app, ["routes", str(folder), "--scenario-key", "metadata.scenario", "-f", "json"]
    )
    assert result.exit_code == 0, result.output
    assert set(json.loads(result.output)["scenarios"]) == {"even", "odd"}
    missing = runner.invoke(app, ["routes", str(folder), "--scenario-key", "metadata.nope"])
    assert missing.exit_code == 2


def test_stats_settings_precedence(tmp_path: Path) -> None:
    (tmp_path / "agentdiff.toml").write_text(
        "[stats]\nmin_cost_effect = 30\nalpha = 0.01\nloops = 'rate'\nseed = 4\n"
    )
    resolved = load_stats(
        {"seed": "9"},
        env={"AGENTDIFF_STATS_ALPHA": "0.02"},
        start=tmp_path,
        manifest={"min_cost_effect": 40, "fdr": 0.1},
    )
    o = resolved.options
    assert o.seed == 9  # flag
    assert o.alpha == 0.02  # env beats file
    assert o.min_cost_effect == 40  # manifest beats file
    assert o.fdr == 0.1  # manifest
    assert o.loops == "rate"  # file
    assert o.min_token_effect == StatsOptions().min_token_effect  # default
    assert resolved.sources["alpha"] == "env AGENTDIFF_STATS_ALPHA"


def test_stats_settings_errors_name_the_key(tmp_path: Path) -> None:
    (tmp_path / "agentdiff.toml").write_text("[stats]\nloops = 'sometimes'\n")
    with pytest.raises(ConfigError, match="loops"):
        load_stats(start=tmp_path, env={})
    with pytest.raises(ConfigError, match="min_cost_effect"):
        load_stats({"min_cost_effet": 3}, start=tmp_path.parent, env={})


def test_compare_flags_do_not_include_stats_settings() -> None:
    result = runner.invoke(app, ["compare", "--help"])
    assert "--min-cost-effect" not in result.output
    help_text = runner.invoke(app, ["compare-runs", "--help"]).output
    assert "--min-cost-effect" in help_text
    assert "--inconclusive" in help_text


def test_compare_points_folders_to_compare_runs(tmp_path: Path) -> None:
    base, cand = _folder(tmp_path, "base", 1, 2), _folder(tmp_path, "cand", 2, 2)
    result = runner.invoke(app, ["compare", str(base), str(cand)])
    assert result.exit_code == 2
    assert "compare-runs" in result.output  # the loader's message for a folder


def test_compare_runs_writes_several_formats_from_one_run(tmp_path: Path) -> None:
    base = _folder(tmp_path, "base", 1, 10)
    cand = _folder(tmp_path, "cand", 2, 10, Variant(cost_factor=1.5))
    out = {fmt: tmp_path / f"report.{fmt}" for fmt in ("json", "markdown", "junit", "html")}
    args = [arg for fmt, path in out.items() for arg in ("-o", f"{fmt}={path}")]
    result = runner.invoke(app, ["compare-runs", str(base), str(cand), *args])
    assert result.exit_code == 1, result.output
    # every output is a file: stdout says the verdict and where the reports went
    assert result.stdout.startswith("0 passed · 1 regressed")
    assert str(out["json"]) in result.stdout
    data = json.loads(out["json"].read_text())
    assert data["scenarios"][0]["verdict"] == "regressed"
    assert "regressed" in out["markdown"].read_text()
    assert out["junit"].read_text().startswith("<?xml")
    assert out["html"].read_text().lstrip().lower().startswith("<!doctype html>")
    # and the plain FILE form takes --format; a file given twice is refused before any work
    plain = tmp_path / "plain.md"
    result = runner.invoke(
        app, ["compare-runs", str(base), str(cand), "-f", "markdown", "-o", str(plain)]
    )
    assert result.exit_code == 1 and plain.read_text() == out["markdown"].read_text()
    twice = runner.invoke(
        app, ["compare-runs", str(base), str(cand), "-o", f"json={plain}", "-o", str(plain)]
    )
    assert twice.exit_code == 2 and "given as an output twice" in twice.output


def test_routes_writes_several_formats_and_never_over_an_input(tmp_path: Path) -> None:
    runs = _folder(tmp_path, "runs", 1, 6)
    js, md = tmp_path / "routes.json", tmp_path / "routes.md"
    result = runner.invoke(app, ["routes", str(runs), "-o", f"json={js}", "-o", f"markdown={md}"])
    assert result.exit_code == 0, result.output
    assert json.loads(js.read_text())["threshold"] == 0.2
    assert md.read_text().strip()
    one_run = next(runs.iterdir())
    before = one_run.read_bytes()
    clash = runner.invoke(app, ["routes", str(one_run), "-o", f"json={one_run}"])
    assert clash.exit_code == 2
    assert one_run.read_bytes() == before


def _routes(*args: str) -> dict[str, dict[str, object]]:
    """The scenarios of `agentdiff routes ARGS -f json`, every distinct route its own cluster."""
    result = runner.invoke(app, ["routes", *args, "-f", "json", "--threshold", "0"])
    assert result.exit_code == 0, result.output
    scenarios: dict[str, dict[str, object]] = json.loads(result.output)["scenarios"]
    return scenarios


def _medoids(section: dict[str, object]) -> set[str]:
    clusters = section["clusters"]
    assert isinstance(clusters, list)
    return {c["medoid_run"] for c in clusters}


def test_routes_files_given_directly_group_by_their_folder(tmp_path: Path) -> None:
    """`routes traces/*.json` is one set of runs: the folder they sit in, not one per file."""
    loop = _folder(tmp_path, "loop", 1, 3)
    files = sorted(str(p) for p in loop.iterdir())
    scenarios = _routes(*files)
    assert list(scenarios) == ["loop"]
    assert scenarios["loop"]["runs"] == 3
    # a file in the current directory: the folder it resolves to (the cwd is tmp_path)
    (tmp_path / "here.json").write_text(make_runs(3, 1)[0].model_dump_json())
    assert {k: s["runs"] for k, s in _routes("here.json").items()} == {tmp_path.name: 1}
    # a folder given as `.` is named the same way (its files sit directly in it)
    assert {k: s["runs"] for k, s in _routes(".").items()} == {tmp_path.name: 1, "loop": 3}


def test_routes_same_named_folders_stay_apart_named_by_path(tmp_path: Path) -> None:
    for day, seed in (("day1", 1), ("day2", 2)):
        folder = tmp_path / day / "checkout"
        folder.mkdir(parents=True)
        for k, trace in enumerate(make_runs(seed, 2)):
            (folder / f"run{k}.json").write_text(trace.model_dump_json())
    _folder(tmp_path / "day1", "refund", 3, 2)
    scenarios = _routes("day1/checkout", "day2/checkout", "day1/refund")
    assert {k: s["runs"] for k, s in scenarios.items()} == {
        "day1/checkout": 2,
        "day2/checkout": 2,
        "refund": 2,  # no clash: its plain name
    }
    # folders found under a folder given clash the same way with a folder given directly
    nested = _routes("day1", "day2/checkout")
    assert {k: s["runs"] for k, s in nested.items()} == {
        "day1/checkout": 2,
        "day2/checkout": 2,
        "refund": 2,
    }


def test_routes_reads_a_file_reached_twice_once(tmp_path: Path) -> None:
    runs = _folder(tmp_path, "runs", 1, 4)
    one = min(runs.iterdir())
    again = [str(runs), str(one), f"./{runs.name}", str(runs / ".." / runs.name / one.name)]
    assert {k: s["runs"] for k, s in _routes(*again).items()} == {"runs": 4}


def test_routes_by_trace_field_names_runs_of_the_same_stem_by_path(tmp_path: Path) -> None:
    """Runs of one scenario from different files of the same name are told apart by path."""
    for day, variant in (("day1", Variant(p_plan_a=1.0)), ("day2", Variant(p_plan_a=0.0))):
        (tmp_path / day).mkdir()
        (trace,) = make_runs(1, 1, variant)
        trace.metadata = {"scenario": "checkout"}
        (tmp_path / day / "run1.json").write_text(trace.model_dump_json())
    (tmp_path / "day2" / "solo.json").write_text(
        make_runs(1, 1, Variant(loop_share=1.0))[0]
        .model_copy(update={"metadata": {"scenario": "checkout"}})
        .model_dump_json()
    )
    scenarios = _routes("day1", "day2", "--scenario-key", "metadata.scenario")
    assert list(scenarios) == ["checkout"]
    assert scenarios["checkout"]["runs"] == 3
    assert _medoids(scenarios["checkout"]) == {"day1/run1.json", "day2/run1.json", "solo"}


def test_group_runs_names_files_of_one_stem_in_one_folder_apart(tmp_path: Path) -> None:
    """`run1.json` and `run1.json.gz` side by side are two runs named by file name (as
    compare-runs and suite name them), not both `run1`."""
    folder = tmp_path / "runs"
    folder.mkdir()
    first, second = make_runs(1, 2)
    (folder / "run1.json").write_text(first.model_dump_json())
    (folder / "run1.json.gz").write_bytes(gzip.compress(second.model_dump_json().encode()))
    (folder / "run2.json").write_text(second.model_dump_json())
    groups = group_runs([Path("runs")])
    assert [run_id for run_id, _ in groups["runs"]] == ["run1.json", "run1.json.gz", "run2"]


def test_group_runs_never_names_a_scenario_by_its_absolute_path(tmp_path: Path) -> None:
    """`x/s1`, `y/s1` and `z/x/s1`: `s1` clashes, so `x/s1` and `y/s1` go by their paths as
    given; `x/s1` then clashes with the subfolder `x/s1` of `z`, which goes by `z/x/s1`. No
    resolved absolute path of this machine ever names a scenario: reports get posted publicly."""
    (run,) = make_runs(1, 1)
    for folder in ("x/s1", "y/s1", "z/x/s1"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "run1.json").write_text(run.model_dump_json())
    groups = group_runs([Path("x"), Path("y"), Path("z")])
    assert sorted(groups) == ["x/s1", "y/s1", "z/x/s1"]
    assert not any(str(tmp_path) in name or name.startswith("/") for name in groups)
    scenarios = _routes("x", "y", "z")
    assert sorted(scenarios) == ["x/s1", "y/s1", "z/x/s1"]


def test_group_runs_numbers_folders_that_no_path_as_given_tells_apart() -> None:
    """Two real folders with one path as given (links, `..`) are numbered, not resolved."""
    folders = {
        Path("/real/one"): ("s1", Path("a/s1")),
        Path("/real/two"): ("s1", Path("a/s1")),
        Path("/real/three"): ("t", Path("t")),
    }
    assert _distinct(folders) == {
        Path("/real/one"): "a/s1",
        Path("/real/two"): "a/s1 (2)",
        Path("/real/three"): "t",
    }


def test_group_runs_names_runs_of_different_folders_by_path_only_where_file_names_clash(
    tmp_path: Path,
) -> None:
    """Under --scenario-key: stem, else file name, else path as given, file by file."""
    (run,) = make_runs(1, 1)
    for name in ("a/r1.json", "b/r1.json", "b/r1.json.gz", "b/r2.json", "c/r3.json"):
        path = tmp_path / name
        path.parent.mkdir(exist_ok=True)
        data = run.model_dump_json().encode()
        path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    groups = group_runs([Path("a"), Path("b"), Path("c")], scenario_key="agent_name")
    (runs,) = groups.values()
    assert [run_id for run_id, _ in runs] == ["a/r1.json", "b/r1.json", "r1.json.gz", "r2", "r3"]
