"""`agentdiff suite` and `agentdiff results` end to end on the real-fixture suite."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentdiff.cli.app import app
from agentdiff.suite import results as results_module

runner = CliRunner()


pytestmark = pytest.mark.usefixtures("no_settings_env")


def _suite(*args: str):
    return runner.invoke(app, ["suite", *args])


def test_exit_1_and_the_summary_line_first(fixture_suite):
    base, cand = fixture_suite
    result = _suite(str(base), str(cand), "--layout", "files")
    assert result.exit_code == 1, result.output
    first = result.stdout.splitlines()[0]
    assert first == "14 passed · 21 regressed · 2 errors · 1 added"
    assert "✗ langfuse/loop" in result.stdout
    assert (
        result.stdout.index("Regressed")
        < result.stdout.index("Errors")
        < result.stdout.index("Only in the candidate")
    )


def test_exit_0_when_nothing_regressed_and_2_for_an_error_row(fixture_suite):
    base, cand = fixture_suite
    ok = _suite(
        str(base), str(cand), "--layout", "files", "--only", "*/identical", "--only", "*/reworded"
    )
    assert ok.exit_code == 0, ok.output
    assert ok.stdout.startswith("14 passed\n")
    broken = _suite(
        str(base), str(cand), "--layout", "files", "--only", "extra/*", "--allow-missing"
    )
    assert broken.exit_code == 2
    assert "invalid JSON" in broken.stdout


def test_flags_reach_the_gate_and_are_reported_with_their_source(fixture_suite, monkeypatch):
    base, cand = fixture_suite
    monkeypatch.setenv("AGENTDIFF_MAX_COST_INCREASE", "off")
    result = _suite(
        str(base),
        str(cand),
        "--layout",
        "files",
        "--only",
        "*/detour",
        "--max-token-increase",
        "off",
        "--format",
        "json",
    )
    report = orjson.loads(result.stdout)
    sources = {t["setting"]: t["source"] for t in report["thresholds"]}
    assert sources["max_token_increase"] == "flag --max-token-increase"  # noqa: S105
    assert sources["max_cost_increase"] == "env AGENTDIFF_MAX_COST_INCREASE"
    assert report["counts"]["passed"] == 7 and result.exit_code == 0


def test_toml_manifest_gate_and_overrides(fixture_suite, tmp_path):
    base, cand = fixture_suite
    manifest = tmp_path / "agentdiff-suite.toml"
    manifest.write_text(
        f'[suite]\nname = "nightly"\nbaseline = "{base}"\ncandidate = "{cand}"\nlayout = "files"\n'
        '[gate]\nmax_token_increase = "off"\nmax_cost_increase = "off"\n'
        '[[scenario]]\nmatch = "crewai/*"\ngate = { allow_loops = true }\n'
    )
    result = _suite("--manifest", str(manifest), "--only", "*/loop", "-f", "json")
    report = orjson.loads(result.stdout)
    verdicts = {row["scenario"]: row["verdict"] for row in report["scenarios"]}
    assert verdicts["crewai/loop"] == "pass" and verdicts["langfuse/loop"] == "regressed"
    assert report["name"] == "nightly"
    sources = {t["setting"]: t["source"] for t in report["thresholds"]}
    assert sources["max_token_increase"] == f"{manifest} [gate]"
    # a flag beats the manifest
    flagged = _suite(
        "--manifest",
        str(manifest),
        "--only",
        "crewai/detour",
        "--max-token-increase",
        "10",
        "-f",
        "json",
    )
    assert flagged.exit_code == 1


def test_junit_one_case_per_scenario(fixture_suite, tmp_path):
    base, cand = fixture_suite
    out = tmp_path / "suite.xml"
    result = _suite(str(base), str(cand), "--layout", "files", "-f", "junit", "-o", str(out))
    assert result.exit_code == 1
    root = ET.fromstring(out.read_text())  # noqa: S314 - our own output
    suite = root.find("testsuite")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert len(cases) == 38
    assert cases["crewai/loop"].find("failure") is not None
    assert "loop" in cases["crewai/loop"].find("failure").get("message")
    assert cases["extra/broken"].find("error") is not None
    assert cases["extra/added"].find("skipped") is not None
    assert list(cases["crewai/identical"]) == []
    assert (suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("21", "2", "1")


def test_markdown_and_html_reports(fixture_suite, tmp_path):
    base, cand = fixture_suite
    md = _suite(str(base), str(cand), "--layout", "files", "-f", "markdown", "--only", "*/loop")
    assert md.stdout.startswith("## ❌ AgentDiff suite: FAILED\n\n**0 passed · 7 regressed**")
    assert "| langfuse/loop | regressed | 0.27 | 1→1 | cost, loop, tokens |" in md.stdout
    assert "<details>" in md.stdout
    page = tmp_path / "suite.html"
    html = _suite(
        str(base),
        str(cand),
        "--layout",
        "files",
        "-f",
        "html",
        "-o",
        str(page),
        "--only",
        "crewai/*",
    )
    assert html.exit_code == 1
    text = page.read_text()
    assert text.count("<section id=") == 3  # the three regressed crewai scenarios
    assert text.count("<iframe sandbox") == 3  # each with the pair renderer's own report
    assert 'href="#s1"' in text and 'srcdoc="&lt;!DOCTYPE html&gt;' in text


def test_results_folder_rerender_and_query(fixture_suite, tmp_path):
    base, cand = fixture_suite
    out = tmp_path / "results"
    first = _suite(str(base), str(cand), "--layout", "files", "--results", str(out), "-f", "json")
    assert first.exit_code == 1
    assert (out / "suite.json").read_text() == first.stdout
    again = runner.invoke(app, ["results", str(out)])
    assert again.exit_code == 0
    assert again.stdout.splitlines()[0] == "14 passed · 21 regressed · 2 errors · 1 added"
    query = runner.invoke(
        app,
        [
            "results",
            str(out),
            "--query",
            "SELECT count(*) AS loops FROM pairs WHERE list_contains(violated_rules, 'loop')",
            "-f",
            "json",
        ],
    )
    assert orjson.loads(query.stdout) == [{"loops": 7}]
    bad = runner.invoke(app, ["results", str(out), "--query", "SELECT nope FROM pairs"])
    assert bad.exit_code == 2 and "query failed" in bad.output
    missing = runner.invoke(app, ["results", str(tmp_path / "none")])
    assert missing.exit_code == 2 and "cannot read saved results" in missing.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["only-one"], "give BASELINE and CANDIDATE"),
        (["a", "b", "--jobs", "0"], "--jobs must be"),
        (["a", "b"], "does not exist"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args, message):
    result = _suite(*args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_progress_bar_counts_scenarios_on_request():
    from agentdiff.cli.suite import _progress

    with _progress(3, True) as update:
        assert update is not None
        for done in (1, 2, 3):
            update(done, 3)
    with _progress(3, None) as update:
        assert update is None  # not a terminal (pytest captures stderr)


def test_several_formats_from_one_suite_run(fixture_suite, tmp_path):
    base, cand = fixture_suite
    out = {fmt: tmp_path / f"suite.{fmt}" for fmt in ("json", "markdown", "junit", "html")}
    args = [arg for fmt, path in out.items() for arg in ("-o", f"{fmt}={path}")]
    result = _suite(str(base), str(cand), "--layout", "files", "--only", "*/loop", *args)
    assert result.exit_code == 1, result.output
    # every output is a file: stdout is the summary line and where the reports went
    assert result.stdout.startswith("0 passed · 7 regressed  (report: ")
    report = orjson.loads(out["json"].read_bytes())
    assert report["counts"]["regressed"] == 7
    assert "langfuse/loop" in out["markdown"].read_text()
    junit = ET.fromstring(out["junit"].read_text())  # noqa: S314 - our own output
    assert len(list(junit.iter("testcase"))) == 7
    html = out["html"].read_text()
    assert html.count("<iframe sandbox") == 7  # an html output keeps the pair reports
    # the FILE form takes --format; -o onto the manifest, or a file twice, is refused up front
    plain = tmp_path / "plain.md"
    result = _suite(
        str(base),
        str(cand),
        "--layout",
        "files",
        "--only",
        "*/loop",
        "-f",
        "markdown",
        "-o",
        str(plain),
    )
    assert result.exit_code == 1 and plain.read_text() == out["markdown"].read_text()
    twice = _suite(str(base), str(cand), "-o", f"json={plain}", "-o", str(plain))
    assert twice.exit_code == 2 and "given as an output twice" in twice.output


def test_output_never_replaces_the_manifest(fixture_suite, tmp_path):
    base, cand = fixture_suite
    manifest = tmp_path / "agentdiff-suite.toml"
    text = f'[suite]\nbaseline = "{base}"\ncandidate = "{cand}"\nlayout = "files"\n'
    manifest.write_text(text)
    result = _suite("--manifest", str(manifest), "-o", f"json={manifest}")
    assert result.exit_code == 2
    assert manifest.read_text() == text


def _small_suite(tmp_path):
    """Two scenarios copied from the real fixtures into folders of this test's own."""
    real = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "langfuse"
    base, cand = tmp_path / "base", tmp_path / "cand"
    for folder, side in ((base, "baseline"), (cand, "candidate")):
        folder.mkdir()
        for case in ("loop", "identical"):
            (folder / f"{case}.json").write_bytes((real / case / f"{side}.json").read_bytes())
    return base, cand


