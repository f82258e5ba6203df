"""`agentdiff results DIR`: re-render saved suite results, or run SQL over their tables."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer

from agentdiff.cli.errors import handle_errors
from agentdiff.cli.options import OutputOpt
from agentdiff.cli.output import to_stdout, write_output
from agentdiff.files import check_output_path
from agentdiff.render.markdown import md
from agentdiff.render.options import RenderOptions
from agentdiff.render.text import one_line
from agentdiff.suite.columns import TABLES
from agentdiff.suite.pages import PAGES_DIR
from agentdiff.suite.render import SUITE_RENDERERS, render_suite
from agentdiff.suite.results import SUITE_FILE, TIMINGS_FILE, load_results, query_results

__all__ = ["results"]

SuiteFormat = Enum("SuiteFormat", {name: name for name in SUITE_RENDERERS}, type=str)  # type: ignore[misc]


def _rows_text(names: list[str], rows: list[tuple[Any, ...]], fmt: str) -> str:
    if fmt == "json":
        data = [dict(zip(names, row, strict=True)) for row in rows]
        return orjson.dumps(data, default=str, option=orjson.OPT_INDENT_2).decode() + "\n"
    if fmt == "markdown":
        lines = ["| " + " | ".join(md(n) for n in names) + " |", "|" + "---|" * len(names)]
        lines += ["| " + " | ".join(md(v) for v in row) + " |" for row in rows]
        return "\n".join(lines) + "\n"
    lines = ["\t".join(names)] + ["\t".join(one_line(v) for v in row) for row in rows]
    return "\n".join(lines) + "\n"


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
    output: OutputOpt = None,
) -> None:
    """Re-render saved suite results, or query their tables with SQL."""
    name = str(fmt.value)
    inputs = _saved_files(folder)  # `-o` may go in the folder (suite.html) but replace none
    if output is not None and not to_stdout(output):
        check_output_path(output, inputs)
    if query is not None:
        names, rows = query_results(folder, query)
        write_output(_rows_text(names, rows, name), output, inputs)
        return
    report = load_results(folder)
    color = (output is None or str(output) == "-") and sys.stdout.isatty()
    write_output(render_suite(report, name, RenderOptions(color=color)), output, inputs)


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
