"""Baselines and recorded runs are forced to disk before the rename; command outputs are not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
