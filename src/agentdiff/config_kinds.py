"""The value kinds of configuration settings: how text (flags, env) and TOML values parse.

Text comes from flags and environment variables; values come from TOML files and Python
keyword arguments and must already have the right type (a TOML string is not a number). Number
kinds accept `"off"` (and `None` from Python) to switch a rule off; `bounded` kinds take only a
number in their range (the gate's thresholds, `'off'` too; `[stats]` numbers, never `'off'`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, get_args

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = [
    "FLAG",
    "GLOBS",
    "NAMES",
    "NUMBER",
    "PATTERNS",
    "Kind",
    "bounded",
    "choice",
    "model_bounded",
]

_OFF = "off"
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no"})


@dataclass(frozen=True)
class Kind:
    """How one kind of setting is read; parsers raise `ValueError`/`TypeError` on bad input."""

    expected: str
    """What a valid value looks like, for error messages."""
    metavar: str
    from_text: Callable[[str], object]
    from_value: Callable[[object], object]
    many: bool = False
    """True for list kinds: the CLI flag is repeatable."""


def _finite(number: float) -> float:
    if not math.isfinite(number):
        raise ValueError(number)
    return number


def _number_text(text: str) -> float | None:
    text = text.strip().lower()
    return None if text == _OFF else _finite(float(text))


def _number_value(value: object) -> float | None:
    if value is None or value == _OFF:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(value)
    return _finite(float(value))


def _flag_text(text: str) -> bool:
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE or word == _OFF:
        return False
    raise ValueError(text)


def _flag_value(value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(value)
    return value


def _globs_text(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _globs_value(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise TypeError(value)
    return tuple(value)


def _patterns_text(text: str) -> tuple[str, ...]:
    return _patterns_value([text])


def _patterns_value(value: object) -> tuple[str, ...]:
    patterns = _globs_value(value)
    for pattern in patterns:
        try:
            compiled = re.compile(pattern, re.DOTALL)
        except re.error as exc:
            raise ValueError(exc) from exc
        if compiled.fullmatch(""):
            msg = f"{pattern!r} matches the empty string"  # it would redact between characters
            raise ValueError(msg)
    return patterns


NUMBER = Kind("a number or 'off'", "N|off", _number_text, _number_value)
FLAG = Kind("true or false", "BOOL", _flag_text, _flag_value)
GLOBS = Kind("a list of path globs", "GLOB", _globs_text, _globs_value, many=True)
NAMES = Kind("a list of names", "NAME", _globs_text, _globs_value, many=True)
PATTERNS = Kind(
    "a list of valid regular expressions", "REGEX", _patterns_text, _patterns_value, many=True
)


def choice(*values: str) -> Kind:
    """One word out of `values` (case-insensitive from text; exact from TOML)."""

    def from_text(text: str) -> str:
        word = text.strip().lower()
        if word not in values:
            raise ValueError(text)
        return word

    def from_value(value: object) -> str:
        if not isinstance(value, str) or value not in values:
            raise TypeError(value)
        return value

    return Kind(" or ".join(repr(v) for v in values), "|".join(values), from_text, from_value)


def bounded(
    *,
    whole: bool = False,
    off: bool = False,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
) -> Kind:
    """A number (`whole`: an integer) within the bounds given; `'off'` too only when `off`.

    Its `expected` says the range ("a number from 0 to 1", "…, or 'off'"), so a bad value's
    message says what is allowed; NaN, infinities and numbers out of range are all refused
    alike, and so is `'off'` (or `None` from Python) where it is not allowed.
    """

    def check(number: float) -> None:
        if (
            not math.isfinite(number)
            or (ge is not None and number < ge)
            or (gt is not None and number <= gt)
            or (le is not None and number > le)
            or (lt is not None and number >= lt)
        ):
            raise ValueError(number)

    def from_text(text: str) -> float | None:
        if off and text.strip().lower() == _OFF:
            return None
        number = int(text.strip()) if whole else float(text.strip())
        check(number)
        return number

    def from_value(value: object) -> float | None:
        if off and (value is None or value == _OFF):
            return None
        if isinstance(value, bool) or not isinstance(value, int if whole else int | float):
            raise TypeError(value)
        number = value if whole else float(value)
        check(number)
        return number

    noun = "a whole number" if whole else "a number"
    expected = f"{noun} {_range(ge, gt, le, lt)}".rstrip()
    if off:
        expected += ", or 'off'" if expected != noun else " or 'off'"
    return Kind(expected, "N|off" if off else "N", from_text, from_value)


def model_bounded(model: type[BaseModel], name: str, *, off: bool = False) -> Kind:
    """`bounded` with the type and range of `model`'s number field `name` (`ge`, `le`...).

    A range is declared once, on its model's field; settings and checks read it from there.
    """
    info = model.model_fields[name]
    bounds = {
        key: getattr(rule, key)
        for rule in info.metadata
        for key in ("ge", "gt", "le", "lt")
        if hasattr(rule, key)
    }
    whole = int in (info.annotation, *get_args(info.annotation))
    return bounded(whole=whole, off=off, **bounds)


def _range(ge: float | None, gt: float | None, le: float | None, lt: float | None) -> str:
    """'from 0 to 1', 'above 0 and below 1', '0 or more'..."""
    if ge is not None and le is not None:
        return f"from {_shown(ge)} to {_shown(le)}"
    lower = f"above {_shown(gt)}" if gt is not None else None
    lower = f"of {_shown(ge)} or more" if ge is not None else lower
    upper = f"below {_shown(lt)}" if lt is not None else None
    upper = f"of at most {_shown(le)}" if le is not None else upper
    return " and ".join(part for part in (lower, upper) if part)


def _shown(bound: float) -> str:
    """A bound as people read it: `1,000`, `0.5`; a 64-bit limit as `2**63-1`, not 19 digits."""
    if not isinstance(bound, int):
        return f"{bound:,g}"
    power = (bound + 1).bit_length() - 1
    if bound > 2**32 and bound + 1 == 2**power:
        return f"2**{power}-1"
    return f"{bound:,}"
