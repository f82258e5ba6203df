"""Writing files without ever damaging one: outputs are checked, then written atomically.

`write_output_file(path, data, inputs=...)` creates a missing folder on the way (or says exactly
why it cannot); refuses to write over one of the command's own inputs, over a directory, a FIFO,
a device or a read-only file; writes `/dev/null` as is (nothing to replace); follows a symlink
to the file it names; and otherwise writes a temp file beside the target, then renames it over
the target, so a reader never sees half a file. Whatever fails, the temp file is removed and the
old file is left as it was. Command outputs (reports, converted traces) are not forced to disk
before the rename (an `fsync` of a 100,000-step JSON report costs a second or more on a busy
disk, and a report can be written again); `write_atomically` forces everything else (baselines,
recorded runs, suite results) unless told otherwise. Data given in parts (a large JSON report,
see `DiffReport.json_parts`) is written by a second thread, each part while the next is made.
"""

from __future__ import annotations

import os
import stat
import tempfile
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from queue import Queue
from typing import BinaryIO, TypeAlias

from agentdiff.errors import OutputPathError

__all__ = [
    "Data",
    "check_folder",
    "check_output_path",
    "make_folder",
    "write_atomically",
    "write_output_file",
]

Data: TypeAlias = str | bytes | Iterable[bytes | memoryview]
"""What a file gets: text (written as UTF-8), bytes, or bytes in parts (written in order)."""

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_AHEAD = 4
"""Parts made ahead of the writer at most (`_write_parts`): what waits in memory."""
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


def check_folder(path: Path) -> None:
    """Raise `OutputPathError` when the folder `path` goes in cannot be made (checked only).

    On its way is something that is not a folder; `make_folder` checks this, then creates it.
    """
    folder = path.parent
    if not str(folder) or folder.is_dir():
        return
    ancestor = next((a for a in (folder, *folder.parents) if a.exists() or a.is_symlink()), None)
    if ancestor is not None and not ancestor.is_dir():
        msg = f"cannot create the folder {folder}: {ancestor} exists and is not a folder"
        raise OutputPathError(msg, hint="choose another output path", source=path)


def make_folder(path: Path) -> None:
    """Create the folder `path` goes in (with its parents), or say exactly why it cannot be."""
    folder = path.parent
    if not str(folder) or folder.is_dir():
        return
    check_folder(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        msg = f"cannot create the folder {folder}: {exc.strerror or exc}"
        raise OutputPathError(msg, hint="choose another output path", source=path) from None


def write_output_file(
    path: Path, data: Data, inputs: Sequence[Path] = (), *, durable: bool = False
) -> None:
    """Write `data` to `path` after `check_output_path` (atomically, unless it is /dev/null).

    `durable`: forced to disk before the rename (`write_atomically`), for data that cannot be
    made again (a recorded run).
    """
    info = check_output_path(path, inputs)
    if info is not None and _is_null_device(info):
        if not isinstance(data, str | bytes):
            for _ in data:  # made and discarded, as a whole text given would have been
                pass
        return
    write_atomically(Path(os.path.realpath(path)), data, durable=durable)


def write_atomically(path: Path, data: Data, *, durable: bool = True) -> None:
    """Write `data` to `path` via a temp file in the same folder and a rename.

    `durable`: the temp file is flushed to disk (`fsync`) before the rename.
    """
    folder = path.parent if str(path.parent) else Path()
    payload = _encoded(path, data) if isinstance(data, str | bytes) else data
    try:
        handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OutputPathError(f"cannot write: {exc.strerror or exc}", source=path) from None
    temp = Path(temp_name)
    try:
        with os.fdopen(handle, "wb") as file:
            if isinstance(payload, bytes):
                file.write(payload)
            else:
                _write_parts(file, payload)
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


def _write_parts(file: BinaryIO, parts: Iterable[bytes | memoryview]) -> None:
    """Write `parts` in order, each by a writer thread while this one makes the next.

    Copying a large report into the page cache is system time (~0.1-0.5 s for 80 MB on a VM
    that faults in fresh memory from its host); a `write` releases the GIL, so on a second
    core it overlaps with making the parts. Whatever fails first (making a part, or writing
    one) is raised here, after the writer has stopped.
    """
    queue: Queue[bytes | memoryview | None] = Queue(maxsize=_AHEAD)
    failed: list[BaseException] = []
    writer = threading.Thread(target=_drain, args=(queue, file, failed), daemon=True)
    writer.start()
    try:
        for part in parts:
            if failed:
                break
            queue.put(part)
    finally:
        queue.put(None)
        writer.join()
    if failed:
        raise failed[0]


def _drain(
    queue: Queue[bytes | memoryview | None], file: BinaryIO, failed: list[BaseException]
) -> None:
    """The writer thread of `_write_parts`: after a failure it only empties the queue."""
    while (part := queue.get()) is not None:
        if failed:
            continue
        try:
            file.write(part)
        except BaseException as exc:  # noqa: BLE001 - handed to the making thread, raised there
            failed.append(exc)


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
