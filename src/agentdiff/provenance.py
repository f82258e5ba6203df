"""Who blessed a baseline, when, from which commit and why; and how old a baseline is.

Every baseline AgentDiff writes carries a `Provenance` record in `trace.metadata["provenance"]`
(see `agentdiff.baselines.save_baseline`). `approved_by` is the git identity (`user.name
<user.email>`), else `$GITHUB_ACTOR`, else the login name; `commit` is `git rev-parse HEAD` of the
repository holding the baseline (with `dirty` when tracked files had uncommitted changes), `None`
outside git.

A baseline's age (`baseline_time`) is its provenance time, else the earliest start time of its
steps; never the file's modification time, which a checkout resets.
"""

from __future__ import annotations

import getpass
import os
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from agentdiff.models.trace import AgentTrace
from agentdiff.timeparse import parse_iso

__all__ = ["PROVENANCE_KEY", "Provenance", "baseline_time", "provenance_of", "stale_warning"]

PROVENANCE_KEY = "provenance"
_GIT_TIMEOUT_S = 10


class Provenance(BaseModel):
    """One approval of a baseline."""

    model_config = ConfigDict(frozen=True, extra="allow")

    approved_at: str
    """ISO 8601 UTC."""
    approved_by: str
    via: str
    """`agentdiff approve`, `agentdiff compare --update-baseline` or the pytest plugin."""
    commit: str | None = None
    dirty: bool | None = None
    reason: str | None = None
    candidate: str | None = None
    """The candidate file that was approved, when it came from a file."""
    previous: dict[str, Any] | None = None
    """`approved_at`/`approved_by`/`commit` of the baseline this one replaced, when known;
    `{"unreadable": why}` when that file held no readable trace."""

    @classmethod
    def now(
        cls,
        where: Path,
        *,
        via: str,
        reason: str | None = None,
        candidate: str | None = None,
        previous: Provenance | str | None = None,
    ) -> Provenance:
        """A record for an approval made now, for a baseline at `where`.

        `previous` is the replaced baseline's approval, or why that file held no readable trace.
        """
        folder = _existing_folder(where)
        commit = _git(folder, "rev-parse", "HEAD")
        dirty = None
        if commit is not None:
            dirty = bool(_git(folder, "status", "--porcelain", "--untracked-files=no"))
        return cls(
            approved_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            approved_by=_approver(folder),
            via=via,
            commit=commit,
            dirty=dirty,
            reason=reason,
            candidate=candidate,
            previous=_previous(previous),
        )


def _previous(previous: Provenance | str | None) -> dict[str, Any] | None:
    """What a record keeps of the baseline it replaced (see `Provenance.previous`)."""
    if isinstance(previous, str):
        return {"unreadable": previous}
    if previous is None:
        return None
    return previous.model_dump(include={"approved_at", "approved_by", "commit"})


def provenance_of(trace: AgentTrace) -> Provenance | None:
    """The trace's approval record, if it has a valid one."""
    raw = (trace.metadata or {}).get(PROVENANCE_KEY)
    if not isinstance(raw, dict):
        return None
    try:
        return Provenance.model_validate(raw)
    except ValueError:
        return None


def baseline_time(trace: AgentTrace) -> tuple[datetime, str] | None:
    """When the baseline dates from, and from what: its approval, else its first step."""
    record = provenance_of(trace)
    approved = parse_iso(record.approved_at) if record else None
    if approved is not None:
        return approved, "approved"
    starts = [
        when
        for step in trace.steps
        if isinstance(value := (step.metadata or {}).get("started_at"), str)
        and (when := parse_iso(value)) is not None
    ]
    return (min(starts), "recorded") if starts else None


def stale_warning(
    trace: AgentTrace, stale_after_days: float | None, now: datetime | None = None
) -> str | None:
    """`"baseline approved 45 days ago (...)"` when older than `stale_after_days`, else `None`."""
    if stale_after_days is None:
        return None
    found = baseline_time(trace)
    if found is None:
        return None
    when, what = found
    age = (now or datetime.now(timezone.utc)) - when
    days = age.total_seconds() / 86_400
    if days <= stale_after_days:
        return None
    record = provenance_of(trace)
    by = f" by {record.approved_by}" if what == "approved" and record else ""
    return (
        f"baseline {what} {int(days)} days ago ({when.date().isoformat()}{by}), "
        f"older than stale_after_days = {stale_after_days:g}; re-record and approve it"
    )


def _existing_folder(path: Path) -> Path:
    folder = path.parent if str(path.parent) else Path()
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    return folder


def _git(folder: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(  # noqa: S603 - fixed git arguments, no shell
            ["git", "-C", str(folder), *args],  # noqa: S607 - git from PATH, as a user runs it
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _approver(folder: Path) -> str:
    name = _git(folder, "config", "user.name")
    email = _git(folder, "config", "user.email")
    if name and email:
        return f"{name} <{email}>"
    if name or email:
        return str(name or email)
    try:
        return os.environ.get("GITHUB_ACTOR") or getpass.getuser()
    except (OSError, KeyError):
        return "unknown"
