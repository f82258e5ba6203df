"""A results folder: `suite.json`, `timings.json`, the tables as JSON Lines, and Parquet.

`finish_results` joins the table parts the tasks wrote, writes the report and, when DuckDB
(`agentdiff[results]`) or else pyarrow is installed and the folder is local, the same tables as
Parquet (zstd; `schema_version` and the table name in each file's key-value metadata; the same
columns and types from either writer). `load_results` reads `suite.json`
back for re-rendering; `query_results` runs SQL over the tables (DuckDB).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson
from pydantic import ValidationError

from agentdiff.errors import ConfigError, OutputPathError
from agentdiff.files import check_output_path
from agentdiff.limits import MAX_DEPTH, deepest_path, exceeds_depth, short_path
from agentdiff.reading import read_input
from agentdiff.redact import DEFAULT_REDACTOR, Redactor
from agentdiff.suite.columns import RESULTS_SCHEMA_VERSION, TABLES
from agentdiff.suite.load import fsspec_module
from agentdiff.suite.pages import (
    PAGE_LIMIT,
    PAGES_DIR,
    PAGES_INDEX,
    PAGES_REDACTION,
    page_files,
)
from agentdiff.suite.refs import is_url
from agentdiff.suite.report import Counts, SuiteReport
from agentdiff.suite.rows import Rows, ScenarioRow, row_json
from agentdiff.suite.sandbox import CONNECT_CONFIG, checked_select, confine, query_failed
from agentdiff.suite.tables import PARTS, join_parts, write_binary

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "MAX_QUERY_ROWS",
    "PARQUET_WRITERS",
    "QueryRows",
    "check_results_folder",
    "finish_results",
    "load_results",
    "query_results",
    "result_files",
    "write_parquet",
]

SUITE_FILE = "suite.json"
TIMINGS_FILE = "timings.json"
PARQUET_WRITERS = ("duckdb", "pyarrow")
"""The Parquet writers in the order they are tried (the first one installed writes)."""


def _write(folder: str, name: str, text: str) -> None:
    write_binary(f"{folder.rstrip('/')}/{name}", text)


def result_files(folder: Path) -> list[Path]:
    """Every file `finish_results` may write in `folder` by a fixed name (pages aside)."""
    tables = (f"{table}.{ext}" for table in TABLES for ext in ("jsonl", "parquet"))
    pages = (PAGES_INDEX, PAGES_REDACTION)
    return [folder / name for name in (SUITE_FILE, TIMINGS_FILE, *tables, *pages)]


def check_results_folder(folder: Path) -> None:
    """Raise `OutputPathError` unless every file a run writes in `folder` may be replaced.

    Checked before the suite runs, so a directory, FIFO or read-only file at `suite.json`, a
    table or its Parquet never fails, or hangs, half-way through writing. (A symlink there is
    replaced, never written through: no input can be reached by one.) `pairs/` and `.parts/`
    must be real folders if they exist, never links.
    """
    for sub in (PAGES_DIR, PARTS):
        where = folder / sub
        if where.is_symlink() or (where.exists() and not where.is_dir()):
            msg = "is not a folder (or is a symlink); refusing to write results into it"
            raise OutputPathError(msg, hint="remove it or choose another folder", source=where)
    for path in result_files(folder):
        if path.parent.is_dir():  # `pairs/` is made only when there are pages
            check_output_path(path)


def finish_results(
    report: SuiteReport, folder: str, indexes: list[int], names: Redactor = DEFAULT_REDACTOR
) -> None:
    """Join the tables, write `suite.json`, the pair reports, Parquet if possible, timings.

    `names` redacts the scenario names the pair reports' files are named after.
    """
    started = time.perf_counter()
    _remove_stale(folder)
    join_parts(folder, indexes)
    _write(folder, SUITE_FILE, report.to_json() + "\n")
    _write_pages(report, folder, names)
    report.timings["parquet"] = (
        "skipped: remote folder" if is_url(folder) else write_parquet(Path(folder))
    )
    report.timings["results_s"] = round(time.perf_counter() - started, 4)
    _write(folder, TIMINGS_FILE, report.timings_json())


def _remove_stale(folder: str) -> None:
    """Remove an earlier run's Parquet and page index, which this run may not replace.

    Parquet is skipped without DuckDB or pyarrow (or on a remote folder) and `pairs/index.json`
    is written only when there are pages: left there, the next `--query` or `results -f html`
    would mix the earlier run with this one. Only these files, by their names.
    """
    names = [*(f"{table}.parquet" for table in TABLES), PAGES_INDEX, PAGES_REDACTION]
    if is_url(folder):
        fs, root = fsspec_module().core.url_to_fs(folder)
        for name in names:
            if fs.exists(f"{root.rstrip('/')}/{name}"):
                fs.rm(f"{root.rstrip('/')}/{name}")
        return
    for name in names:
        (Path(folder) / name).unlink(missing_ok=True)


def _write_pages(report: SuiteReport, folder: str, names: Redactor) -> None:
    """The pair reports as `pairs/NNN-<scenario>.html` and `pairs/index.json` (none: no index)."""
    files = page_files(list(report.pair_pages), names)
    for scenario, name in files.items():
        _write(folder, name, report.pair_pages[scenario])
    if files:
        _write(folder, PAGES_INDEX, orjson.dumps(files, option=orjson.OPT_INDENT_2).decode())
        _write(folder, PAGES_REDACTION, orjson.dumps({"redacted": report.pages_redacted}).decode())
    report.pair_files.update(files)


def _read_pages(report: SuiteReport, folder: Path) -> None:
    index = folder / PAGES_INDEX
    if not index.is_file():
        return
    what = "the pair reports"
    try:
        files = orjson.loads(read_input(index, what))
        for scenario, name in list(files.items())[:PAGE_LIMIT]:
            page = read_input(_page_path(folder, str(name), index), what).decode("utf-8")
            report.pair_pages[str(scenario)] = page
            report.pair_files[str(scenario)] = str(name)
    except (UnicodeDecodeError, orjson.JSONDecodeError, AttributeError) as exc:
        raise ConfigError(f"cannot read the pair reports: {exc}", source=index) from None
    report.pages_redacted = _pages_redacted(folder / PAGES_REDACTION)


def _pages_redacted(marker: Path) -> bool:
    """Whether `pairs/redaction.json` says the pages were redacted (missing or unreadable: no)."""
    try:
        return orjson.loads(marker.read_bytes()).get("redacted") is True
    except (OSError, orjson.JSONDecodeError, AttributeError):
        return False


def _page_path(folder: Path, name: str, index: Path) -> Path:
    """`folder / name` when it lies in the pages folder, never a file elsewhere on disk.

    An index naming `../../secret` or `/etc/passwd` would embed that file in the HTML report.
    """
    pages = (folder / PAGES_DIR).resolve()
    path = (folder / name).resolve()
    if not path.is_relative_to(pages):
        msg = f"cannot read the pair reports: {name!r} is not in {PAGES_DIR}/"
        raise ConfigError(msg, source=index)
    return path


def write_parquet(folder: Path, writers: tuple[str, ...] = PARQUET_WRITERS) -> str:
    """Each `<table>.jsonl` as `<table>.parquet` with the first writer that is installed.

    Says which writer did it (or why none did). DuckDB comes first: it streams the conversion
    and needs no second library; pyarrow (read in batches) when DuckDB is missing.
    """
    for name in writers:
        if _WRITERS[name](folder):
            return name
    return "skipped: install agentdiff[results] for Parquet"


def _write_parquet_duckdb(folder: Path) -> bool:
    try:
        import duckdb  # noqa: PLC0415 - optional extra
    except ImportError:
        return False
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")  # it would draw on the user's terminal
    try:
        for table, columns in TABLES.items():
            source = folder / f"{table}.jsonl"
            target = folder / f"{table}.parquet"
            scan = _json_scan(source, columns)  # our table names; paths quoted by _quote
            options = f"FORMAT parquet, COMPRESSION zstd, KV_METADATA {_metadata(table)}"
            con.execute(f"COPY (SELECT * FROM {scan}) TO {_quote(target)} ({options})")  # noqa: S608
    finally:
        con.close()
    return True


def _write_parquet_arrow(folder: Path) -> bool:
    try:
        import pyarrow as pa  # noqa: PLC0415 - optional
        import pyarrow.json as pa_json  # noqa: PLC0415
        import pyarrow.parquet as pq  # noqa: PLC0415
    except ImportError:
        return False
    types = {
        "VARCHAR": pa.string(),
        "BIGINT": pa.int64(),
        "DOUBLE": pa.float64(),
        "BOOLEAN": pa.bool_(),
        "VARCHAR[]": pa.list_(pa.string()),
    }
    for table, columns in TABLES.items():
        schema = pa.schema([(name, types[kind]) for name, kind in columns])
        schema = schema.with_metadata(
            {"schema_version": RESULTS_SCHEMA_VERSION, "agentdiff_table": table}
        )
        source = folder / f"{table}.jsonl"
        with pq.ParquetWriter(folder / f"{table}.parquet", schema, compression="zstd") as out:
            if not source.stat().st_size:
                continue
            options = pa_json.ParseOptions(
                explicit_schema=schema, unexpected_field_behavior="ignore"
            )
            # batch by batch: memory stays bounded however many step rows the suite wrote
            for batch in pa_json.open_json(source, parse_options=options):
                out.write_batch(pa.record_batch(batch.columns, schema=schema))
    return True


_WRITERS = {"duckdb": _write_parquet_duckdb, "pyarrow": _write_parquet_arrow}


def _metadata(table: str) -> str:
    return f"{{schema_version: '{RESULTS_SCHEMA_VERSION}', agentdiff_table: '{table}'}}"


def _quote(path: Path | str) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _json_scan(source: Path, columns: tuple[tuple[str, str], ...]) -> str:
    spec = ", ".join(f"{name}: '{kind}'" for name, kind in columns)
    return f"read_json({_quote(source)}, format='newline_delimited', columns={{{spec}}})"


def load_results(folder: str | Path) -> SuiteReport:
    """The `SuiteReport` saved in a results folder (or a `suite.json` path)."""
    path = Path(folder)
    if path.is_dir():
        path /= SUITE_FILE
    raw = read_input(path, "saved results", hint="pass a folder written by --results")
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ConfigError(f"not a suite report: invalid JSON: {exc}", source=path) from None
    if not isinstance(document, dict):
        raise ConfigError("not a suite report: expected a JSON object", source=path)
    if exceeds_depth([document], MAX_DEPTH):  # no report nests so deep; no writer could
        where = short_path(deepest_path(document, MAX_DEPTH, "$") or "$")
        msg = f"not a suite report: nests deeper than {MAX_DEPTH} levels at {where}"
        raise ConfigError(msg, source=path)
    rows = document.pop("scenarios", None)
    try:
        header = SuiteReport.model_validate({**document, "scenarios": []})
        # one row at a time, kept compact: a saved 50,000-scenario suite stays small in memory
        blobs: list[bytes] = []
        verdicts: list[str] = []
        partly_loaded = 0
        for row in _row_list(rows):
            checked = ScenarioRow.model_validate(row)
            blobs.append(row_json(checked))
            verdicts.append(checked.verdict)
            partly_loaded += bool(checked.errors) and checked.verdict != "error"
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"]))
        msg = f"not a suite report: {where}: {first['msg']}"
        raise ConfigError(msg, source=path) from None
    _check_counts(header, SuiteReport.count(verdicts, partly_loaded), path)
    report = header.model_copy(update={"scenarios": Rows(blobs, verdicts)})
    _read_pages(report, path.parent)
    return report


def _check_counts(header: SuiteReport, counted: Counts, path: Path) -> None:
    """Raise a `ConfigError` unless the report's `counts` are those of its rows.

    The verdict (PASSED, the exit code, "… more passing scenarios") is read off `counts`: an
    edited `suite.json` saying 38 passed over 21 regressed rows must not render as passing.
    """
    if header.counts == counted:
        return
    said, found = header.counts.model_dump(), counted.model_dump()
    wrong = ", ".join(f"{k} {said[k]} (rows: {found[k]})" for k in said if said[k] != found[k])
    msg = f"not a suite report: its counts contradict its scenario rows: {wrong}"
    raise ConfigError(msg, source=path)


def _row_list(rows: Any) -> list[Any]:
    if not isinstance(rows, list):
        raise ValidationError.from_exception_data(
            "SuiteReport", [{"type": "list_type", "loc": ("scenarios",), "input": rows}]
        )
    return rows


def _view_select(
    con: duckdb.DuckDBPyConnection, folder: Path, table: str, columns: tuple[tuple[str, str], ...]
) -> str | None:
    """What a table's view selects: its Parquet file, else its JSON Lines (None: neither).

    A column the file lacks (one written before the column was: `runs.load_error` before
    version 2) reads null, as the JSON Lines reader gives it, never an unknown-column error.
    A Parquet file DuckDB cannot read (truncated, not Parquet) is a `ConfigError` naming it.
    """
    import duckdb  # noqa: PLC0415 - optional extra, imported by the caller first

    parquet, jsonl = folder / f"{table}.parquet", folder / f"{table}.jsonl"
    missing: list[str] = []
    if parquet.is_file():
        scan = f"read_parquet({_quote(parquet)})"
        try:
            described = con.execute(f"DESCRIBE SELECT * FROM {scan}")  # noqa: S608 - quoted
        except duckdb.Error as exc:
            raise query_failed(exc, parquet) from None
        held = {row[0] for row in described.fetchall()}
        missing = [f', NULL::{kind} AS "{name}"' for name, kind in columns if name not in held]
    elif jsonl.is_file():
        scan = _json_scan(jsonl, columns)
    else:
        return None
    return f"SELECT *{''.join(missing)} FROM {scan}"  # noqa: S608 - our columns, quoted paths


MAX_QUERY_ROWS = 10_000
"""The rows `--query` gives by default (`--max-rows`); the others are counted, never kept."""
_CHUNK = 4096
"""Rows fetched at a time: what a query's result holds in memory beyond the rows kept."""


