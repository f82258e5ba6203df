"""Mutation fuzz over every real fixture: truncated files, dropped keys, swapped types and
extreme numbers load correctly or fail with an AgentDiffError (exit 2), never anything else
(an adapter bug is exit 3; the loader no longer hides one)."""

from __future__ import annotations

import contextlib
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentdiff.errors import AgentDiffError
from agentdiff.loader import load_trace, parse_trace_data, read_document

REAL = Path(__file__).parents[1] / "fixtures" / "real"
FILES = sorted(
    p for p in REAL.rglob("*.json*") if "facts" not in p.name and p.name != "manifest.json"
)
EXTREME: list[Any] = [1e308, -1e308, -1, 10**30, "9" * 40, "", None, [], {}, True, "x", 2**63]
TRIALS = 4


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


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REAL)))
def test_mutated_fixtures_load_or_fail_cleanly(path):
    rng = random.Random(path.name)
    document = read_document(path)
    for _ in range(TRIALS):
        with contextlib.suppress(AgentDiffError):
            parse_trace_data(_mutated(document, rng))


@pytest.mark.parametrize("path", FILES[::7], ids=lambda p: str(p.relative_to(REAL)))
def test_truncated_fixtures_fail_cleanly(tmp_path, path):
    raw = path.read_bytes()
    for cut in (len(raw) // 3, len(raw) - 2):
        target = tmp_path / path.name
        target.write_bytes(raw[:cut])
        with contextlib.suppress(AgentDiffError):
            load_trace(target)
