"""`agentdiff sessions [DIR]`: recent Claude Code and Codex sessions, to pick two to compare."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from agentdiff.cli.errors import handle_errors
from agentdiff.cli.options import RedactOpt, redaction
from agentdiff.errors import AgentDiffError
from agentdiff.render.json import data_json
from agentdiff.render.prepare import redacting, text
from agentdiff.sessions import SessionInfo, list_sessions

__all__ = ["sessions"]


class SessionsFormat(str, Enum):
    """Output formats of `sessions`."""

    terminal = "terminal"
    json = "json"


_PROJECT_WIDTH = 60
"""Project width kept on a narrow terminal (a longer one ends in an ellipsis)."""
_OTHER_COLUMNS = 70
"""Room for the started/steps/tokens/cost columns, so rich never drops one for a long project."""


def _reference(info: SessionInfo) -> str:
    return _shown(f"{info.agent}:{info.session_id}")


def _shown(value: str) -> str:
    r"""`value` redacted and escaped for the terminal, undecodable bytes as in JSON (`\xfe`)."""
    return text(_unicode(value) or "")


def _row(info: SessionInfo) -> list[str]:
    """A table row: every name and value from disk or the session redacted and escaped."""
    tokens = "?" if info.total_tokens is None else f"{info.total_tokens:,}"
    cost = "?" if info.cost_usd is None else f"${info.cost_usd:.4f}"
    if info.error:
        return [_reference(info), "-", "-", "-", "-", "-", _shown(info.error)]
    return [
        _reference(info),
        _shown(info.project or "-"),
        _shown((info.started_at or "-")[:16].replace("T", " ")),
        str(info.steps),
        tokens,
        cost,
        "",
    ]


def _json(info: SessionInfo) -> dict[str, object]:
    r"""A session's JSON row; a name that is no valid Unicode shows its bytes (`q\xfe`)."""
    return {
        "reference": _unicode(f"{info.agent}:{info.session_id}"),
        "agent": info.agent,
        "session_id": _unicode(info.session_id),
        "path": _unicode(str(info.path)),
        "project": _unicode(info.project),
        "started_at": _unicode(info.started_at),
        "steps": info.steps,
        "total_tokens": info.total_tokens,
        "cost_usd": info.cost_usd,
        "error": _unicode(info.error),
    }


def _unicode(value: str | None) -> str | None:
    r"""`value` as JSON can hold it (orjson refuses a lone surrogate).

    A file name's undecodable bytes (`os.fsdecode`) show as `\xfe`, another lone surrogate (a
    JSON string's own) as `\ud800`.
    """
    if value is None:
        return None
    try:
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return value.encode("utf-8", "backslashreplace").decode("utf-8")


@handle_errors
def sessions(
    directory: Annotated[
        Path | None,
        typer.Argument(help="Look here instead of ~/.claude and ~/.codex.", show_default=False),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, help="How many, newest first.")
    ] = 20,
    fmt: Annotated[SessionsFormat, typer.Option("--format", "-f")] = SessionsFormat.terminal,
    redact: RedactOpt = None,
) -> None:
    """List recent coding-agent sessions; compare two with `agentdiff compare claude:ID claude:ID`.

    Claude Code sessions are found under $CLAUDE_CONFIG_DIR (default ~/.claude), Codex rollouts
    under $CODEX_HOME (default ~/.codex).
    """
    if directory is not None and not directory.is_dir():
        what = "is not a folder" if directory.exists() else "folder not found"
        hint = "give the folder holding projects/ (Claude Code) or sessions/ (Codex)"
        raise AgentDiffError(what, hint=hint, source=directory)
    found = list_sessions(directory, limit=limit)
    options = redaction(redact)
    if fmt is SessionsFormat.json:
        typer.echo(data_json([_json(i) for i in found], options).decode(), nl=False)
        return
    with redacting(options.redactor()):
        _print_table(found)


def _print_table(found: list[SessionInfo]) -> None:
    console = Console(highlight=False, emoji=False)
    if not found:
        console.print("no sessions found", markup=False)
        return
    table = Table(box=None)
    reference_width = max(len(_reference(r)) for r in found)
    project_width = max(_PROJECT_WIDTH, console.width - reference_width - _OTHER_COLUMNS)
    table.add_column("reference", no_wrap=True, min_width=reference_width)
    table.add_column("project", overflow="ellipsis", no_wrap=True, max_width=project_width)
    table.add_column("started", no_wrap=True, min_width=16)
    for name, width in (("steps", 5), ("tokens", 9), ("cost", 8)):
        table.add_column(name, justify="right", no_wrap=True, min_width=width)
    table.add_column("", overflow="fold")
    for info in found:
        table.add_row(*_row(info))
    # never hide a column: a narrow terminal wraps long lines instead
    console.width = max(console.width, 130, reference_width + project_width + _OTHER_COLUMNS)
    console.print(table, markup=False)
