"""Bounded reading of trace files: regular files only, bytes capped, gzip inflated as a stream.

`open_trace_file` and `read_file` refuse what is not a regular file (a directory, a FIFO, a
device such as `/dev/zero`, a socket) before reading a byte; FIFOs are opened non-blocking so
they cannot hang the command. `read_file` reads at most `Limits.max_input_size` bytes and, for
gzip (recognised by its magic bytes, whatever the name), inflates chunk by chunk and stops as
soon as the output passes the same limit — or, past 64 MiB, as soon as it has inflated more
than 500 bytes per byte read (a gzip bomb), so a bomb costs little time and memory.
`iter_lines` streams the non-blank lines of JSON Lines with the same accounting (and the same
bomb check), skipping blank lines in bulk. Within `read_ahead(paths, limits)`,
those files are read by background threads (a read releases the GIL), and `read_file` of one
gives what its thread read, or raises what it raised.
"""

from __future__ import annotations

import gzip
import os
import re
import stat
import threading
import zlib
from collections.abc import Generator, Iterable, Iterator, Sequence
from itertools import compress, count
from pathlib import Path
from types import TracebackType
from typing import IO

from agentdiff.errors import (
    ConfigError,
    InputLimitError,
    TraceFileError,
    TraceFormatError,
    TraceLoadError,
)
from agentdiff.limits import Limits

__all__ = [
    "GZIP_MAGIC",
    "SIZE_HINT",
    "content_lines",
    "hold",
    "is_gzip",
    "iter_lines",
    "open_trace_file",
    "read_ahead",
    "read_file",
    "read_input",
    "too_big",
]

GZIP_MAGIC = b"\x1f\x8b"
SIZE_HINT = "raise the limit with --max-input-size SIZE or AGENTDIFF_MAX_INPUT_SIZE"
_CHUNK = 1 << 20
BOMB_FLOOR = 64 << 20
"""Past this many inflated bytes, a gzip file must keep under `BOMB_RATIO`."""
BOMB_RATIO = 500
"""Inflated to compressed bytes: trace JSON compresses 5–50:1, a crafted bomb ~1,000:1 (the
most DEFLATE reaches), so a bomb stops after `BOMB_FLOOR` bytes, not at the size limit."""
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
        msg = f"is {_kind(info.st_mode)}, not a regular file; only regular files are read"
        raise TraceFileError(msg, source=path)
    if info.st_size > limits.max_input_size:
        raise too_big(path, f"is {info.st_size:,} bytes", limits)


def too_big(path: Path | str, what: str, limits: Limits) -> InputLimitError:
    """The error for input (`what`: how it passed) over `limits.max_input_size`."""
    msg = f"{what}, past the input limit of {limits.max_input_size:,} bytes"
    return InputLimitError(msg, hint=SIZE_HINT, source=path)


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


def read_head(path: Path, limits: Limits, size: int) -> bytes:
    """The first `size` bytes of `path` (inflated if gzip), read as a trace is opened.

    Only a regular file within the input limit is opened (a FIFO or a device is refused, never
    waited on): for a look at how a file starts before it is read whole.
    """
    fd, _ = _open_checked(path, limits)
    try:
        head = os.pread(fd, size, 0)
        if not head.startswith(GZIP_MAGIC):
            return head
        with open(fd, "rb", closefd=False) as stream:
            return _gzip_head(stream, path, size)
    finally:
        os.close(fd)


def read_input(path: Path, what: str, hint: str | None = None) -> bytes:
    """The bytes of `path`, an input that is no trace (a manifest, a saved report).

    It is read as a trace is: a regular file within the input limit (`Limits.resolve()`), gzip
    inflated. Anything else is a `ConfigError` "cannot read {what}: …" naming the file: a FIFO or a
    device such as `/dev/zero` never hangs the command or fills the memory.
    """
    try:
        return read_file(path, Limits.resolve())
    except TraceLoadError as exc:
        msg = f"cannot read {what}: {exc.message}"
        own = None if exc.hint == _FOLDER_HINT else exc.hint  # that one is for trace files
        raise ConfigError(msg, hint=own or hint, source=path) from None


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
    return b"".join(_inflated_chunks(stream, path, limits))


def _inflated_chunks(stream: IO[bytes], path: Path, limits: Limits) -> Iterator[bytes]:
    """The inflated bytes of the gzip `stream`, a chunk at a time, within the size and ratio."""
    total = 0
    with _inflating(stream, path) as inflated:
        while chunk := _gzip_read(inflated, path, _CHUNK):
            total += len(chunk)
            if total > limits.max_input_size:
                raise too_big(path, "inflates past the limit", limits)
            if total > BOMB_FLOOR and total > BOMB_RATIO * max(stream.tell(), 1):
                raise _bomb(path, total, stream.tell())
            yield chunk