def test_an_output_never_replaces_a_run_of_the_suite(tmp_path):
    base, cand = _small_suite(tmp_path)
    before = {p: p.read_bytes() for p in (*base.iterdir(), *cand.iterdir())}
    for output in (f"json={base / 'loop.json'}", str(cand / "identical.json")):
        result = _suite(str(base), str(cand), "-o", output)
        assert result.exit_code == 2, result.output
        assert "is an input of this command" in result.output
    assert {p: p.read_bytes() for p in before} == before


def test_a_results_folder_that_would_mix_with_the_runs_is_refused(tmp_path):
    base, cand = _small_suite(tmp_path)
    inside = _suite(str(base), str(cand), "--results", str(base / "results"))
    assert inside.exit_code == 2 and "inside the run folder" in inside.output
    assert not (base / "results").exists()
    again = _suite(str(base), str(cand), "--results", str(cand))
    assert again.exit_code == 2 and "inside the run folder" in again.output
    # with a manifest, a results folder that holds its runs could have them replaced
    rows = [
        {"scenario": case, "side": side, "path": str(folder / f"{case}.json")}
        for case in ("loop", "identical")
        for side, folder in (("baseline", base), ("candidate", cand))
    ]
    manifest = tmp_path / "suite.jsonl"
    manifest.write_bytes(b"\n".join(map(orjson.dumps, rows)))
    held = _suite("--manifest", str(manifest), "--results", str(tmp_path))
    assert held.exit_code == 2 and "holds runs of this suite" in held.output
    fine = _suite("--manifest", str(manifest), "--results", str(tmp_path / "out"), "-f", "json")
    assert fine.exit_code == 1, fine.output
    assert (tmp_path / "out" / "suite.json").is_file()


