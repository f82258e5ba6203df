"""Bounded reading of trace files: regular files only, bytes capped, gzip inflated as a stream.

`open_trace_file` and `read_file` refuse what is not a regular file (a directory, a FIFO, a
device such as `/dev/zero`, a socket) before reading a byte; FIFOs are opened non-blocking so
they cannot hang the command. `read_file` reads at most `Limits.max_input_size` bytes and, for
gzip (recognised by its magic bytes, whatever the name), inflates chunk by chunk and stops as
soon as the output passes the same limit — or, past 64 MiB, as soon as it has inflated more
than 500 bytes per byte read (a gzip bomb), so a bomb costs little time and memory.
`iter_lines` streams JSON Lines with the same accounting. Within `read_ahead(paths, limits)`,
those files are read by background threads (a read releases the GIL), and `read_file` of one
gives what its thread read, or raises what it raised.
"""

from __future__ import annotations

import gzip
import os
import stat
import threading
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

from agentdiff.errors import TraceFileError, TraceFormatError
from agentdiff.limits import Limits

__all__ = [
    "GZIP_MAGIC",
    "SIZE_HINT",
    "is_gzip",
    "iter_lines",
    "open_trace_file",
    "read_ahead",
    "read_file",
]

GZIP_MAGIC = b"\x1f\x8b"
SIZE_HINT = "raise the limit with --max-input-size SIZE or AGENTDIFF_MAX_INPUT_SIZE"
_CHUNK = 1 << 20
BOMB_FLOOR = 64 << 20
"""Past this many inflated bytes, a gzip file must keep under `BOMB_RATIO`."""
BOMB_RATIO = 500
"""Inflated to compressed bytes: trace JSON compresses 5–50:1, a crafted bomb ~1,000:1 (the
most DEFLATE reaches), so a bomb stops after `BOMB_FLOOR` bytes, not at the size limit."""
_Source = IO[bytes] | gzip.GzipFile
_GZIP_ERRORS = (OSError, EOFError, zlib.error)
_FOLDER_HINT = (
    "to compare folders of runs use `agentdiff suite` or `agentdiff compare-runs`; "
    "otherwise pass one trace file"
)


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def open_trace_file(path: Path, limits: Limits) -> IO[bytes]:
    """`path` opened for reading, after checking it is a regular file within the size limit."""
    fd, _ = _open_checked(path, limits)
    return open(fd, "rb")  # noqa: PTH123 - a file descriptor, not a path


