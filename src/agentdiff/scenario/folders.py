"""Folders of runs: every trace file in a folder is a run (a multi-trace file: one per trace).

`runs_in(folder)` reads the trace files directly inside a folder (`*.json`, `*.jsonl`,
`*.ndjson`, optionally gzipped) in name order; a file holding several traces (JSON Lines, OTLP)
yields one run per trace, named `<file>#<trace id>`. `group_runs(paths)` groups the runs of
files and folders into scenarios: by a trace field (`scenario_key`, a dotted path such as
`metadata.scenario` or `task_input.ticket`), else by the folder each file sits in.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agentdiff.adapters.registry import detect_adapter, get_adapter
from agentdiff.errors import AgentDiffError, ConfigError, MultipleTracesError
from agentdiff.loader import parse_trace_data, read_document
from agentdiff.models.trace import AgentTrace
from agentdiff.scenario.analyze import Run

__all__ = ["TRACE_SUFFIXES", "group_runs", "is_trace_file", "load_runs", "runs_in"]

TRACE_SUFFIXES = (".json", ".jsonl", ".ndjson")


def is_trace_file(path: Path) -> bool:
    """A `.json`, `.jsonl` or `.ndjson` file (optionally `.gz`), not hidden."""
    name = path.name.lower().removesuffix(".gz")
    return path.is_file() and not path.name.startswith(".") and name.endswith(TRACE_SUFFIXES)


def _run_name(path: Path) -> str:
    name = path.name
    for suffix in (".gz", *TRACE_SUFFIXES):
        name = name.removesuffix(suffix)
    return name


def load_runs(path: Path, adapter: str | None = None) -> list[Run]:
    """The runs in one file; errors name the file."""
    try:
        document = read_document(path)
        try:
            return [(_run_name(path), parse_trace_data(document, adapter))]
        except MultipleTracesError:
            chosen = get_adapter(adapter) if adapter not in (None, "auto") else None
            found = chosen or detect_adapter(document)
            if found is None:  # pragma: no cover - parse_trace_data detected one just now
                raise
            return [
                (f"{_run_name(path)}#{tid}", parse_trace_data(document, found.name, trace_id=tid))
                for tid in found.trace_ids(document)
            ]
    except AgentDiffError as exc:
        raise exc.with_source(path) from exc.__cause__


def runs_in(folder: Path, adapter: str | None = None) -> list[Run]:
    """Every run in the trace files directly inside `folder`, in file-name order."""
    if not folder.is_dir():
        raise ConfigError("not a folder of runs", source=folder)
    files = sorted(p for p in folder.iterdir() if is_trace_file(p))
    if not files:
        msg = f"no trace files ({', '.join(TRACE_SUFFIXES)}) in this folder"
        raise ConfigError(msg, source=folder)
    return [run for path in files for run in load_runs(path, adapter)]


def group_runs(
    paths: Iterable[Path], adapter: str | None = None, scenario_key: str | None = None
) -> dict[str, list[Run]]:
    """Runs of files and folders (searched recursively) by scenario."""
    groups: dict[str, list[Run]] = {}
    for root in paths:
        if root.is_dir():
            files = sorted(p for p in root.rglob("*") if is_trace_file(p))
        elif root.exists():
            files = [root]
        else:
            raise AgentDiffError("file not found", source=root)
        for path in files:
            base = root if root.is_dir() else root.parent
            folder = path.parent.relative_to(base).as_posix()
            default = root.name if folder == "." else folder
            for run_id, trace in load_runs(path, adapter):
                key = _field(trace, scenario_key, path) if scenario_key else default
                groups.setdefault(key, []).append((run_id, trace))
    return dict(sorted(groups.items()))


def _field(trace: AgentTrace, dotted: str, path: Path) -> str:
    value: Any = trace
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
        if value is None:
            msg = f"the trace has no {dotted!r} to group by (--scenario-key)"
            raise ConfigError(msg, source=path)
    return str(value)
