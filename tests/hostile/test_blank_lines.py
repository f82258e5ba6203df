"""Blank lines cost no Python work per line, and a gzip bomb of them stops at the ratio check.

A JSON Lines file (plain or gzip, canonical or OTLP) or a whole `.json` file read as JSON Lines
may hold any number of blank lines: they are skipped a chunk at a time, so the Python work of a
load does not grow with them (counted here as traced line events, not timed). A gzip file of
blank lines inflates past the bomb ratio and stops there, as a gzip `.json` does.
"""

from __future__ import annotations

import gzip
import sys
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentdiff
from agentdiff import load_trace, reading
from agentdiff.errors import TraceFormatError
from agentdiff.limits import Limits
from tests.realdata import REAL

from .helpers import SPEC, cli, refused

PACKAGE = str(Path(agentdiff.__file__).parent)
OTLP_LINES = next(iter(sorted(REAL.glob("openinference/*/baseline.otlp_jsonl.jsonl"))))
BLANKS = 50_000


def _python_lines(work: Callable[[], Any]) -> tuple[Any, int]:
    """What `work()` returns and how many lines of agentdiff's own code it ran."""
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        count += event == "line"
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename.startswith(PACKAGE) else None

    sys.settrace(calls)
    try:
        result = work()
    finally:
        sys.settrace(None)
    return result, count


def _padded(lines: list[bytes], blank: bytes) -> bytes:
    """The `lines`, each followed by `BLANKS` blank lines of `blank`."""
    return b"".join(line.rstrip(b"\n") + b"\n" + blank * BLANKS for line in lines)


def _canonical() -> list[bytes]:
    return [SPEC.read_bytes().replace(b"\n", b"")]


def _otlp() -> list[bytes]:
    return OTLP_LINES.read_bytes().splitlines()


@pytest.mark.parametrize(
    ("name", "lines", "packed"),
    [
        ("run.jsonl", _canonical, False),
        ("run.jsonl.gz", _canonical, True),
        ("spans.jsonl", _otlp, False),
        ("spans.jsonl.gz", _otlp, True),
        ("spans.json", _otlp, False),
    ],
)
@pytest.mark.parametrize("blank", [b"\n", b" \t\r\n"], ids=["empty", "whitespace"])
def test_blank_lines_cost_no_python_work_per_line(tmp_path, name, lines, packed, blank):
    def write(folder: str, blanks: bytes) -> Path:
        path = tmp_path / folder / name
        path.parent.mkdir()
        content = _padded(lines(), blanks)
        path.write_bytes(gzip.compress(content) if packed else content)
        return path

    plain, padded = write("plain", b""), write("padded", blank)
    expected, baseline = _python_lines(lambda: load_trace(plain))
    trace, work = _python_lines(lambda: load_trace(padded))
    assert trace.model_dump(exclude={"metadata"}) == expected.model_dump(exclude={"metadata"})
    assert work - baseline < 500, (work, baseline)  # not ~BLANKS per blank run


@pytest.mark.parametrize("name", ["blank.jsonl.gz", "blank.json.gz", "spans.jsonl.gz"])
def test_a_gzip_of_blank_lines_is_a_bomb(tmp_path, monkeypatch, name):
    """The bomb floor set low (1 MiB) and 8 MiB of blank lines: refused past the floor."""
    monkeypatch.setattr(reading, "BOMB_FLOOR", 1024**2)
    head = _otlp()[0] + b"\n" if name.startswith("spans") else b""
    bomb = tmp_path / name
    bomb.write_bytes(gzip.compress(head + b"\n" * 8 * 1024**2, compresslevel=9))
    refused(cli("inspect", bomb), name, "more than 500:1 (a gzip bomb?)", "gunzip")
    with pytest.raises(TraceFormatError, match="gzip bomb"):
        load_trace(bomb)


def test_blank_lines_with_noise_stop_at_the_input_limit(tmp_path):
    """Blank lines that keep under the bomb ratio still count toward the bytes inflated."""
    bomb = tmp_path / "noise.jsonl.gz"
    bomb.write_bytes(gzip.compress(b"\n" * 4 * 1024**2))
    refused(cli("inspect", bomb, "--max-input-size", "1MiB"), "noise.jsonl.gz", "inflates past")
    refused(cli("inspect", bomb), "noise.jsonl.gz", "file is empty")


def test_a_bad_line_after_blank_lines_is_named_by_its_number(tmp_path):
    target = tmp_path / "spans.jsonl"
    target.write_bytes(_canonical()[0] + b"\n" + b"\n \n" * 1_000_000 + b"{oops\n")
    refused(cli("inspect", target), "spans.jsonl", "line 2000002")


def test_lines_over_the_step_limit_are_refused(tmp_path):
    target = tmp_path / "many.jsonl"
    target.write_bytes(b'{"a": 1}\n\n\n' * 10)
    with pytest.raises(TraceFormatError, match="more than 5 JSON lines"):
        load_trace(target, limits=Limits(max_steps=5))


_TEXT = st.lists(st.sampled_from([b"\n", b" ", b"\t", b"\r", b"{", b"1", b"x"]), max_size=60)


@settings(max_examples=300, deadline=None)
@given(parts=_TEXT, cuts=st.lists(st.integers(0, 60), max_size=6))
def test_content_lines_are_the_non_blank_lines_whatever_the_chunks(parts, cuts):
    from agentdiff.reading import content_lines  # the rest runs without it

    data = b"".join(parts)
    bounds = [0, *sorted(min(cut, len(data)) for cut in cuts), len(data)]
    chunks = [data[a:b] for a, b in pairwise(bounds)]
    expected = [
        (number, line) for number, line in enumerate(data.split(b"\n"), start=1) if line.strip()
    ]
    got = list(content_lines(chunks))
    assert [number for number, _ in got] == [number for number, _ in expected]
    for (_, line), (_, whole) in zip(got, expected, strict=True):
        # the line itself, but for whitespace before a chunk boundary it started in
        assert whole.endswith(line)
        assert line.strip() == whole.strip()
        assert line == whole or len(chunks) > 1