@pytest.mark.parametrize("where", ["a-file", "a-file/below"])
def test_a_results_folder_that_cannot_be_made_exits_2_naming_it(tmp_path, where):
    base, cand = _small_suite(tmp_path)
    (tmp_path / "a-file").write_text("not a folder")
    result = _suite(str(base), str(cand), "--results", str(tmp_path / where))
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: {tmp_path / where}: cannot create the folder")
    assert "Traceback" not in result.output and "internal error" not in result.output


def test_the_header_counts_the_runs_loaded_and_only_the_scenarios_judged(tmp_path):
    """A file of two traces is two runs; `--only` leaves the other scenarios' runs out."""
    real = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "openinference"
    for side in ("baseline", "candidate"):
        folder = tmp_path / side
        folder.mkdir()
        both = b"".join(
            (real / case / f"{side}.otlp_jsonl.jsonl").read_bytes()
            for case in ("loop", "identical")
        )
        (folder / "multi.jsonl").write_bytes(both)
        (folder / "one.json").write_bytes((real / "detour" / f"{side}.otlp.json").read_bytes())
    base, cand = str(tmp_path / "baseline"), str(tmp_path / "candidate")
    report = orjson.loads(_suite(base, cand, "-f", "json").stdout)
    rows = report["scenarios"]
    assert [r["baseline_runs"] for r in rows] == [2, 1]
    assert report["baseline"]["runs"] == report["candidate"]["runs"] == 3
    assert report["baseline"]["scenarios"] == 2
    only = orjson.loads(_suite(base, cand, "--only", "one", "-f", "json").stdout)
    assert only["baseline"]["scenarios"] == only["candidate"]["scenarios"] == 1
    assert only["baseline"]["runs"] == only["candidate"]["runs"] == 1


