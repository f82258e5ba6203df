"""`agentdiff results --query` reads the results folder's tables and nothing else.

Every attack on the SQL engine — writing files (`COPY … TO`, inside or outside the folder),
reading other files, the network, extensions, other databases, settings, several statements —
is exit 2 with one line, and nothing is written; ordinary SELECTs (the documented examples)
still work.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from .helpers import SPEC, cli, refused, spec, write

pytest.importorskip("duckdb")

DOCUMENTED = (
    "SELECT scenario, divergence, violated_rules FROM pairs WHERE NOT gate_passed "
    "ORDER BY divergence DESC LIMIT 5"
)
"""The example in docs/suites.md."""


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("query")
    for side in ("base", "cand"):
        (root / side).mkdir()
        for name in ("s1.json", "s2.json"):
            shutil.copy(SPEC, root / side / name)
    out = root / "out"
    assert cli("suite", root / "base", root / "cand", "--results", out).code == 0
    return out


def _files(folder: Path) -> list[Path]:
    return sorted(folder.parent.rglob("*"))


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        ("COPY (SELECT 1 AS x) TO '{outside}/pwned.csv'", ["not COPY"]),
        ("COPY (SELECT 1 AS x) TO '{folder}/pwned.csv'", ["not COPY"]),
        ("COPY pairs TO '{folder}/pairs.jsonl'", ["not COPY"]),
        ("EXPORT DATABASE '{outside}/db'", ["not EXPORT"]),
        ("SELECT * FROM read_text('/etc/passwd')", ["Permission Error", "/etc/passwd"]),
        ("SELECT * FROM read_csv('/etc/passwd')", ["Permission Error", "/etc/passwd"]),
        ("SELECT * FROM read_text('{folder}/../base/s1.json')", ["Permission Error"]),
        ("SELECT * FROM glob('/etc/*')", ["Permission Error"]),
        ("SELECT * FROM read_parquet('https://example.com/x.parquet')", ["Permission Error"]),
        ("SELECT * FROM query('COPY (SELECT 1) TO ''{outside}/q.csv''')", ["query failed"]),
        ("INSTALL httpfs", ["not INSTALL or LOAD"]),
        ("LOAD httpfs", ["not INSTALL or LOAD"]),
        ("ATTACH '{outside}/other.db' AS other", ["not ATTACH"]),
        ("SET enable_external_access = true", ["not SET"]),
        ("PRAGMA version", ["not PRAGMA"]),
        ("CALL pragma_version()", ["not CALL"]),
        ("CREATE TABLE t AS SELECT 1", ["not CREATE"]),
        ("SELECT 1; COPY (SELECT 2) TO '{outside}/two.csv'", ["one SQL statement, got 2"]),
        ("", ["one SQL statement, got 0"]),
        ("SELEC 1", ["query failed", "syntax error"]),
    ],
)
def test_an_attack_is_one_line_and_writes_nothing(results, sql, words):
    before = _files(results)
    query = sql.format(folder=results, outside=results.parent)
    refused(cli("results", results, "--query", query), str(results), *words)
    assert _files(results) == before


@pytest.mark.parametrize(
    ("sql", "rows"),
    [
        ("SELECT count(*) AS n FROM pairs", [{"n": 2}]),
        ("SELECT count(*) AS n FROM steps WHERE op = 'match'", [{"n": 4}]),
        (DOCUMENTED, []),
        ("WITH p AS (SELECT scenario FROM pairs) SELECT count(*) AS n FROM p", [{"n": 2}]),
        ("FROM runs SELECT count(*) AS n", [{"n": 4}]),
    ],
)
def test_ordinary_selects_still_work(results, sql, rows):
    outcome = cli("results", results, "--query", sql, "-f", "json")
    assert outcome.code == 0, outcome.stderr
    assert orjson.loads(outcome.stdout) == rows


def test_the_folder_own_files_may_be_read(results):
    sql = f"SELECT count(*) AS n FROM read_text('{results}/suite.json')"
    outcome = cli("results", results, "--query", sql, "-f", "json")
    assert orjson.loads(outcome.stdout) == [{"n": 1}]


TOKEN = "ghp_FakeGitHubToken0123456789abcdefghijKL"  # noqa: S105 - a fake, shaped like one
NAMES = "SELECT DISTINCT candidate_name AS name FROM steps ORDER BY 1 NULLS LAST"
"""Step names, one of them holding a token, and a NULL (a deleted step has no candidate)."""


@pytest.fixture(scope="module")
def leaky_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("leaky")
    for side in ("base", "cand"):
        document = spec()
        if side == "cand":
            document["steps"][1]["name"] = f"call {TOKEN}"
        (root / side).mkdir()
        write(root / side / "s1.json", document)
    out = root / "out"
    assert cli("suite", root / "base", root / "cand", "--results", out).code in (0, 1)
    return out


@pytest.mark.parametrize("fmt", ["terminal", "markdown"])
def test_query_rows_are_redacted_where_people_read_them(leaky_results, fmt):
    shown = cli("results", leaky_results, "--query", NAMES, "-f", fmt)
    assert shown.code == 0, shown.stderr
    assert TOKEN[-12:] not in shown.stdout
    assert "redacted:" in shown.stdout
    plain = cli("results", leaky_results, "--query", NAMES, "-f", fmt, "--no-redact").stdout
    assert TOKEN[-12:] in plain  # markdown escapes the "_" before it


def test_query_json_keeps_data_unless_redact_is_asked_for(leaky_results):
    plain = cli("results", leaky_results, "--query", NAMES, "-f", "json")
    assert f"call {TOKEN}" in [row["name"] for row in orjson.loads(plain.stdout)]
    redacted = cli("results", leaky_results, "--query", NAMES, "-f", "json", "--redact")
    assert TOKEN[-12:] not in redacted.stdout
    assert None in [row["name"] for row in orjson.loads(redacted.stdout)]


def test_duckdb_temp_directory_is_not_readable(results, tmp_path, monkeypatch):
    """DuckDB allows its temp directory (`.tmp` under the current one) beside the folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".tmp").mkdir()
    (tmp_path / ".tmp" / "secret.txt").write_text("TOPSECRET-outside-results")
    for sql in ("SELECT content FROM read_text('.tmp/secret.txt')", "FROM glob('.tmp/*')"):
        outcome = cli("results", results, "--query", sql)
        refused(outcome, "Permission Error")
        assert "TOPSECRET" not in outcome.stdout + outcome.stderr


