"""Writing files so that a reader never sees half of one: a temp file beside it, then a rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from agentdiff.errors import AgentDiffError

__all__ = ["write_atomically"]


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` via a temp file in the same folder and a rename."""
    folder = path.parent if str(path.parent) else Path()
    try:
        handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        msg = f"cannot write {path}: {exc.strerror or exc}"
        raise AgentDiffError(msg) from None
    temp = Path(temp_name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        temp.chmod(_mode_for(path))
        temp.replace(path)
    except OSError as exc:
        temp.unlink(missing_ok=True)
        msg = f"cannot write {path}: {exc.strerror or exc}"
        raise AgentDiffError(msg) from None


def _mode_for(path: Path) -> int:
    """The existing file's permissions, else what a plain `open()` would give (0o666 − umask)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
