"""Canonical trace steps as JSON dicts: the route tests' hand-made runs are built of them."""

from __future__ import annotations

from typing import Any


def step(
    i: int,
    kind: str,
    name: str,
    parent: int | None = None,
    *,
    tokens: int | None = None,
    payload: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Step `s{i}` (index `i`) under step `s{parent}`, with `tokens` total tokens when given.

    Its input payload is `payload`, else `{"q": name, "i": i}`.
    """
    return {
        "step_id": f"s{i}",
        "step_index": i,
        "step_type": kind,
        "name": name,
        "parent_id": None if parent is None else f"s{parent}",
        "input_payload": {"q": name, "i": i} if payload is None else payload,
        "tokens": None if tokens is None else {"total_tokens": tokens},
    }
