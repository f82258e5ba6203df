"""Timestamps as sources write them → aware UTC datetimes, ISO strings and durations.

Sources disagree: ISO 8601 with or without an offset (naive = UTC), epoch seconds, or epoch
nanoseconds (OTLP `*UnixNano`, often as strings). Callers say which unit they hold; nothing here
guesses a unit from a magnitude except `parse_timestamp`, whose guess is documented.

Neutral ground: the adapters read sources' times with it and the engine (`diff/`) reads step
times with it, so the engine never imports an adapter.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "duration_ms",
    "from_unix_nanos",
    "from_unix_seconds",
    "iso_utc",
    "parse_iso",
    "parse_timestamp",
    "timing_metadata",
    "wall_clock_ms",
]

_NANOS_PER_SECOND = 1_000_000_000
UTC = timezone.utc


def parse_iso(value: Any) -> datetime | None:
    """Parse an ISO 8601 string; a naive time is taken as UTC; `None` when it is not a time."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return _parse_compact(text)
    try:
        return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
    except OverflowError:  # an offset pushes it past year 1 or 9999: unknown
        return None


def _parse_compact(text: str) -> datetime | None:
    # LangSmith dotted_order style: 20250101T120000123456
    try:
        return datetime.strptime(text, "%Y%m%dT%H%M%S%f").replace(tzinfo=UTC)
    except ValueError:
        return None


def from_unix_nanos(value: Any) -> datetime | None:
    """Epoch nanoseconds (int or decimal string, as OTLP writes them); 0 or junk → `None`."""
    try:
        nanos = int(value)
    except (TypeError, ValueError):
        return None
    if nanos <= 0:
        return None
    seconds, rest = divmod(nanos, _NANOS_PER_SECOND)
    moment = _from_epoch(seconds)
    return moment.replace(microsecond=rest // 1000) if moment is not None else None


def _from_epoch(seconds: float) -> datetime | None:
    """The UTC moment, or `None` past the datetime range (year 9999): unknown, not a crash."""
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def from_unix_seconds(value: Any) -> datetime | None:
    """Epoch seconds (float allowed); junk → `None`."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    if math.isnan(seconds) or seconds <= 0:
        return None
    return _from_epoch(seconds)


def parse_timestamp(value: Any) -> datetime | None:
    """Best effort for fields whose unit is not fixed by the format.

    Strings are ISO 8601 unless they are all digits. Numbers above 1e17 are nanoseconds, above
    1e14 microseconds, above 1e11 milliseconds, else seconds.
    """
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, str) and not value.strip().lstrip("-").replace(".", "", 1).isdigit():
        return parse_iso(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    for threshold, scale in ((1e17, 1e9), (1e14, 1e6), (1e11, 1e3)):
        if abs(number) > threshold:
            return from_unix_seconds(number / scale)
    return from_unix_seconds(number)


def iso_utc(moment: datetime | None) -> str | None:
    """ISO 8601 UTC with a `Z`, microsecond precision; `None` stays `None`."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def duration_ms(start: datetime | None, end: datetime | None) -> float | None:
    """Milliseconds from `start` to `end`; `None` when either is unknown or the span is negative."""
    if start is None or end is None:
        return None
    ms = round((end - start).total_seconds() * 1000.0, 3)  # microsecond precision, no float noise
    return ms if ms >= 0 else None


def wall_clock_ms(
    starts: Iterable[datetime | None], ends: Iterable[datetime | None]
) -> float | None:
    """Milliseconds from the earliest known start to the latest known end; `None` if unknown."""
    first = min((s for s in starts if s is not None), default=None)
    last = max((e for e in ends if e is not None), default=None)
    return duration_ms(first, last)


def timing_metadata(start: datetime | None, end: datetime | None) -> dict[str, str]:
    """`{"started_at", "ended_at"}` for the keys that are known."""
    out: dict[str, str] = {}
    if start is not None:
        out["started_at"] = iso_utc(start) or ""
    if end is not None:
        out["ended_at"] = iso_utc(end) or ""
    return out
