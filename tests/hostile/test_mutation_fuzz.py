"""Mutation fuzz over every real fixture: truncated files, dropped keys, swapped types and
extreme numbers load correctly or fail with an AgentDiffError (exit 2), never anything else
(an adapter bug is exit 3; the loader no longer hides one).

A failure is one line that names the file and, when the adapter read a value of the wrong type
or shape, the JSON path of that value (`spans[3].attributes.llm.token_count.prompt: expected a
token count, got "abc"`). Only errors about the document as a whole (no adapter claims it, it
holds several traces, it holds no steps) need no path; they are listed in `WHOLE_DOCUMENT`.

`AGENTDIFF_FUZZ_TRIALS` (mutations per file, default 4) and `AGENTDIFF_FUZZ_SEED` (default "")
run more or other mutations: `AGENTDIFF_FUZZ_TRIALS=200 AGENTDIFF_FUZZ_SEED=x pytest ...`.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentdiff.errors import AgentDiffError, MultipleTracesError, UnknownFormatError
from agentdiff.loader import load_trace, read_document

REAL = Path(__file__).parents[1] / "fixtures" / "real"
FILES = sorted(
    p
    for p in REAL.rglob("*.json*")
    if "facts" not in p.name and p.name not in ("manifest.json", "canonical.sha256.json")
)
EXTREME: list[Any] = [1e308, -1e308, -1, 10**30, "9" * 40, "", None, [], {}, True, "x", 2**63]
TRIALS = int(os.environ.get("AGENTDIFF_FUZZ_TRIALS", "4"))
SEED = os.environ.get("AGENTDIFF_FUZZ_SEED", "")

_NAME = r"[A-Za-z_$@][\w$@\-]*"
_INDEX = r'\[(?:\d+|"[^"]*")\]'
JSON_PATH = re.compile(rf"^(?:\$|(?:{_NAME}|{_INDEX})(?:\.{_NAME}|{_INDEX})*): \S")
"""A message that opens with the JSON path of what is wrong (`data[3].usage.input: ...`)."""
WHOLE_DOCUMENT = re.compile(
    r"^(?:the document holds (?:\d+ traces|no spans)"
    r"|a Codex rollout with no session_meta and no items"
    r"|a Claude Code transcript with no user or assistant records"
    r"|expected \{trace, spans\}"
    r"|not a Langfuse document"
    r"|the trace has no steps"
    r")"
)
"""Errors about the document as a whole: they need no path."""


def _slots(document: Any) -> list[tuple[Any, Any]]:
    found, stack = [], [document]
    while stack:
        node = stack.pop()
        pairs = (
            node.items()
            if isinstance(node, dict)
            else enumerate(node)
            if isinstance(node, list)
            else ()
        )
        for key, value in pairs:
            found.append((node, key))
            stack.append(value)
    return found


def _mutated(document: Any, rng: random.Random) -> Any:
    copy = orjson.loads(orjson.dumps(document))
    slots = _slots(copy)
    for _ in range(rng.choice((1, 1, 3))):
        if not slots:
            break
        parent, key = rng.choice(slots)
        if isinstance(parent, dict) and rng.random() < 0.35:
            parent.pop(key, None)
        else:
            with contextlib.suppress(IndexError):
                parent[key] = rng.choice(EXTREME)
    return copy


def _encoded(value: Any) -> bytes:
    """JSON text; integers past 64 bits (which orjson refuses) through the standard library."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value).encode()


def _write(target: Path, document: Any, like: Path) -> None:
    """`document` as a file of the same kind as `like` (JSON Lines stay one record a line)."""
    if like.suffix == ".jsonl":
        rows = document if isinstance(document, list) else [document]
        target.write_bytes(b"\n".join(_encoded(row) for row in rows))
    else:
        target.write_bytes(_encoded(document))


def check_clean_failure(error: AgentDiffError, file: Path) -> None:
    """One line, naming the file, and (unless it is about the whole document) a JSON path."""
    text = str(error)
    assert "\n" not in text, text
    assert text.startswith(f"{file}: "), text
    if isinstance(error, (UnknownFormatError, MultipleTracesError)):
        return
    assert JSON_PATH.match(error.message) or WHOLE_DOCUMENT.match(error.message), error.message


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REAL)))
def test_mutated_fixtures_load_or_fail_cleanly(tmp_path: Path, path: Path) -> None:
    rng = random.Random(SEED + path.name)
    document = read_document(path)
    target = tmp_path / path.name
    for _ in range(TRIALS):
        _write(target, _mutated(document, rng), path)
        try:
            load_trace(target)
        except AgentDiffError as error:
            check_clean_failure(error, target)


@pytest.mark.parametrize("path", FILES[::7], ids=lambda p: str(p.relative_to(REAL)))
def test_truncated_fixtures_fail_cleanly(tmp_path: Path, path: Path) -> None:
    raw = path.read_bytes()
    for cut in (len(raw) // 3, len(raw) - 2):
        target = tmp_path / path.name
        target.write_bytes(raw[:cut])
        with contextlib.suppress(AgentDiffError):
            load_trace(target)
