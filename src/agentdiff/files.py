"""Writing files without ever damaging one: outputs are checked, then written atomically.

`write_output_file(path, data, inputs=...)` creates a missing folder on the way (or says exactly
why it cannot); refuses to write over one of the command's own inputs, over a directory, a FIFO,
a device or a read-only file; writes `/dev/null` as is (nothing to replace); follows a symlink
to the file it names; and otherwise writes a temp file beside the target, then renames it over
the target, so a reader never sees half a file. Whatever fails, the temp file is removed and the
old file is left as it was. Command outputs (reports, converted traces) are not forced to disk
before the rename (an `fsync` of a 100,000-step JSON report costs a second or more on a busy
disk, and a report can be written again); `write_atomically` forces everything else (baselines,
recorded runs, suite results) unless told otherwise.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path

from agentdiff.errors import OutputPathError

__all__ = ["check_output_path", "make_folder", "write_atomically", "write_output_file"]

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_WHERE_TO = "write to a regular file, `-` for stdout or /dev/null to discard"


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutputPathError(f"cannot write: {exc.strerror or exc}", source=path) from None


def _is_null_device(info: os.stat_result) -> bool:
    null = Path(os.devnull).stat()
    return stat.S_ISCHR(info.st_mode) and info.st_rdev == null.st_rdev


def _same_file(info: os.stat_result, other: Path) -> bool:
    try:
        theirs = other.stat()
    except OSError:
        return False
    return (info.st_dev, info.st_ino) == (theirs.st_dev, theirs.st_ino)


def check_output_path(path: Path, inputs: Sequence[Path] = ()) -> os.stat_result | None:
    """Raise `OutputPathError` unless `path` may be (re)written; its stat (`None`: new file).

    A missing folder on the way is created first (`make_folder`), or the error says why not.
    """
    make_folder(path)
    info = _stat(path)
    if info is None:
        return None
    if any(_same_file(info, given) for given in inputs):
        msg = "is an input of this command; refusing to write over it"
        raise OutputPathError(msg, hint="choose another output file", source=path)
    if _is_null_device(info):
        return info
    kind = next((name for test, name in _KINDS if test(info.st_mode)), None)
    if kind is not None:
        raise OutputPathError(f"is {kind}, not a regular file", hint=_WHERE_TO, source=path)
    if not info.st_mode & 0o222 or not os.access(path, os.W_OK):
        msg = "is read-only; refusing to replace it"
        raise OutputPathError(msg, hint="make it writable or choose another file", source=path)
    return info


def make_folder(path: Path) -> None:
    """Create the folder `path` goes in (with its parents), or say exactly why it cannot be."""
    folder = path.parent
    if not str(folder) or folder.is_dir():
        return
    ancestor = next((a for a in (folder, *folder.parents) if a.exists() or a.is_symlink()), None)
    if ancestor is not None and not ancestor.is_dir():
        msg = f"cannot create the folder {folder}: {ancestor} exists and is not a folder"
        raise OutputPathError(msg, hint="choose another output path", source=path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        msg = f"cannot create the folder {folder}: {exc.strerror or exc}"
        raise OutputPathError(msg, hint="choose another output path", source=path) from None


def write_output_file(path: Path, data: str | bytes, inputs: Sequence[Path] = ()) -> None:
    """Write `data` to `path` after `check_output_path` (atomically, unless it is /dev/null)."""
    info = check_output_path(path, inputs)
    if info is not None and _is_null_device(info):
        return
    write_atomically(Path(os.path.realpath(path)), data, durable=False)


def write_atomically(path: Path, data: str | bytes, *, durable: bool = True) -> None:
    """Write `data` to `path` via a temp file in the same folder and a rename.

    `durable`: the temp file is flushed to disk (`fsync`) before the rename.
    """
    folder = path.parent if str(path.parent) else Path()
    payload = _encoded(path, data)
    try:
        handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OutputPathError(f"cannot write: {exc.strerror or exc}", source=path) from None
    temp = Path(temp_name)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(payload)
            file.flush()
            if durable:
                os.fsync(file.fileno())
        temp.chmod(_mode_for(path))
        temp.replace(path)
    except OSError as exc:
        temp.unlink(missing_ok=True)
        raise OutputPathError(f"cannot write: {exc.strerror or exc}", source=path) from None
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _encoded(path: Path, data: str | bytes) -> bytes:
    if isinstance(data, bytes):
        return data
    try:
        return data.encode("utf-8")
    except UnicodeEncodeError as exc:
        msg = f"cannot write text that is not valid Unicode (at character {exc.start})"
        raise OutputPathError(msg, source=path) from None


def _mode_for(path: Path) -> int:
    """The existing file's permissions, else what a plain `open()` would give (0o666 − umask)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
