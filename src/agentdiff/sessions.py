"""Coding-agent sessions on disk: where Claude Code and Codex keep them, and references to them.

- Claude Code: `$CLAUDE_CONFIG_DIR/projects/<project>/<session-id>.jsonl` (default
  `~/.claude`), sub-agents in `<session-id>/subagents/`.
- Codex CLI: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<session-id>.jsonl` (default
  `~/.codex`).

`list_sessions()` summarises the newest ones (agent, project, start, steps, tokens, cost) so a
user can pick two; `resolve_reference("claude:<id>")` / `"codex:<id>"` finds the file of one
(a unique prefix of the id is enough). A plain argument is always a path, never a reference.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from agentdiff.diff import trace_totals
from agentdiff.errors import AgentDiffError, TraceFileError
from agentdiff.loader import load_trace

__all__ = [
    "SESSION_KINDS",
    "SessionInfo",
    "SessionKind",
    "list_sessions",
    "resolve_path",
    "resolve_reference",
]


@dataclass(frozen=True)
class SessionKind:
    """One coding agent: its reference prefix, adapter, home folder and file layout."""

    prefix: str
    adapter: str
    home: Callable[[Mapping[str, str]], Path]
    pattern: str
    """Where session files sit below the home folder (a glob)."""
    session_id: Callable[[Path], str]
    """The session id a file holds, from its name."""

    def files(self, root: Path) -> list[Path]:
        """Session files below `root` laid out as the agent lays them out."""
        return sorted(p for p in root.glob(self.pattern) if p.is_file())


def _claude_home(env: Mapping[str, str]) -> Path:
    return Path(env.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def _codex_home(env: Mapping[str, str]) -> Path:
    return Path(env.get("CODEX_HOME") or Path.home() / ".codex")


def _claude_id(path: Path) -> str:
    return path.stem


def _codex_id(path: Path) -> str:
    """`rollout-2026-12-01T05-13-42-<uuid>` → the uuid (its last five dash-separated parts)."""
    return "-".join(path.stem.split("-")[-5:])


SESSION_KINDS: dict[str, SessionKind] = {
    "claude": SessionKind("claude", "claude_code", _claude_home, "projects/*/*.jsonl", _claude_id),
    "codex": SessionKind(
        "codex", "codex", _codex_home, "sessions/*/*/*/rollout-*.jsonl", _codex_id
    ),
}


@dataclass(frozen=True)
class SessionInfo:
    """One session, summarised for a listing."""

    agent: str
    session_id: str
    path: Path
    project: str | None
    started_at: str | None
    steps: int
    total_tokens: int | None
    cost_usd: float | None
    error: str | None = None
    """Why the session could not be read (the listing shows it instead of failing)."""


def _candidates(
    directory: Path | None, env: Mapping[str, str]
) -> Iterator[tuple[SessionKind, Path]]:
    for kind in SESSION_KINDS.values():
        root = directory if directory is not None else kind.home(env)
        for path in kind.files(root):
            yield kind, path


def _summary(kind: SessionKind, path: Path) -> SessionInfo:
    try:
        trace = load_trace(path, kind.adapter)
    except AgentDiffError as exc:
        name = kind.session_id(path)
        return SessionInfo(kind.prefix, name, path, None, None, 0, None, None, error=str(exc))
    totals = trace_totals(trace)
    meta = trace.metadata or {}
    return SessionInfo(
        agent=kind.prefix,
        session_id=kind.session_id(path),
        path=path,
        project=meta.get("cwd"),
        started_at=meta.get("started_at"),
        steps=totals.steps,
        total_tokens=totals.total_tokens,
        cost_usd=totals.cost_usd,
    )


def list_sessions(
    directory: Path | None = None, *, limit: int = 20, env: Mapping[str, str] | None = None
) -> list[SessionInfo]:
    """The newest `limit` sessions in the agents' default homes, or laid out below `directory`.

    Newest by the file's modification time (only to choose and order them; the listed start is
    the session's own first timestamp).
    """
    found = list(_candidates(directory, os.environ if env is None else env))
    found.sort(key=lambda item: item[1].stat().st_mtime, reverse=True)
    return [_summary(kind, path) for kind, path in found[:limit]]


def resolve_reference(text: str, env: Mapping[str, str] | None = None) -> Path | None:
    """The file of `claude:<id>` / `codex:<id>`; `None` when `text` is not such a reference."""
    prefix, sep, wanted = text.partition(":")
    kind = SESSION_KINDS.get(prefix)
    if kind is None or not sep:
        return None
    root = kind.home(os.environ if env is None else env)
    matches = [p for p in kind.files(root) if kind.session_id(p).startswith(wanted) and wanted]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        msg = f"no {kind.prefix} session {wanted!r} under {root}"
        raise TraceFileError(msg, hint="list them with `agentdiff sessions`")
    ids = ", ".join(kind.session_id(p) for p in matches[:5])
    msg = f"{kind.prefix}:{wanted} matches {len(matches)} sessions ({ids}); give more of the id"
    raise TraceFileError(msg)


def resolve_path(path: Path) -> Path:
    """A command-line trace argument: the session file of a reference, else the path itself."""
    return resolve_reference(str(path)) or path
