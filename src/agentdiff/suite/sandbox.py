"""`agentdiff results --query`: DuckDB confined to reading one results folder.

A query is user text run by a SQL engine that can write files (`COPY … TO`), read any file
(`read_text`, `read_csv`), attach databases and install extensions from the network. Two
independent fences keep it to reading the folder's tables:

- the text must be exactly one statement of type SELECT (`SELECT`, `WITH … SELECT`, `FROM …`,
  `VALUES`, `DESCRIBE`, `SUMMARIZE`, `SHOW`): never `COPY`, `EXPORT`, `ATTACH`, `INSTALL`,
  `LOAD`, `SET`, `PRAGMA`, `CALL`, DDL or DML, and never two statements;
- the connection itself (`confine`) never autoloads or autoinstalls an extension, has external
  access off with only the results folder allowed (`allowed_directories`; no temp directory,
  which DuckDB would allow as well), and its
  configuration is locked, so even a SELECT reads no file outside the folder and reaches no
  network.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from agentdiff.errors import ConfigError

if TYPE_CHECKING:
    import duckdb

__all__ = ["CONNECT_CONFIG", "QUERY_HINT", "checked_select", "confine", "query_failed"]

CONNECT_CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "temp_directory": "",
    "memory_limit": "2GB",
    "threads": min(4, os.cpu_count() or 1),
}
"""Set when the connection opens: no extension is fetched or loaded behind the query's back;
no temp directory (DuckDB makes its own readable, `.tmp` under the current directory, so a
query could read files there: a query spills nothing and fails past `memory_limit` instead);
at most 2 GB of memory and 4 threads, whatever the machine."""
QUERY_HINT = (
    "--query runs one read-only SELECT over the tables runs, pairs and steps "
    "of the results folder; it reads no other file"
)

_KINDS = {"LOAD": "INSTALL or LOAD", "MULTI": "a statement DuckDB runs as several"}
"""Statement types named as the user wrote them."""


def confine(con: duckdb.DuckDBPyConnection, folder: Path) -> None:
    """Lock `con` to reading files under `folder` (once its views are made)."""
    con.execute("SET allowed_directories = ?", [[str(folder.resolve()) + os.sep]])
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def checked_select(con: duckdb.DuckDBPyConnection, sql: str, folder: Path) -> None:
    """Raise a `ConfigError` unless `sql` is exactly one SELECT statement."""
    import duckdb  # noqa: PLC0415 - optional extra, imported by the caller first

    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise query_failed(exc, folder) from None
    if len(statements) != 1:
        msg = f"--query takes one SQL statement, got {len(statements)}"
        raise ConfigError(msg, hint=QUERY_HINT, source=folder)
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        msg = f"--query runs only SELECT statements, not {_KINDS.get(kind.name, kind.name)}"
        raise ConfigError(msg, hint=QUERY_HINT, source=folder)


def query_failed(exc: Exception, folder: Path) -> ConfigError:
    """The one-line error of a query DuckDB refused (a file outside the folder: with a hint)."""
    message = " ".join(str(exc).split())
    hint = QUERY_HINT if "Permission Error" in message else None
    return ConfigError(f"query failed: {message}", hint=hint, source=folder)
