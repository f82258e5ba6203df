"""How numbers read in every format: counts, money, durations, deltas and plurals."""

from __future__ import annotations

from collections.abc import Callable

from agentdiff.models.report import Delta

__all__ = [
    "DELTA_ROWS",
    "count",
    "format_delta",
    "ms",
    "pair",
    "plural",
    "usd",
]


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 step`, `2 steps`, `1,200 steps` (`many` for irregular plurals)."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def count(value: float) -> str:
    """A whole number with thousands separators."""
    return f"{value:,.0f}"


def usd(value: float) -> str:
    """Dollars: six decimals under a dollar, cents above."""
    return f"${value:.6f}" if abs(value) < 1 else f"${value:,.2f}"


def ms(value: float) -> str:
    """A duration: milliseconds, or seconds from 10 s up."""
    return f"{value:,.0f} ms" if abs(value) < 10_000 else f"{value / 1000:,.1f} s"  # noqa: PLR2004


DELTA_ROWS: tuple[tuple[str, str, Callable[[float], str]], ...] = (
    ("steps", "steps", count),
    ("tool_calls", "tool calls", count),
    ("llm_calls", "LLM calls", count),
    ("model_turns", "model turns", count),
    ("errors", "errors", count),
    ("prompt_tokens", "prompt tokens", count),
    ("completion_tokens", "completion tokens", count),
    ("total_tokens", "total tokens", count),
    ("cost_usd", "cost", usd),
    ("latency_ms", "latency", ms),
)
"""(field of `Deltas`, label, formatter) in display order."""


def format_delta(delta: Delta, fmt: Callable[[float], str]) -> tuple[str, str, str, str]:
    """`(baseline, candidate, change, percent)` as text; unknown values say `unknown`."""

    def show(value: float | None) -> str:
        return "unknown" if value is None else fmt(value)

    change = (
        "unknown" if delta.delta is None else ("+" if delta.delta > 0 else "") + fmt(delta.delta)
    )
    pct = "n/a" if delta.pct is None else f"{delta.pct:+.1f}%"
    return show(delta.baseline), show(delta.candidate), change, pct


def pair(base: float | None, cand: float | None, fmt: Callable[[float], str]) -> str:
    """One row's value on both sides: `12 ms`, or `10 → 12 ms` when they differ; '' unknown."""
    if base is None and cand is None:
        return ""
    if base is None or cand is None:
        return fmt(cand if cand is not None else base or 0)
    left, right = fmt(base), fmt(cand)
    if left == right:
        return right
    unit = left.rsplit(" ", 1)[1] if " " in left and " " in right else ""
    if unit and right.endswith(" " + unit):
        left = left[: -len(unit) - 1]
    return f"{left} → {right}"
