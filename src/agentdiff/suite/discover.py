"""Finding run files under a root (a folder, a glob, or an fsspec URL) and naming their scenarios.

Layouts (`layout=`):

- `auto` (default): a folder with no subfolder is one scenario's **run folder**
  (`ROOT/<scenario>/<run>.json`: N runs); any other trace file is a single-run scenario
  (`ROOT/<scenario>.json`), named by its path without the ending (with it, beside a run folder
  of that name: `a/r1.json` beside `a/r1/`; never merged into the folder's scenario).
- `files`: every trace file is its own scenario (use it for nested single-run suites).
- `runs`: every trace file is a run of the scenario named by its folder.

Trace files end in `.json`, `.jsonl` or `.ndjson`, each optionally `.gz`; hidden files and
folders are skipped, and so is a Claude Code session's sub-agent transcript under a local root
(`<session>/subagents/agent-*.jsonl` beside `<session>.jsonl`): it is part of the session's run,
read with it (`loader.runs_only`), and so is a JSON report AgentDiff wrote among the runs of a
local root (`loader.without_reports`: no run, listed in `skipped` when given). A glob
(`runs/main/**/*.json`) is listed relative to its longest folder prefix without wildcards.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Literal

from agentdiff.errors import ConfigError, NotARunError
from agentdiff.globs import segments_match
from agentdiff.loader import no_runs_among, runs_only, without_reports
from agentdiff.naming import distinct_names
from agentdiff.suite.load import fsspec_module
from agentdiff.suite.refs import RunRef, is_trace_file, is_url, strip_suffix

__all__ = ["LAYOUTS", "Layout", "assign", "list_files", "run_folders"]

Layout = Literal["auto", "files", "runs"]
LAYOUTS: tuple[Layout, ...] = ("auto", "files", "runs")
_WILDCARDS = frozenset("*?[")

Listed = tuple[str, int | None]
"""(path relative to the root with `/` separators, size in bytes when known)."""


def list_files(root: str, skipped: list[NotARunError] | None = None) -> tuple[str, list[Listed]]:
    """The root folder (globs cut to their fixed prefix) and its trace files, sorted.

    Of a local root, AgentDiff's own reports are left out (and added to `skipped`).
    """
    if is_url(root):
        return _list_url(root)
    if any(c in _WILDCARDS for c in root):
        return _list_glob(root, skipped)
    folder = Path(root)
    if not folder.is_dir():
        what = "does not exist" if not folder.exists() else "is not a folder"
        raise ConfigError(f"{what}; expected a folder of runs", source=root)
    return root, _walk(folder, str(folder), skipped)


def _walk(
    folder: Path,
    given: str,
    skipped: list[NotARunError] | None,
    wanted: Callable[[str], bool] | None = None,
) -> list[Listed]:
    """The runs under `folder`, sorted, as (path relative to it, size).

    Its trace files (those `wanted` takes by their relative path) less a session's sub-agent
    transcripts (`runs_only`) and AgentDiff's own reports (`without_reports`, added to
    `skipped`). Trace files taken that are all transcripts are refused, naming their session
    and the root as `given`: never "0 runs".
    """
    found = dict(_trace_files(folder))
    runs = set(runs_only(list(found)))  # of every file: a session outside `wanted` has parts
    taken = [path for path, rel in found.items() if wanted is None or wanted(rel)]
    kept = [path for path in taken if path in runs]
    if taken and not kept:
        raise ConfigError(no_runs_among(taken), source=given)
    return sorted((found[path], _size(path)) for path in without_reports(kept, skipped))


def _trace_files(folder: Path) -> Iterator[tuple[Path, str]]:
    """Each visible trace file under `folder` and its path relative to it (`/` separators)."""
    for here, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel = Path(here).relative_to(folder).as_posix()
        for name in files:
            if is_trace_file(name):
                yield Path(here) / name, (name if rel == "." else f"{rel}/{name}")


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _fixed_prefix(pattern: str, sep: str) -> str:
    parts = pattern.split(sep)
    fixed = []
    for part in parts[:-1]:
        if any(c in _WILDCARDS for c in part):
            break
        fixed.append(part)
    return sep.join(fixed)


def _list_glob(pattern: str, skipped: list[NotARunError] | None) -> tuple[str, list[Listed]]:
    """The runs under the pattern's fixed prefix that match it (`_walk`).

    The prefix is walked as a folder root is (symbolic links to folders are not followed), and
    each file's path is matched segment by segment; `glob.glob` follows links under `**`, so a
    link to a parent folder listed every run again at each of ~40 levels, and two such links
    made the listing run for ever.
    """
    fixed = _fixed_prefix(pattern, "/")
    base = fixed or ("/" if pattern.startswith("/") else ".")
    segments = tuple(pattern[len(fixed) :].lstrip("/").split("/"))
    folder = Path(base)
    if not folder.is_dir():
        return base, []
    return base, _walk(folder, pattern, skipped, partial(_matches, segments))


def _matches(segments: tuple[str, ...], rel: str) -> bool:
    """The relative path `rel` matches the glob's `segments` and has no hidden part."""
    parts = tuple(rel.split("/"))
    return not any(part.startswith(".") for part in parts) and segments_match(segments, parts)


