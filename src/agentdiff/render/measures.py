"""How numbers read in every format: counts, money, durations, deltas and plurals."""

from __future__ import annotations

from typing import Protocol

from agentdiff.models.report import CostCoverage, Delta, TokenCoverage

__all__ = [
    "DELTA_ROWS",
    "MAX_PLACES",
    "Formatter",
    "count",
    "folded",
    "format_delta",
    "ms",
    "pair",
    "partly",
    "plural",
    "usd",
]


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 step`, `2 steps`, `1,200 steps` (`many` for irregular plurals)."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def folded(steps: int | None) -> str:
    """` (9 framework steps folded)` after a step count that folding made smaller, else ``.

    `steps`: `Summary.folded_framework_steps` (`None` when folding was off, 0 when nothing was
    folded: the count is the run's own then, and nothing is said).
    """
    return f" ({plural(steps, 'framework step')} folded)" if steps else ""


def partly(coverage: CostCoverage | TokenCoverage | None) -> str:
    """` (4 of 5 model turns priced)` when a total covers only some of the model turns."""
    return f" ({coverage})" if coverage is not None and coverage.partial else ""


class Formatter(Protocol):
    """Shows a number as text, with `places` more decimals than it shows by default."""

    def __call__(self, value: float, places: int = 0, /) -> str:
        """`value` as text."""


def count(value: float, places: int = 0) -> str:
    """A whole number with thousands separators."""
    return f"{value:,.{places}f}"


def usd(value: float, places: int = 0) -> str:
    """Dollars: six decimals under a dollar, cents above; the sign before the `$` (`-$0.25`)."""
    sign = "-" if value < 0 else ""
    if abs(value) < 1:
        return f"{sign}${abs(value):.{6 + places}f}"
    return f"{sign}${abs(value):,.{2 + places}f}"


def ms(value: float, places: int = 0) -> str:
    """A duration: milliseconds, or seconds (one decimal) from 10 s up."""
    if abs(value) < 10_000:  # noqa: PLR2004
        return f"{value:,.{places}f} ms"
    return f"{value / 1000:,.{1 + places}f} s"


MAX_PLACES = 3
"""Most decimals added to keep shown values and their difference consistent."""


DELTA_ROWS: tuple[tuple[str, str, Formatter], ...] = (
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


def format_delta(delta: Delta, fmt: Formatter) -> tuple[str, str, str, str]:
    """`(baseline, candidate, change, percent)` as text; unknown values say `unknown`.

    The shown change is the difference of the shown values, and not zero unless nothing
    changed: where rounding would break that (12.6 and 13.4 ms read `13 ms → 13 ms, +1 ms`),
    all three get more decimals (`12.6 ms → 13.4 ms, +0.8 ms`), up to `MAX_PLACES`; past that
    the change shown is the difference of the shown values.
    """
    base, cand, change = delta.baseline, delta.candidate, delta.delta
    pct = "n/a" if delta.pct is None else f"{delta.pct:+.1f}%"
    if base is None or cand is None or change is None:
        shown = [("unknown" if v is None else fmt(v)) for v in (base, cand, change)]
        if change is not None:
            shown[2] = _signed(fmt(change))
        return shown[0], shown[1], shown[2], pct
    for places in range(MAX_PLACES + 1):
        left, right, moved = fmt(base, places), fmt(cand, places), fmt(change, places)
        step = _number(moved)
        if _same(_number(right) - _number(left), step) and (step != 0 or change == 0):
            return left, right, _signed(moved), pct
    derived = _number(right) - _number(left)
    for places in range(MAX_PLACES, MAX_PLACES + _EXACT):  # a change in larger units (s) needs more
        moved = fmt(derived, places)
        if _same(_number(moved), derived):
            break
    return left, right, _signed(moved), pct


_EXACT = 6
"""Decimals tried past `MAX_PLACES` to show the difference of two shown values exactly."""


def _signed(shown: str) -> str:
    """A change with its sign: `+3`, `-3`, `0` (a shown zero carries no sign)."""
    if _number(shown) == 0:
        return shown.replace("-", "", 1)
    return shown if shown.startswith("-") or "-" in shown[:2] else "+" + shown


def _number(shown: str) -> float:
    """The number a formatter showed (`1,200 ms`, `12.5 s` → 12500, `-$0.25`)."""
    digits = shown.replace("$", "").replace(",", "").replace("+", "")
    if digits.endswith(" ms"):
        return float(digits[:-3])
    if digits.endswith(" s"):
        return float(digits[:-2]) * 1000
    return float(digits)


def _same(a: float, b: float) -> bool:
    """Equal but for float noise (differences of shown decimals are not exact in binary)."""
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def pair(base: float | None, cand: float | None, fmt: Formatter) -> str:
    """One row's value on both sides: `12 ms`, or `10 → 12 ms` when they read differently.

    No change is claimed here, so values that round alike read as one (each side's value is
    true to the digits shown); `format_delta` adds decimals where it shows a change.
    """
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
