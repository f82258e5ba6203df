"""Writing command output to stdout or to a file given with `-o`."""

from __future__ import annotations

from pathlib import Path

import typer

from agentdiff.files import write_atomically

__all__ = ["write_atomically", "write_output"]


def write_output(text: str, output: Path | None) -> None:
    """Print `text`, or write it to `output` atomically (`-` means stdout)."""
    if output is None or str(output) == "-":
        typer.echo(text, nl=not text.endswith("\n"))
        return
    write_atomically(output, text)
