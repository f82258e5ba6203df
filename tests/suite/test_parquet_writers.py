"""Both Parquet writers of a results folder (DuckDB, pyarrow) write the same tables.

The tables of a real-fixture suite are converted once by each writer; the rows read back, the
column types and the key-value metadata must agree, and `agentdiff results --query` reads
either. pyarrow reads the JSON Lines in batches, so a table larger than one batch is checked
too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest

from agentdiff.suite import SuiteOptions, query_results, run_suite
from agentdiff.suite.columns import RESULTS_SCHEMA_VERSION, TABLES
from agentdiff.suite.results import PARQUET_WRITERS, write_parquet


@pytest.fixture(scope="module")
def results(fixture_sets, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("results")
    options = SuiteOptions(backend="in-process", only=("*/loop", "*/detour"), results=str(folder))
    run_suite(*fixture_sets, options)
    return folder


def _converted(results: Path, writer: str, target: Path) -> Path:
    target.mkdir()
    for table in TABLES:
        shutil.copyfile(results / f"{table}.jsonl", target / f"{table}.jsonl")
    assert write_parquet(target, (writer,)) == writer
    return target


def _jsonl_rows(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_duckdb_is_tried_first():
    assert PARQUET_WRITERS == ("duckdb", "pyarrow")


def test_both_writers_write_the_same_rows_types_and_metadata(results, tmp_path):
    by_writer = {w: _converted(results, w, tmp_path / w) for w in PARQUET_WRITERS}
    for table, columns in TABLES.items():
        rows = _jsonl_rows(results / f"{table}.jsonl")
        assert rows, table
        read = {}
        for writer, folder in by_writer.items():
            parquet = pq.read_table(folder / f"{table}.parquet")
            assert parquet.column_names == [name for name, _ in columns], (writer, table)
            meta = parquet.schema.metadata
            assert meta[b"schema_version"] == RESULTS_SCHEMA_VERSION.encode()
            assert meta[b"agentdiff_table"] == table.encode()
            assert (
                pq.ParquetFile(folder / f"{table}.parquet")
                .metadata.row_group(0)
                .column(0)
                .compression
                == "ZSTD"
            )
            read[writer] = parquet.to_pylist()
        assert read["pyarrow"] == rows, table  # exactly the JSON Lines rows
        assert read["duckdb"] == read["pyarrow"], table
        kinds = {
            w: [str(f.type) for f in pq.read_schema(f / f"{table}.parquet")]
            for w, f in by_writer.items()
        }
        assert kinds["duckdb"] == kinds["pyarrow"], table


def test_a_query_reads_the_pyarrow_files(results, tmp_path):
    folder = _converted(results, "pyarrow", tmp_path / "arrow")
    for table in TABLES:
        (folder / f"{table}.jsonl").unlink()  # only the Parquet files are left to read
    names, rows, _ = query_results(folder, "SELECT count(*) AS n FROM pairs WHERE NOT gate_passed")
    expected = sum(not r["gate_passed"] for r in _jsonl_rows(results / "pairs.jsonl"))
    assert names == ["n"] and rows == [(expected,)]


def test_pyarrow_streams_a_table_larger_than_one_batch(results, tmp_path):
    folder = tmp_path / "big"
    folder.mkdir()
    step = (results / "steps.jsonl").read_bytes()
    copies = 1 + (3 << 20) // len(step)  # > 1 MiB, pyarrow's default block size
    for table in TABLES:
        data = step * copies if table == "steps" else (results / f"{table}.jsonl").read_bytes()
        (folder / f"{table}.jsonl").write_bytes(data)
    assert write_parquet(folder, ("pyarrow",)) == "pyarrow"
    parquet = pq.ParquetFile(folder / "steps.parquet")
    assert parquet.metadata.num_rows == step.count(b"\n") * copies
    assert parquet.metadata.num_row_groups >= 1


def test_empty_tables_and_no_writer(tmp_path):
    for table in TABLES:
        (tmp_path / f"{table}.jsonl").write_bytes(b"")
    assert write_parquet(tmp_path, ("pyarrow",)) == "pyarrow"
    assert pq.read_table(tmp_path / "runs.parquet").num_rows == 0
    assert write_parquet(tmp_path, ()) == "skipped: install agentdiff[results] for Parquet"


def test_a_version_1_folder_reads_load_error_as_null(results, tmp_path):
    """Version 1 `runs` files have no `load_error` (they listed loaded runs only): a query over
    it reads null, from Parquet as from JSON Lines, instead of failing on an unknown column."""
    folder = _converted(results, "pyarrow", tmp_path / "v1")
    runs = pq.read_table(folder / "runs.parquet")
    pq.write_table(runs.drop_columns(["load_error"]), folder / "runs.parquet")
    sql = "SELECT count(*) AS n, count(load_error) AS lost, count(steps) AS loaded FROM runs"
    expected = (["n", "lost", "loaded"], [(runs.num_rows, 0, runs.num_rows)], 0)
    assert query_results(folder, sql) == expected  # the Parquet file
    (folder / "runs.parquet").unlink()
    lines = _jsonl_rows(folder / "runs.jsonl")
    old = [orjson.dumps({k: v for k, v in r.items() if k != "load_error"}) for r in lines]
    (folder / "runs.jsonl").write_bytes(b"\n".join(old) + b"\n")
    assert query_results(folder, sql) == expected  # the JSON Lines
