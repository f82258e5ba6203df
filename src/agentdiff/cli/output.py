"""Writing command output to stdout or to a file given with `-o`."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import typer

from agentdiff.errors import AgentDiffError

__all__ = ["write_atomically", "write_output"]


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` via a temp file and a rename: never half-written."""
    folder = path.parent if str(path.parent) else Path()
    try:
        handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        Path(temp).replace(path)
    except OSError as exc:
        if "temp" in locals():
            Path(temp).unlink(missing_ok=True)
        msg = f"cannot write {path}: {exc.strerror or exc}"
        raise AgentDiffError(msg) from None


def write_output(text: str, output: Path | None) -> None:
    """Print `text`, or write it to `output` atomically (`-` means stdout)."""
    if output is None or str(output) == "-":
        typer.echo(text, nl=not text.endswith("\n"))
        return
    write_atomically(output, text)