def _plain_chunks(stream: IO[bytes], path: Path, limits: Limits) -> Iterator[bytes]:
    total = 0
    while chunk := stream.read(_CHUNK):
        total += len(chunk)
        if total > limits.max_input_size:
            raise too_big(path, "grew while being read", limits)
        yield chunk


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
        raise too_big(path, "grew while being read", limits)
    return parts[0] if len(parts) == 2 else b"".join(parts)  # noqa: PLR2004 - the data, then EOF


def _bomb(path: Path, inflated: int, read: int) -> InputLimitError:
    msg = (
        f"inflates {inflated:,} bytes from its first {read:,}, more than {BOMB_RATIO}:1 "
        "(a gzip bomb?)"
    )
    hint = "if the file is genuine, decompress it first (gunzip) and pass the plain file"
    return InputLimitError(msg, hint=hint, source=path)


def iter_lines(stream: IO[bytes], path: Path, limits: Limits) -> Iterator[Line]:
    """`(line number, line)` of each non-blank line of a (possibly gzip) JSON Lines stream.

    Read a chunk at a time within the byte limit (and, for gzip, the bomb ratio), so blank
    input costs no Python work per line: see `content_lines`.
    """
    if is_gzip(stream):
        return content_lines(_inflated_chunks(stream, path, limits))
    return content_lines(_plain_chunks(stream, path, limits))


Line = tuple[int, bytes]
"""A line of a JSON Lines file: its number (from 1) and its bytes, without the newline."""
_CONTENT = re.compile(rb"\S")
"""A byte that is not ASCII whitespace: what makes a line non-blank (as `bytes.strip` sees it)."""
_BLANK_RUN = re.compile(rb"\n(?:[^\S\n]*+\n){16,}")
"""The end of a line followed by 16 or more blank lines (empty or only whitespace): a run
skipped by a regex search rather than split into lines (shorter ones are filtered in C)."""


def content_lines(chunks: Iterable[bytes]) -> Iterator[Line]:
    """`(line number, line)` of each line of `chunks` that is not blank, without its newline.

    Each chunk's complete lines are read by `_lines_in`; the last, unfinished line waits for
    the next chunk (dropped while it is only whitespace: a line of spaces never piles up, and
    a content line keeps no leading whitespace read in an earlier chunk). A line longer than a
    chunk is joined once, when its end arrives.
    """
    number = 1
    tail: list[bytes] = []
    for chunk in chunks:
        start = 0
        if tail:
            start = chunk.find(b"\n") + 1
            if not start:
                tail.append(chunk)
                continue
            line, tail = b"".join([*tail, chunk[: start - 1]]), []
            yield number, line
            number += 1
        cut = chunk.rfind(b"\n", start)
        if cut >= 0:
            number = yield from _lines_in(chunk, start, cut, number)
        rest = chunk[cut + 1 :] if cut >= 0 else chunk[start:]
        tail = [rest] if _CONTENT.search(rest) else []
    if tail:
        yield number, b"".join(tail)


def _lines_in(text: bytes, start: int, stop: int, number: int) -> Generator[Line, None, int]:
    """The non-blank lines of `text[start:stop]` (`text[stop]` a newline); the next number.

    The first line of `text[start:stop]` is numbered `number`.
    Runs of blank lines are skipped by regex searches and counted with `bytes.count`; the
    lines between them are split and filtered in C (`compress`): a file of a billion blank
    lines costs a scan, not a billion Python steps.
    """
    while found := _CONTENT.search(text, start, stop):
        begin = max(text.rfind(b"\n", start, found.start()) + 1, start)
        number += text.count(b"\n", start, begin)
        gap = _BLANK_RUN.search(text, found.end(), stop + 1)
        end = gap.start() if gap else stop
        block = text[begin:end].split(b"\n")
        yield from compress(zip(count(number), block, strict=False), map(bytes.strip, block))
        number, start = number + len(block), end + 1
    return number + text.count(b"\n", start, stop + 1)


def _inflating(stream: IO[bytes], path: Path) -> gzip.GzipFile:
    try:
        return gzip.GzipFile(fileobj=stream, mode="rb")
    except _GZIP_ERRORS as exc:  # pragma: no cover - GzipFile reads lazily
        raise TraceFormatError(f"not a valid gzip file: {exc}", source=path) from None


def _gzip_head(stream: IO[bytes], path: Path, size: int) -> bytes:
    """The first `size` inflated bytes of the gzip `stream` (fewer when it holds fewer)."""
    with _inflating(stream, path) as inflated:
        return _gzip_read(inflated, path, size)


def _gzip_read(stream: gzip.GzipFile, path: Path, size: int) -> bytes:
    try:
        return stream.read(size)
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


class _Held:
    """A file's bytes read already (`hold`), for `read_file` to take."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def result(self) -> bytes:
        data, self.data = self.data, b""
        return data


def hold(path: Path, limits: Limits, data: bytes) -> None:
    """Have the next `read_file(path, limits)` take `data` (read by the caller) from memory.

    For a file read before the process forks (`cli.side_ahead`): both processes then load the
    same bytes, whatever happens to the file meanwhile.
    """
    _READING[(path, limits)] = _Held(data)


_READING: dict[tuple[Path, Limits], _Reading | _Held] = {}
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
