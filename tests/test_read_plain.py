"""Plain files are read with a buffer sized from the file, and still never past the limit."""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Any

import pytest

from agentdiff.errors import TraceFormatError
from agentdiff.limits import Limits
from agentdiff.reading import read_file


def _read(path: Path, limits: Limits) -> bytes:
    return read_file(path, limits)


def _reporting(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    """`os.fstat` in the reader says the file holds `size` bytes (as if it grew after)."""
    real = os.fstat

    def fstat(fd: int) -> Any:
        info = real(fd)
        fields = list(info)
        fields[6] = size  # st_size
        return os.stat_result(fields)

    monkeypatch.setattr(os, "fstat", fstat)


def test_a_plain_file_reads_whole(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    for content in (b"", b"{}", b"x" * 100_000):
        path.write_bytes(content)
        assert _read(path, Limits()) == content


def test_a_file_that_grew_since_its_size_was_read_reads_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(b"y" * 50_000)
    _reporting(monkeypatch, 10)
    assert _read(path, Limits()) == b"y" * 50_000


def test_a_file_that_grew_past_the_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(b"z" * 5_000)
    _reporting(monkeypatch, 10)
    with pytest.raises(TraceFormatError, match="grew while being read"):
        _read(path, Limits(max_input_size=4_999))
    assert _read(path, Limits(max_input_size=5_000)) == b"z" * 5_000


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_a_file_that_gives_no_size_reads_whole() -> None:
    path = Path("/proc/self/status")
    assert path.stat().st_size == 0
    assert b"Name:" in _read(path, Limits())


def test_a_file_the_system_returns_in_pieces_reads_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(bytes(range(256)) * 40)
    real = os.read
    monkeypatch.setattr(os, "read", lambda fd, size: real(fd, min(size, 777)))
    assert _read(path, Limits()) == bytes(range(256)) * 40
    _reporting(monkeypatch, 10)
    with pytest.raises(TraceFormatError, match="grew while being read"):
        _read(path, Limits(max_input_size=10_239))
    assert _read(path, Limits(max_input_size=10_240)) == bytes(range(256)) * 40


def test_a_gzip_file_reads_inflated_and_its_descriptor_is_closed(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(gzip.compress(b'{"a": 1}' * 1_000))
    fds = Path("/proc/self/fd")
    before = len(list(fds.iterdir())) if fds.exists() else None
    for _ in range(20):
        assert _read(path, Limits()) == b'{"a": 1}' * 1_000
    path.write_bytes(b"plain")
    assert _read(path, Limits()) == b"plain"
    if before is not None:
        assert len(list(fds.iterdir())) == before
