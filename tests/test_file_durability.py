"""Baselines and recorded runs are forced to disk before the rename; command outputs are not."""

from __future__ import annotations

import errno
import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentdiff.errors import OutputPathError
from agentdiff.files import write_atomically, write_output_file


def _fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    return calls


def test_write_atomically_forces_the_data_to_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _fsyncs(monkeypatch)
    write_atomically(tmp_path / "baseline.json", "{}")
    assert len(calls) == 1
    assert (tmp_path / "baseline.json").read_text() == "{}"


def test_a_command_output_is_replaced_atomically_without_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _fsyncs(monkeypatch)
    target = tmp_path / "report.json"
    target.write_text("old")
    write_output_file(target, b'{"report_version": "2"}\n')
    assert calls == []
    assert target.read_bytes() == b'{"report_version": "2"}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


# --- data in parts (a large JSON report): written by a second thread, in order ------------------


def test_parts_are_written_in_order_and_replace_the_file(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")
    parts = [b"{", memoryview(b'"a": 1'), *(b", %d" % i for i in range(500)), b"}\n"]
    write_output_file(target, iter(parts))
    assert target.read_bytes() == b"".join(parts)
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_parts_that_fail_to_be_made_leave_the_old_file_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")

    def parts() -> Iterator[bytes]:
        yield b"{" * 100_000
        msg = "the renderer broke"
        raise RuntimeError(msg)

    with pytest.raises(RuntimeError, match="renderer broke"):
        write_output_file(target, parts())
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_a_part_that_fails_to_be_written_is_a_clean_error_and_stops_the_making(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk while the writer thread writes: an `OutputPathError`, nothing more made."""
    target = tmp_path / "report.json"
    target.write_text("old")
    made: list[int] = []

    def parts() -> Iterator[bytes]:
        for i in range(1000):
            made.append(i)
            yield b"x" * 1000

    real_fdopen = os.fdopen

    class FullDisk(io.BufferedWriter):
        def write(self, data: object) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def fdopen(fd: int, mode: str) -> io.BufferedWriter:
        return FullDisk(real_fdopen(fd, mode, buffering=0))  # type: ignore[arg-type]

    monkeypatch.setattr(os, "fdopen", fdopen)
    with pytest.raises(OutputPathError, match="No space left on device"):
        write_output_file(target, parts())
    assert len(made) < 1000
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_parts_for_dev_null_are_made_and_discarded() -> None:
    made: list[int] = []

    def parts() -> Iterator[bytes]:
        made.append(1)
        yield b"{}"

    write_output_file(Path(os.devnull), parts())
    assert made == [1]
