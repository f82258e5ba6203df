"""Numbers written so that they never read as something they are not.

A value rounded to the digits a report usually shows can read as its limit ("divergence 0.00
exceeds 0.00", "tokens up 25.0% (limit 25%)") or as nothing at all ("divergence 0.00" beside a
first divergence). `fixed` adds digits until it does neither.
"""

from __future__ import annotations

__all__ = ["fixed"]

_MOST = 6
"""The most decimals `fixed` adds; past them the shortest exact form (`repr`) is written."""


def fixed(value: float, digits: int, limit: float | None = None) -> str:
    """`value` with `digits` decimals, or more when fewer would read as `limit` or as zero.

    Zero is written with `digits` decimals; any other value never rounds to zero, and a value
    other than `limit` never rounds to the limit's own figure.
    """
    for places in range(digits, _MOST + 1):
        written = f"{value:.{places}f}"
        reads_as_limit = limit is not None and value != limit and written == f"{limit:.{places}f}"
        if not reads_as_limit and (value == 0 or float(written) != 0):
            return written
    return repr(value)