def _open_checked(path: Path, limits: Limits) -> tuple[int, int]:
    """A descriptor of `path` (a regular file within the size limit) and the size it gives."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise TraceFileError("file not found", source=path) from None
    except OSError as exc:
        raise TraceFileError(f"cannot read file: {exc.strerror or exc}", source=path) from None
    try:
        info = os.fstat(fd)
        _check_regular(path, info, limits)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, info.st_size


def _check_regular(path: Path, info: os.stat_result, limits: Limits) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise TraceFileError("is a directory, not a trace file", hint=_FOLDER_HINT, source=path)
    if not stat.S_ISREG(info.st_mode):
        msg = f"is {_kind(info.st_mode)}, not a regular file; trace files must be regular files"
        raise TraceFileError(msg, source=path)
    if info.st_size > limits.max_input_size:
        raise _too_big(path, f"is {info.st_size:,} bytes", limits)


def _too_big(path: Path, what: str, limits: Limits) -> TraceFormatError:
    msg = f"{what}, past the input limit of {limits.max_input_size:,} bytes"
    return TraceFormatError(msg, hint=SIZE_HINT, source=path)


def is_gzip(stream: IO[bytes]) -> bool:
    """True when the stream starts with the gzip magic bytes (the position is kept)."""
    start = stream.tell()
    head = stream.read(2)
    stream.seek(start)
    return head == GZIP_MAGIC


def read_file(path: Path, limits: Limits) -> bytes:
    """All the bytes of `path` (inflated if gzip), or an error once they pass the limit.

    A plain file is read straight from its descriptor: a file object (made, sniffed for gzip
    and read through its buffer) cost twice the system calls and a tenth of loading a 50-step
    trace.
    """
    ahead = _READING.pop((path, limits), None) if _READING else None  # no key hashed if none
    if ahead is not None:
        return ahead.result()
    return _read_now(path, limits)


def _read_now(path: Path, limits: Limits) -> bytes:
    fd, size = _open_checked(path, limits)
    try:
        if os.pread(fd, len(GZIP_MAGIC), 0) != GZIP_MAGIC:
            return _read_plain(fd, size, path, limits)
        with open(fd, "rb", closefd=False) as stream:
            return _read_gzip(stream, path, limits)
    finally:
        os.close(fd)


def _read_gzip(stream: IO[bytes], path: Path, limits: Limits) -> bytes:
    chunks: list[bytes] = []
    total = 0
    with _inflating(stream, path) as inflated:
        while chunk := _gzip_read(inflated, path, _CHUNK):
            total += len(chunk)
            if total > limits.max_input_size:
                raise _too_big(path, "inflates past the limit", limits)
            if total > BOMB_FLOOR and total > BOMB_RATIO * max(stream.tell(), 1):
                raise _bomb(path, total, stream.tell())
            chunks.append(chunk)
    return b"".join(chunks)


def _read_plain(fd: int, size: int, path: Path, limits: Limits) -> bytes:
    """All the bytes of the plain file open as `fd`, or an error once they pass the limit.

    The first read asks for the file's `size` plus one byte, not for the limit: a read of the
    limit (2 GiB by default) reserves and releases that much memory each time. More is read,
    a chunk at a time up to the limit, only if the file grew since, gives no size (as files
    under /proc do) or the system returned less than asked.
    """
    parts = [os.read(fd, min(size, limits.max_input_size) + 1)]
    total = len(parts[0])
    while parts[-1] and total <= limits.max_input_size:
        parts.append(os.read(fd, min(limits.max_input_size + 1 - total, _CHUNK)))
        total += len(parts[-1])
    if total > limits.max_input_size:
        raise _too_big(path, "grew while being read", limits)
    return parts[0] if len(parts) == 2 else b"".join(parts)  # noqa: PLR2004 - the data, then EOF


def _bomb(path: Path, inflated: int, read: int) -> TraceFormatError:
    msg = (
        f"inflates {inflated:,} bytes from its first {read:,}, more than {BOMB_RATIO}:1 "
        "(a gzip bomb?)"
    )
    hint = "if the file is genuine, decompress it first (gunzip) and pass the plain file"
    return TraceFormatError(msg, hint=hint, source=path)


def iter_lines(stream: IO[bytes], path: Path, limits: Limits) -> Iterator[tuple[int, bytes]]:
    """`(line number, line)` of a (possibly gzip) JSON Lines stream, within the byte limit."""
    source: _Source = _inflating(stream, path) if is_gzip(stream) else stream
    what = "inflates past the limit" if source is not stream else "grew while being read"
    total = 0
    number = 0
    with source:
        while True:
            line = _gzip_read(source, path, limits.max_input_size - total + 1, lines=True)
            if not line:
                return
            number += 1
            total += len(line)
            if total > limits.max_input_size:
                raise _too_big(path, what, limits)
            yield number, line


def _inflating(stream: IO[bytes], path: Path) -> gzip.GzipFile:
    try:
        return gzip.GzipFile(fileobj=stream, mode="rb")
    except _GZIP_ERRORS as exc:  # pragma: no cover - GzipFile reads lazily
        raise TraceFormatError(f"not a valid gzip file: {exc}", source=path) from None


def _gzip_read(stream: _Source, path: Path, size: int, *, lines: bool = False) -> bytes:
    try:
        return stream.readline(size) if lines else stream.read(size)
    except _GZIP_ERRORS as exc:
        raise TraceFormatError(f"not a valid gzip file: {exc}", source=path) from None


class _Reading(threading.Thread):
    """One file being read by `read_ahead`: `result()` waits for its bytes or its error."""

    def __init__(self, path: Path, limits: Limits) -> None:
        super().__init__(name=f"agentdiff-read {path.name}", daemon=True)
        self.path, self.limits = path, limits
        self.data = b""
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.data = _read_now(self.path, self.limits)
        except BaseException as exc:  # noqa: BLE001 - raised by `result`, where it is read
            self.error = exc

    def result(self) -> bytes:
        self.join()
        if self.error is not None:
            raise self.error
        data, self.data = self.data, b""
        return data


_READING: dict[tuple[Path, Limits], _Reading] = {}
"""Files being read ahead, by path and limits, until `read_file` takes them."""


class read_ahead:  # noqa: N801 - used as a function: `with read_ahead(paths, limits):`
    """Within the block, read `paths` in background threads for `read_file` to take.

    `agentdiff compare` reads the candidate while the baseline is being decoded: the copy from
    the page cache (~0.05 s for 70 MB) then runs on another core. A file read twice in the
    block is read by `read_file` itself the second time; what the block did not take is
    dropped when it ends.
    """

    def __init__(self, paths: Sequence[Path], limits: Limits) -> None:
        self.keys = [(path, limits) for path in paths]

    def __enter__(self) -> None:
        for key in self.keys:
            if key not in _READING:
                _READING[key] = reading = _Reading(*key)
                reading.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        for key in self.keys:
            _READING.pop(key, None)
