"""Files read ahead in background threads: the same bytes, the same errors, nothing left over."""

from __future__ import annotations

import gzip
import threading
from pathlib import Path

import pytest

from agentdiff import reading
from agentdiff.errors import TraceFileError, TraceFormatError
from agentdiff.limits import Limits
from agentdiff.loader import load_trace, reading_ahead
from agentdiff.reading import read_ahead, read_file

REFERENCE = Path(__file__).parent / "fixtures" / "reference"


def _threads_reading() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("agentdiff-read")]


def test_a_file_read_ahead_gives_the_same_bytes_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, packed = tmp_path / "a.json", tmp_path / "b.json.gz"
    plain.write_bytes(b'{"x": 1}' * 50_000)
    packed.write_bytes(gzip.compress(b'{"y": 2}'))
    reads: list[Path] = []
    real = reading._read_now

    def counted(path: Path, limits: Limits) -> bytes:
        reads.append(path)
        return real(path, limits)

    monkeypatch.setattr(reading, "_read_now", counted)
    with read_ahead([plain, packed], Limits()):
        assert read_file(packed, Limits()) == b'{"y": 2}'
        assert read_file(plain, Limits()) == plain.read_bytes()
        assert sorted(reads) == [plain, packed]  # by the threads
        assert read_file(plain, Limits()) == plain.read_bytes()  # a second time: read again
        assert reads.count(plain) == 2
    assert reading._READING == {}
    assert _threads_reading() == []


@pytest.mark.parametrize("kind", ["missing", "directory", "too big"])
def test_an_error_while_reading_ahead_is_raised_where_the_file_is_read(
    tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "trace.json"
    if kind == "directory":
        path.mkdir()
    elif kind == "too big":
        path.write_bytes(b"x" * 100)
    limits = Limits(max_input_size=10)
    with pytest.raises((TraceFileError, TraceFormatError)) as direct:
        read_file(path, limits)
    with read_ahead([path], limits), pytest.raises(type(direct.value)) as ahead:
        read_file(path, limits)
    assert str(ahead.value) == str(direct.value)


def test_what_the_block_did_not_take_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(b"{}")
    with read_ahead([path], Limits()):
        pass
    assert reading._READING == {}
    with read_ahead([path], Limits()):  # other limits: not what was read ahead
        assert read_file(path, Limits(max_input_size=1_000)) == b"{}"
        assert list(reading._READING) == [(path, Limits())]


def test_load_trace_takes_the_file_read_ahead_and_json_lines_are_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = load_trace(REFERENCE / "otlp_json" / "extra_tool_detour" / "candidate.json")
    canonical, lines = tmp_path / "trace.json", tmp_path / "trace.jsonl"
    canonical.write_text(trace.model_dump_json(indent=2))
    lines.write_text(trace.model_dump_json() + "\n")
    expected = load_trace(canonical), load_trace(lines)
    with reading_ahead([canonical, lines], Limits()):
        assert list(reading._READING) == [(canonical, Limits())]
        got = load_trace(canonical, limits=Limits()), load_trace(lines, limits=Limits())
        assert reading._READING == {}
    assert [t.model_dump() for t in got] == [t.model_dump() for t in expected]