def _list_url(root: str) -> tuple[str, list[Listed]]:
    fs, path = fsspec_module().core.url_to_fs(root)
    protocol = root.split("://", 1)[0]
    wild = any(c in _WILDCARDS for c in path)
    base = _fixed_prefix(path, "/") if wild else path.rstrip("/")
    try:
        entries = fs.glob(path, detail=True) if wild else fs.find(path, detail=True)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot list: {exc}", source=root) from None
    found = []
    for name, info in entries.items():
        rel = posixpath.relpath(name, base) if base else name
        hidden = any(part.startswith(".") for part in rel.split("/"))
        if info.get("type") == "file" and is_trace_file(posixpath.basename(name)) and not hidden:
            found.append((rel, info.get("size")))
    if not found and not fs.exists(path):
        raise ConfigError("does not exist; expected a folder of runs", source=root)
    return f"{protocol}://{base}", sorted(found)


def assign(
    files: list[Listed],
    layout: Layout,
    adapter: str | None = None,
    *,
    other_run_folders: Iterable[str] = (),
) -> list[RunRef]:
    """A `RunRef` per file, its scenario and run id named by `layout`.

    A run is named by its file's name without the ending (`r1.json.gz` → `r1`), and a
    single-run scenario by its path without it. Only files that would give one scenario two runs
    of one name are renamed (`agentdiff.naming`): a run of a run folder by its file name
    (`r1.json` beside `r1.json.gz`), then by its path below the root; a single-run scenario by
    its path below the root (`a/r1.json`, `a/r1.json.gz`), as is one beside a run folder of
    its name (`a/r1.json` beside `a/r1/`: scenarios `a/r1.json` and `a/r1`). A scenario that
    no name tells apart from a run folder's is refused (`ConfigError`), never merged.

    `other_run_folders`: the run folders of the other side of a comparison (`run_folders`), so
    a file is named alike on both sides: `a/r1.json` is scenario `a/r1.json` on each side when
    either side has a run folder `a/r1/` (never paired against that folder's runs).
    """
    parts = _parts(files, layout)
    folders = {folder for _, folder, _, _, as_run in parts if as_run} | set(other_run_folders)

    def by_name(p: _Part) -> tuple[str, str]:
        rel, folder, name, stem, as_run = p
        return (folder, name) if as_run else (rel, stem)

    def by_stem(p: _Part) -> tuple[str, str]:
        _, folder, _, stem, as_run = p
        if as_run:
            return folder, stem
        scenario = posixpath.join(folder, stem)  # a run folder's name: the file's path instead
        return by_name(p) if scenario in folders else (scenario, stem)

    def by_path(p: _Part) -> tuple[str, str]:
        rel, folder, _, stem, as_run = p
        return (folder, rel) if as_run else (rel, stem)

    named = distinct_names(parts, (by_stem, by_name, by_path))
    _check_apart([(rel, as_run) for rel, _, _, _, as_run in parts], [s for s, _ in named])
    return [
        RunRef(scenario, run, rel, adapter, None, size)
        for (scenario, run), (rel, size) in zip(named, files, strict=True)
    ]


def run_folders(files: list[Listed], layout: Layout) -> set[str]:
    """The folders whose files `layout` makes runs of one scenario (the scenario is the folder)."""
    return {folder for _, folder, _, _, as_run in _parts(files, layout) if as_run}


_Part = tuple[str, str, str, str, bool]
"""(path, folder, file name, stem, a run of its folder's scenario?)"""


def _parts(files: list[Listed], layout: Layout) -> list[_Part]:
    if layout not in LAYOUTS:
        raise ConfigError(f"unknown layout {layout!r}; expected one of {', '.join(LAYOUTS)}")
    folders = {posixpath.dirname(rel) for rel, _ in files}
    parents = {p for f in folders for p in _ancestors(f)}
    parts: list[_Part] = []
    for rel, _ in files:
        folder, name = posixpath.split(rel)
        stem = strip_suffix(name) or name
        as_run = layout == "runs" or (layout == "auto" and folder and folder not in parents)
        parts.append((rel, folder, name, stem, bool(as_run and folder)))
    return parts


def _check_apart(files: list[tuple[str, bool]], scenarios: list[str]) -> None:
    """Refuse a scenario named both by a single-run file and by a run folder: never merge them.

    `files`: each file's path and whether it is a run of its folder. Naming keeps the two
    apart on a file system; only a store holding a key `a/r1.json` and a prefix `a/r1.json/`
    can give both one name.
    """
    single: dict[str, str] = {}
    folders: dict[str, str] = {}
    for (rel, as_run), scenario in zip(files, scenarios, strict=True):
        if as_run:
            folders.setdefault(scenario, posixpath.dirname(rel) + "/")
        else:
            single.setdefault(scenario, rel)
    for scenario, rel in single.items():
        if scenario in folders:
            msg = (
                f"the single-run file {rel} and the run folder {folders[scenario]} both name"
                f" scenario {scenario!r}; rename one (or use --layout files or runs)"
            )
            raise ConfigError(msg)


def _ancestors(folder: str) -> list[str]:
    """Every proper ancestor folder of `folder` (not the root itself)."""
    out = []
    while "/" in folder:
        folder = folder.rsplit("/", 1)[0]
        out.append(folder)
    return out
