"""Folders of runs: every trace file in a folder is a run (a multi-trace file: one per trace).

`runs_in(folder)` reads the trace files directly inside a folder (`*.json`, `*.jsonl`,
`*.ndjson`, optionally gzipped, endings in any case) in name order; a file holding several
traces (JSON Lines, OTLP) yields one run per trace, named `<file>#<trace id>`. Runs are named by
the rule of `agentdiff.naming`: by file stem (`run1.json.gz` → `run1`), by file name where stems
clash in one scenario (`run1.json` beside `run1.json.gz`), by the path as given where file names
still clash. `group_runs(paths)` groups the runs of files and folders into scenarios: by a trace
field (`scenario_key`, a dotted path such as `metadata.scenario` or `task_input.ticket`), else by
the folder each file sits in (a file given directly too); different folders of the same name stay
apart, named by their path as given (never by a resolved absolute path).

Each file is read as `compare` reads it (`loader.load_traces`): a Claude Code session with the
sub-agent transcripts beside it (`<session>/subagents/agent-*.jsonl`), which no search counts
as runs of their own. Nor is a JSON report AgentDiff wrote among the runs one
(`loader.without_reports`): each search leaves it out, and adds it to `skipped` when given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from agentdiff.errors import AgentDiffError, ConfigError, NotARunError
from agentdiff.loader import load_traces, no_runs_among, runs_only, without_reports
from agentdiff.models.trace import AgentTrace
from agentdiff.naming import TRACE_SUFFIXES, distinct_names, number_repeats, trace_stem
from agentdiff.scenario.analyze import Run

__all__ = [
    "TRACE_SUFFIXES",
    "found_files",
    "group_runs",
    "is_trace_file",
    "load_runs",
    "run_files",
    "runs_in",
    "runs_of",
]


def is_trace_file(path: Path) -> bool:
    """A `.json`, `.jsonl` or `.ndjson` file (optionally `.gz`; any case), not hidden."""
    name = path.name
    return not name.startswith(".") and trace_stem(name) is not None and path.is_file()


def _run_name(path: Path) -> str:
    return trace_stem(path.name) or path.name


def load_runs(path: Path, adapter: str | None = None) -> list[Run]:
    """The runs in one file, read as `compare` reads it (`loader.load_traces`); errors name it."""
    return [
        (_run_name(path) + (f"#{tid}" if tid is not None else ""), trace)
        for tid, trace in load_traces(path, adapter)
    ]


def run_files(folder: Path, skipped: list[NotARunError] | None = None) -> list[Path]:
    """The trace files directly inside `folder`, in name order: the files `runs_in` reads.

    AgentDiff's own reports among them are left out (and added to `skipped`).
    """
    if not folder.is_dir():
        raise ConfigError("not a folder of runs", source=folder)
    found = sorted(p for p in folder.iterdir() if is_trace_file(p))
    if not found:
        msg = f"no trace files ({', '.join(TRACE_SUFFIXES)}) in this folder"
        raise ConfigError(msg, source=folder)
    return _runs_found(found, folder, skipped)


def _runs_found(found: list[Path], root: Path, skipped: list[NotARunError] | None) -> list[Path]:
    """The files of `found` that are runs (`runs_only`, `without_reports`).

    A search given `root` explicitly that finds only parts of other files' runs (a session's
    sub-agent transcripts, searched from inside the session's folder) is refused, naming whose
    they are. AgentDiff's own reports are left out (and added to `skipped`); a search that
    finds nothing but reports is refused too, naming `root` (a report named as the run: its
    own message).
    """
    runs = runs_only(found)
    if found and not runs:
        raise ConfigError(no_runs_among(found), source=root)
    reports: list[NotARunError] = []
    kept = without_reports(runs, reports)
    if runs and not kept:
        raise _only_reports(reports, root)
    if skipped is not None:
        skipped.extend(reports)
    return kept


def _only_reports(reports: list[NotARunError], root: Path) -> ConfigError:
    """The error of a search whose files were all AgentDiff's own reports (no run among them)."""
    if len(reports) == 1 and reports[0].source == str(root):
        return ConfigError(reports[0].message, hint=reports[0].hint, source=root)
    found = "an AgentDiff report" if len(reports) == 1 else f"{len(reports)} AgentDiff reports"
    return ConfigError(f"no runs here: only {found}", hint=_REPORTS_HINT, source=root)


_REPORTS_HINT = "a folder of runs holds trace files; write reports outside it"


def runs_in(folder: Path, adapter: str | None = None) -> list[Run]:
    """Every run in the trace files directly inside `folder`, in file-name order."""
    return runs_of(run_files(folder), adapter)


def runs_of(files: list[Path], adapter: str | None = None) -> list[Run]:
    """Every run in `files` (a folder's `run_files`, listed already), named apart."""
    runs = [
        (path, run_id.removeprefix(_run_name(path)), trace)
        for path in files
        for run_id, trace in load_runs(path, adapter)
    ]
    return _named_runs(runs)


