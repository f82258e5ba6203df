"""Grouping a flat folder of exported traces into scenarios by a trace field (`--scenario-key`).

Every file is loaded once (in worker processes for large folders) and only the keys travel
back. The field is a dotted path into the trace: `task_input`, `agent_name`, `trace_id`,
`metadata.dataset_item_id`, `task_input.question`... A trace without the field is an error that
names the file: grouping never guesses. Text keys up to 120 characters are used as they are;
longer or structured values become `sha256:<first 16 hex digits>` of their canonical JSON.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Sequence
from typing import Any

import orjson

from agentdiff.errors import AgentDiffError, ConfigError
from agentdiff.models.trace import AgentTrace
from agentdiff.naming import distinct_names
from agentdiff.suite.backends import InProcess, ProcessPool
from agentdiff.suite.discover import Listed
from agentdiff.suite.load import load_runs
from agentdiff.suite.refs import RunRef, strip_suffix

__all__ = ["UNLOADABLE", "group_by_field", "key_of", "scenario_name"]

UNLOADABLE = "(unloadable)"
"""Scenario prefix of files that could not be loaded to read their key."""

_MISSING = object()
_MAX_TEXT_KEY = 120
_CHUNK = 64
_POOL_FROM = 256
"""Folders with at least this many files are keyed in worker processes."""

Job = tuple[str, str, Sequence[tuple[str, str | None]]]
"""(root, field, [(relative path, adapter)])."""


def key_of(trace: AgentTrace, field: str) -> Any:
    """The value of dotted `field` in `trace` (`_MISSING` sentinel if absent)."""
    head, *rest = field.split(".")
    value: Any = getattr(trace, head, _MISSING)
    for part in rest:
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def scenario_name(value: Any) -> str:
    """A scenario key for a field value."""
    if isinstance(value, str) and value and len(value) <= _MAX_TEXT_KEY and value.isprintable():
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=str)
    return "sha256:" + hashlib.sha256(text).hexdigest()[:16]


def _key_chunk(job: Job) -> list[tuple[str, str, str | None, str | None, str]]:
    """(path, run id, trace id, adapter, scenario) for every trace in the job's files."""
    root, field, files = job
    out: list[tuple[str, str, str | None, str | None, str]] = []
    for rel, adapter in files:
        run = _stem(rel)
        ref = RunRef("", run, rel, adapter)
        try:
            loaded = load_runs(ref, root)
        except AgentDiffError:
            # listed under its own scenario; the suite reports it as an error row
            out.append((rel, run, None, adapter, f"{UNLOADABLE}/{rel}"))
            continue
        for run_id, trace_id, trace in loaded:
            value = key_of(trace, field)
            if value is _MISSING or value is None:
                msg = f"the trace has no {field!r}; cannot group it by --scenario-key {field}"
                raise ConfigError(msg, source=f"{root.rstrip('/')}/{rel}")
            out.append((rel, run_id, trace_id, adapter, scenario_name(value)))
    return out


def group_by_field(root: str, files: list[Listed], field: str, adapter: str | None) -> list[RunRef]:
    """A `RunRef` per trace in `files`, its scenario the value of `field`."""
    chunks: list[Job] = [
        (root, field, [(rel, adapter) for rel, _ in files[i : i + _CHUNK]])
        for i in range(0, len(files), _CHUNK)
    ]
    backend = ProcessPool() if len(files) >= _POOL_FROM else InProcess()
    keyed = sorted(row for part in backend.map(_key_chunk, chunks) for row in part)
    # run ids by the one rule (agentdiff.naming): file stem, else file name, else path below
    # the root (files told apart within each scenario), then a multi-trace file's `#<trace id>`
    members = list(dict.fromkeys((scenario, rel) for rel, _, _, _, scenario in keyed))
    names = distinct_names(
        members,
        (
            lambda f: (f[0], _stem(posixpath.basename(f[1]))),
            lambda f: (f[0], posixpath.basename(f[1])),
            lambda f: f,
        ),
    )
    run_of = {file: name for file, (_, name) in zip(members, names, strict=True)}
    return [
        RunRef(
            scenario,
            run_of[scenario, rel] + run_id.removeprefix(_stem(rel)),
            rel,
            adapt,
            tid,
        )
        for rel, run_id, tid, adapt, scenario in keyed
    ]


def _stem(path: str) -> str:
    return strip_suffix(path) or path