def test_a_truncated_parquet_table_is_exit_2_naming_it(results, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(results, copy)
    table = copy / "pairs.parquet"
    table.write_bytes(table.read_bytes()[:300])
    refused(cli("results", copy, "--query", "SELECT count(*) FROM pairs"), str(table))


def test_rows_past_max_rows_are_counted_and_left_out(results):
    outcome = cli("results", results, "--query", "SELECT * FROM range(25000)", "-f", "json")
    assert outcome.code == 0, outcome.stderr
    assert len(orjson.loads(outcome.stdout)) == 10_000
    assert "15,000 more rows left out (--max-rows 10,000)" in outcome.stderr
    few = cli("results", results, "-q", "FROM range(5)", "--max-rows", "3", "-f", "json")
    assert orjson.loads(few.stdout) == [{"range": 0}, {"range": 1}, {"range": 2}]
    assert "2 more rows left out" in few.stderr
    every = cli("results", results, "-q", "FROM range(5)", "--max-rows", "5", "-f", "json")
    assert len(orjson.loads(every.stdout)) == 5 and not every.stderr


@pytest.mark.parametrize("fmt", ["junit", "html"])
def test_query_refuses_a_format_it_cannot_print_rows_as(results, fmt):
    refused(cli("results", results, "--query", "SELECT 1", "-f", fmt), f"not {fmt}")


def test_query_needs_a_results_folder(results, tmp_path):
    for where in (tmp_path / "none", results / "suite.json"):
        refused(cli("results", where, "--query", "SELECT 1"), str(where), "not a folder")


def _wait_for_threads(pid: int, timeout: float = 60.0) -> None:
    """Until the process runs more than its main thread (a loaded host imports slowly)."""
    tasks = Path(f"/proc/{pid}/task")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if tasks.exists() and len(list(tasks.iterdir())) > 1:
            time.sleep(0.5)
            return
        time.sleep(0.05)


def test_ctrl_c_stops_a_long_query_with_exit_130(results):
    command = [sys.executable, "-m", "agentdiff", "results", str(results)]
    sql = "SELECT count(*) FROM range(1000000000000)"
    # a job started in the background (`cmd &`) inherits SIGINT ignored, and Python then leaves
    # it ignored: the child gets Ctrl-C's default, as in a terminal
    process = subprocess.Popen(
        [*command, "--query", sql],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )
    try:
        _wait_for_threads(process.pid)  # the query runs (in its worker thread, DuckDB's own)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
        process.communicate()
    assert process.returncode == 130, err
    assert b"internal error" not in err


def test_duckdb_runs_bounded(results):
    """No temp directory to spill to, at most 2 GB of memory and 4 threads, whatever the host."""
    sql = (
        "SELECT current_setting('temp_directory') AS temp, current_setting('threads') AS threads,"
        " current_setting('memory_limit') AS memory"
    )
    (row,) = orjson.loads(cli("results", results, "-q", sql, "-f", "json").stdout)
    number, unit = row["memory"].split()
    assert row["temp"] == "" and int(row["threads"]) <= 4
    assert unit in ("MiB", "GiB") and (unit == "MiB" or float(number) <= 2)