def group_runs(
    paths: Iterable[Path],
    adapter: str | None = None,
    scenario_key: str | None = None,
    *,
    listed: Mapping[Path, list[Path]] | None = None,
    skipped: list[NotARunError] | None = None,
) -> dict[str, list[Run]]:
    """Runs of files and folders (searched recursively) by scenario.

    By default a run's scenario is the folder its file sits in: a folder given reads as its
    name (its subfolders as their path below it, `refund` or `eu/refund`), and a file given
    directly belongs to the scenario of the folder it sits in. Different folders never merge:
    when the same name comes from different folders, each is named by its path as given
    (`day1/checkout`, `day2/checkout`). A file reached twice is read once. With `scenario_key`
    the scenario is that trace field. Runs are named by file stem; where stems clash within a
    scenario, by file name (`run1.json`); where those clash too, by path as given
    (`day1/checkout/run1.json`). `listed`: each path's `found_files`, when the caller has them;
    else they are found here, AgentDiff's own reports among them added to `skipped`.
    """
    folders: dict[Path, tuple[str, Path]] = {}  # real folder -> (name, path as given)
    seen: set[Path] = set()
    files: list[tuple[Path, Path]] = []  # (path as given, real folder)
    files_of = listed.__getitem__ if listed is not None else partial(found_files, skipped=skipped)
    found = [(root, path) for root in paths for path in files_of(root)]
    runs = set(runs_only([path for _, path in found]))  # across roots: a session's parts
    for root, path in found:
        real = path.resolve()
        if path in runs and real not in seen:
            seen.add(real)
            folder = path.parent.resolve()  # where the file sits (a link: where the link is)
            if folder not in folders:
                if root.is_dir() and path.parent != root:
                    name = path.parent.relative_to(root).as_posix()
                else:
                    name = _folder_name(path.parent)
                folders[folder] = (name, path.parent)
            files.append((path, folder))
    names = _distinct(folders)
    groups: dict[str, list[tuple[Path, str, AgentTrace]]] = {}
    for path, folder in files:
        for run_id, trace in load_runs(path, adapter):
            key = _field(trace, scenario_key, path) if scenario_key else names[folder]
            groups.setdefault(key, []).append((path, run_id.removeprefix(_run_name(path)), trace))
    return {key: _named_runs(groups[key]) for key in sorted(groups)}


def found_files(root: Path, skipped: list[NotARunError] | None = None) -> list[Path]:
    """The files `group_runs` reads of `root`: a folder's trace files (recursively), or itself.

    Never a session's sub-agent transcripts (`loader.runs_only`): they are read with it, and a
    `root` that holds (or is) nothing else is refused, naming the session. Never one of
    AgentDiff's own reports either (added to `skipped`).
    """
    if root.is_dir():
        found = sorted(p for p in root.rglob("*") if is_trace_file(p))
        return _runs_found(found, root, skipped)
    if root.exists():
        return _runs_found([root], root, skipped)
    raise AgentDiffError("file not found", source=root)


def _folder_name(folder: Path) -> str:
    """A folder's name as given; `.`, `..` and the like by the folder they resolve to."""
    if folder.name not in ("", ".", ".."):
        return folder.name
    real = folder.resolve()
    return real.name or real.as_posix()


def _distinct(folders: dict[Path, tuple[str, Path]]) -> dict[Path, str]:
    """Each real folder's scenario: its name, else its path as given, else that numbered.

    Only the folders whose name another has move on to their path as given; two folders that
    share even that (links, `..`) are numbered (`x/s1`, `x/s1 (2)`): a resolved absolute path
    never names a scenario.
    """
    reals = list(folders)
    names = distinct_names(
        reals,
        (lambda real: folders[real][0], lambda real: folders[real][1].as_posix()),
    )
    return dict(zip(reals, number_repeats(names), strict=True))


def _named_runs(members: list[tuple[Path, str, AgentTrace]]) -> list[Run]:
    """The runs of one scenario, each (file, `#<trace id>` or "", trace), named apart.

    Each file is named apart by `agentdiff.naming` (stem, else file name, else path as given),
    then followed by its trace id.
    """
    files = list(dict.fromkeys(path for path, _, _ in members))
    keys = (_run_name, lambda path: path.name, lambda path: path.as_posix())
    names = dict(zip(files, number_repeats(distinct_names(files, keys)), strict=True))
    return [(names[path] + tail, trace) for path, tail, trace in members]


def _field(trace: AgentTrace, dotted: str, path: Path) -> str:
    value: Any = trace
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
        if value is None:
            msg = f"the trace has no {dotted!r} to group by (--scenario-key)"
            raise ConfigError(msg, source=path)
    return str(value)
