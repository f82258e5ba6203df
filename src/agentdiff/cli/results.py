"""`agentdiff results DIR`: re-render saved suite results, or run SQL over their tables."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer

from agentdiff.cli.errors import handle_errors, say
from agentdiff.cli.options import OutputOpt, RedactOpt, redaction
from agentdiff.cli.output import to_stdout, write_output
from agentdiff.errors import ConfigError
from agentdiff.files import check_output_path
from agentdiff.render.json import data_json
from agentdiff.render.markdown import md
from agentdiff.render.options import RenderOptions
from agentdiff.render.prepare import redacting, text
from agentdiff.suite.columns import TABLES
from agentdiff.suite.pages import PAGES_DIR, folder_href
from agentdiff.suite.render import SUITE_RENDERERS, render_suite
from agentdiff.suite.results import (
    MAX_QUERY_ROWS,
    SUITE_FILE,
    TIMINGS_FILE,
    load_results,
    query_results,
)

__all__ = ["results"]

QUERY_FORMATS = ("terminal", "markdown", "json")
"""What `--query` prints its rows as (terminal: tab-separated)."""

SuiteFormat = Enum("SuiteFormat", {name: name for name in SUITE_RENDERERS}, type=str)  # type: ignore[misc]


def _rows_text(
    names: list[str], rows: list[tuple[Any, ...]], fmt: str, options: RenderOptions
) -> str:
    """Query rows as JSON objects, a markdown table or TSV.

    JSON is data (redacted with `--redact`); the others are human-facing: redacted unless
    `--no-redact`, NULL shown as an empty cell.
    """
    if fmt == "json":
        data = [dict(zip(names, row, strict=True)) for row in rows]
        return data_json(orjson.loads(orjson.dumps(data, default=str)), options).decode()
    with redacting(options.redactor()):
        cells = [list(map(text, names))]
        cells += [["" if v is None else text(v) for v in row] for row in rows]
    if fmt == "markdown":
        lines = ["| " + " | ".join(md(c) for c in row) + " |" for row in cells]
        lines.insert(1, "|" + "---|" * len(names))
        return "\n".join(lines) + "\n"
    return "\n".join("\t".join(row) for row in cells) + "\n"


@handle_errors
def results(
    folder: Annotated[
        Path, typer.Argument(help="A folder written by `agentdiff suite --results`.")
    ],
    fmt: Annotated[SuiteFormat, typer.Option("--format", "-f")] = "terminal",  # type: ignore[assignment]
    query: Annotated[
        str | None,
        typer.Option(
            "--query",
            "-q",
            help="One read-only SELECT over the views runs, pairs, steps (DuckDB); "
            "it reads no file outside FOLDER.",
        ),
    ] = None,
    max_rows: Annotated[
        int,
        typer.Option(
            "--max-rows",
            min=1,
            help="The most rows --query prints; the others are counted and left out.",
        ),
    ] = MAX_QUERY_ROWS,
    output: OutputOpt = None,
    redact: RedactOpt = None,
) -> None:
    """Re-render saved suite results, or query their tables with SQL."""
    name = str(fmt.value)
    options = redaction(redact)
    if query is not None and name not in QUERY_FORMATS:
        msg = f"--query prints rows as {', '.join(QUERY_FORMATS)}, not {name}"
        raise ConfigError(msg, hint="add -f json, -f markdown or -f terminal (TSV)")
    inputs = _saved_files(folder)  # `-o` may go in the folder (suite.html) but replace none
    if output is not None and not to_stdout(output):
        check_output_path(output, inputs)
    if query is not None:
        found = query_results(folder, query, max_rows)
        write_output(_rows_text(found.names, found.rows, name, options), output, inputs)
        if found.left_out:
            say(f"note: {found.left_out:,} more rows left out (--max-rows {max_rows:,})")
        return
    report = load_results(folder)
    page_folder = folder.parent if folder.is_file() else folder  # DIR/suite.json given
    report.pages_href = folder_href(page_folder, None if to_stdout(output) else output)
    color = (output is None or str(output) == "-") and sys.stdout.isatty()
    shown = options.model_copy(update={"color": color})
    write_output(render_suite(report, name, shown), output, inputs)


TABLE_FILES = ("jsonl", "parquet")


def _saved_files(folder: Path) -> list[Path]:
    """What `suite --results` wrote there: its report, timings, tables and pair pages.

    A page written there afterwards (`-o DIR/suite.html`) is not one: it may be written again.
    """
    names = [SUITE_FILE, TIMINGS_FILE, *(f"{t}.{ext}" for t in TABLES for ext in TABLE_FILES)]
    try:
        pages = [path for path in (folder / PAGES_DIR).rglob("*") if path.is_file()]
    except OSError:
        pages = []
    return [folder / name for name in names] + pages