class QueryRows(NamedTuple):
    """A query's column names, its first rows, and how many rows after them were left out."""

    names: list[str]
    rows: list[tuple[Any, ...]]
    left_out: int = 0


def query_results(folder: str | Path, sql: str, max_rows: int | None = MAX_QUERY_ROWS) -> QueryRows:
    """The columns and first `max_rows` rows of `sql` over the views `runs`, `pairs`, `steps`.

    One read-only SELECT, reading no file outside `folder` (see `agentdiff.suite.sandbox`).
    Rows past `max_rows` (None: no limit) are fetched a chunk at a time and only counted, so
    memory stays bounded whatever the query returns. Ctrl-C stops the query at once.
    """
    try:
        import duckdb  # noqa: PLC0415 - optional extra
    except ImportError:
        msg = "--query needs DuckDB"
        raise ConfigError(msg, hint="pip install 'agentdiff[results]'") from None
    folder = Path(folder)
    if not folder.is_dir():
        msg = "cannot query saved results: not a folder"
        raise ConfigError(msg, hint="pass a folder written by --results", source=folder)
    con = duckdb.connect(config=CONNECT_CONFIG)
    try:
        for table, columns in TABLES.items():
            select = _view_select(con, folder, table, columns)
            if select is not None:
                con.execute(f"CREATE VIEW {table} AS {select}")
        confine(con, folder)
        checked_select(con, sql, folder)
        return _interruptible(con, lambda: _fetched(con, sql, folder, max_rows))
    finally:
        con.close()


def _interruptible(con: duckdb.DuckDBPyConnection, work: Callable[[], QueryRows]) -> QueryRows:
    """`work()` run by a second thread, so Ctrl-C reaches this one at once and stops DuckDB.

    DuckDB in the main thread noticed Ctrl-C late or never (a long query ran on) and then as a
    "Query interrupted" error; here the `KeyboardInterrupt` is raised as for any command.
    """
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(work)
        try:
            return running.result()
        except KeyboardInterrupt:
            con.interrupt()
            raise


def _fetched(
    con: duckdb.DuckDBPyConnection, sql: str, folder: Path, max_rows: int | None
) -> QueryRows:
    """Run `sql`: its first `max_rows` rows kept, the rest counted a chunk at a time."""
    import duckdb  # noqa: PLC0415 - optional extra, imported by the caller first

    try:
        result = con.execute(sql)
        names = [d[0] for d in result.description or []]
        if max_rows is None:
            return QueryRows(names, result.fetchall())
        rows = result.fetchmany(max_rows)
        left_out = 0
        while chunk := result.fetchmany(_CHUNK):
            left_out += len(chunk)
    except duckdb.Error as exc:
        raise query_failed(exc, folder) from None
    return QueryRows(names, rows, left_out)