def test_an_error_row_names_its_file_relative_to_the_root(tmp_path):
    base, cand = _small_suite(tmp_path)
    (base / "broken.json").write_text("{bad")
    (cand / "broken.json").write_bytes((cand / "loop.json").read_bytes())
    result = _suite(str(base), str(cand), "-f", "json")
    (row,) = [r for r in orjson.loads(result.stdout)["scenarios"] if r["errors"]]
    (error,) = row["errors"]
    assert error["source"] == "broken.json"
    assert error["message"].startswith("broken.json: invalid JSON")
    assert str(tmp_path) not in error["message"]  # the same row wherever the roots lie


def test_fail_fast_says_how_many_scenarios_it_left_unjudged(fixture_suite, tmp_path):
    base, cand = fixture_suite
    args = (str(base), str(cand), "--layout", "files", "--fail-fast", "--jobs", "1")
    result = _suite(*args)
    first = result.stdout.splitlines()[0]
    left = int(first.rsplit(" · ", 1)[1].split()[0])
    assert first.endswith("not judged (stopped at a failure: --fail-fast)")
    judged = sum(int(part.split()[0]) for part in first.split(" · ")[:-1])
    assert judged + left == 38
    markdown = _suite(*args, "-f", "markdown").stdout
    assert "not judged (stopped at a failure: --fail-fast)" in markdown


def test_results_never_writes_over_what_it_reads(tmp_path):
    base, cand = _small_suite(tmp_path)
    out = tmp_path / "out"
    assert _suite(str(base), str(cand), "--results", str(out), "-f", "json").exit_code == 1
    saved = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    for target, extra in (
        ("suite.json", ["-f", "markdown"]),
        ("steps.jsonl", ["-q", "SELECT count(*) AS n FROM steps"]),
        ("pairs/index.json", ["-f", "html"]),
    ):
        result = runner.invoke(app, ["results", str(out), *extra, "-o", str(out / target)])
        assert result.exit_code == 2, result.output
        assert "is an input of this command" in result.output
    assert {p: p.read_bytes() for p in saved} == saved
    # a page written beside them is not one of them: it may be written again
    for _ in range(2):
        page = runner.invoke(app, ["results", str(out), "-f", "html", "-o", str(out / "s.html")])
        assert page.exit_code == 0, page.output


def test_a_results_folder_inside_a_folder_a_toml_manifest_names_is_refused(tmp_path):
    """The folders a TOML manifest names are scanned for runs, as BASELINE and CANDIDATE are."""
    base, cand = _small_suite(tmp_path)
    manifest = tmp_path / "agentdiff-suite.toml"
    manifest.write_text(f'[suite]\nbaseline = "{base}"\ncandidate = "{cand}"\n')
    inside = _suite("--manifest", str(manifest), "--results", str(base / "results"))
    assert inside.exit_code == 2 and "inside the run folder" in inside.output
    assert not (base / "results").exists()


@pytest.mark.parametrize("link", ["runs.jsonl", ".parts/runs-000000.jsonl"])
def test_a_symlink_in_the_results_folder_is_replaced_never_written_through(tmp_path, link):
    base, cand = _small_suite(tmp_path)
    before = {p: p.read_bytes() for p in (*base.iterdir(), *cand.iterdir())}
    out = tmp_path / "out"
    (out / link).parent.mkdir(parents=True)
    (out / link).symlink_to(cand / "loop.json")
    result = _suite(str(base), str(cand), "--layout", "files", "--results", str(out))
    assert result.exit_code == 1, result.output
    assert {p: p.read_bytes() for p in before} == before
    runs = out / "runs.jsonl"
    assert not runs.is_symlink() and len(runs.read_text().splitlines()) == 4


@pytest.mark.parametrize("target", ["runs.parquet", "pairs.jsonl", "suite.json", "pairs", ".parts"])
@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_results_target_that_is_no_file_exits_2_before_anything_is_written(
    tmp_path, target, kind
):
    base, cand = _small_suite(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    if target in ("pairs", ".parts"):  # folders: a file, or a link to a folder, is refused
        if kind == "fifo":
            os.mkfifo(out / target)
        else:
            (out / target).symlink_to(tmp_path, target_is_directory=True)
    elif kind == "fifo":
        os.mkfifo(out / target)
    else:
        (out / target).mkdir()
    result = _suite(str(base), str(cand), "--layout", "files", "--results", str(out))
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: {out / target}: ")
    assert [p.name for p in out.iterdir()] == [target]


def test_a_run_without_parquet_leaves_no_parquet_of_an_earlier_run(tmp_path, monkeypatch):
    """Else `--query` (which prefers Parquet) would answer from the earlier run's tables."""
    base, cand = _small_suite(tmp_path)
    out = tmp_path / "out"
    _suite(str(base), str(cand), "--layout", "files", "--results", str(out))
    assert (out / "pairs.parquet").is_file()
    monkeypatch.setitem(results_module._WRITERS, "duckdb", lambda _folder: False)
    monkeypatch.setitem(results_module._WRITERS, "pyarrow", lambda _folder: False)
    again = _suite(
        str(base), str(cand), "--layout", "files", "--results", str(out), "--only", "loop"
    )
    assert again.exit_code == 1, again.output
    assert not list(out.glob("*.parquet"))
    query = runner.invoke(
        app, ["results", str(out), "-q", "SELECT count(*) AS n FROM pairs", "-f", "json"]
    )
    assert orjson.loads(query.stdout) == [{"n": 1}]


def test_saved_counts_that_contradict_the_rows_are_refused(fixture_suite, tmp_path):
    base, cand = fixture_suite
    out = tmp_path / "results"
    assert _suite(str(base), str(cand), "--layout", "files", "--results", str(out)).exit_code == 1
    saved = orjson.loads((out / "suite.json").read_bytes())
    saved["counts"].update(passed=38, regressed=0, errors=0, added=0)
    (out / "suite.json").write_bytes(orjson.dumps(saved))
    for fmt in ("terminal", "markdown", "html"):
        result = runner.invoke(app, ["results", str(out), "-f", fmt])
        assert result.exit_code == 2, result.output
        assert result.output.startswith(f"error: {out / 'suite.json'}: not a suite report")
        assert "passed 38 (rows: 14)" in result.output and "PASSED" not in result.output


def test_pair_page_links_lead_from_the_html_written_into_the_results_folder(
    fixture_suite, tmp_path, monkeypatch
):
    base, cand = fixture_suite
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "elsewhere" / "suite.html"
    args = ["--layout", "files", "--results", "out", "-o", f"html={page}"]
    assert _suite(str(base), str(cand), *args).exit_code == 1
    again = tmp_path / "other" / "deeper" / "again.html"
    assert runner.invoke(app, ["results", "out", "-f", "html", "-o", str(again)]).exit_code == 0
    stdout = runner.invoke(app, ["results", "out", "-f", "html"]).stdout
    for html, where in ((page, page.parent), (again, again.parent)):
        links = re.findall(r'href="([^"#]+)"', html.read_text())
        assert links and all((where / link).is_file() for link in links), links
    assert all(Path(link).is_file() for link in re.findall(r'href="([^"#]+)"', stdout))


def test_a_single_run_file_is_never_judged_against_a_run_folder_of_its_name(tmp_path):
    """Baseline `a/r1.json` (a detour run) beside `a/r1/` (loop runs); candidate `a/r1.json`
    (detour) alone: both files are scenario `a/r1.json`, judged against each other (the
    candidate's file was paired against the loop runs, and the baseline's left an error row)."""
    examples = Path(__file__).resolve().parents[2] / "examples"
    copies = {
        "base/a/r1.json": "detour/baseline.json",
        "base/a/r1/x.json": "loop/baseline.json",
        "base/a/r1/y.json": "loop/candidate.json",
        "cand/a/r1.json": "detour/candidate.json",
        "cand/a/other/z.json": "loop/candidate.json",
    }
    for target, source in copies.items():
        (tmp_path / target).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / target).write_bytes((examples / source).read_bytes())
    result = _suite(str(tmp_path / "base"), str(tmp_path / "cand"), "-f", "json")
    rows = {row["scenario"]: row for row in orjson.loads(result.stdout)["scenarios"]}
    assert sorted(rows) == ["a/other", "a/r1", "a/r1.json"]
    assert (rows["a/r1.json"]["baseline_runs"], rows["a/r1.json"]["candidate_runs"]) == (1, 1)
    assert rows["a/r1.json"]["verdict"] == "regressed"  # the detour: a search step inserted
    assert (rows["a/r1"]["baseline_runs"], rows["a/r1"]["candidate_runs"]) == (2, 0)
    assert rows["a/r1"]["verdict"] == "error" and rows["a/other"]["verdict"] == "added"
