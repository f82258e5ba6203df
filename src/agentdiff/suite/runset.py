"""`RunSet`: one version of the agent, `scenario → [RunRef]`, with a label and its provenance.

Build one from a folder (`from_dir`, layouts in `agentdiff.suite.discover`), from one side of a
manifest (`from_manifest`: `agentdiff-suite.toml` or JSON Lines), from records
(`from_records`: dicts with `scenario`, `path`, optional `run`, `trace_id`, `adapter`), or from
a flat folder of exported traces grouped by a trace field (`from_dir(..., scenario_key=...)`).
A `RunSet` holds references only; traces are loaded by the workers that compare them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentdiff.errors import ConfigError, NotARunError
from agentdiff.suite.discover import Layout, assign, list_files, run_folders
from agentdiff.suite.refs import RunRef, strip_suffix

__all__ = ["RunSet"]


@dataclass(frozen=True)
class RunSet:
    """Runs of one agent version by scenario (scenarios and runs in a stable order)."""

    runs: Mapping[str, tuple[RunRef, ...]]
    label: str
    root: str = ""
    """Where relative sources live: a folder or a URL ("" when sources are absolute)."""
    provenance: str = ""
    """How the set was built, e.g. `folder runs/main` or `manifest suite.jsonl [candidate]`."""
    scanned: bool = False
    """The runs are the trace files found under `root` (`from_dir`): a file written there
    would be read as a run next time."""
    skipped: tuple[NotARunError, ...] = ()
    """AgentDiff's own reports found under `root` and left out: no runs (`from_dir`)."""

    @classmethod
    def of(
        cls,
        refs: Iterable[RunRef],
        *,
        label: str,
        root: str = "",
        provenance: str = "",
        scanned: bool = False,
        skipped: tuple[NotARunError, ...] = (),
    ) -> RunSet:
        """Group `refs` by scenario (keys sorted; runs in the order given)."""
        grouped: dict[str, list[RunRef]] = {}
        seen: set[tuple[str, str]] = set()
        for ref in refs:
            key = (ref.scenario, ref.run_id)
            if key in seen:
                msg = f"scenario {ref.scenario!r} lists run {ref.run_id!r} twice"
                raise ConfigError(msg, source=provenance or None)
            seen.add(key)
            grouped.setdefault(ref.scenario, []).append(ref)
        runs = {key: tuple(grouped[key]) for key in sorted(grouped)}
        return cls(
            runs=runs,
            label=label,
            root=root,
            provenance=provenance,
            scanned=scanned,
            skipped=skipped,
        )

    @classmethod
    def from_dir(
        cls,
        root: str | Path,
        *,
        label: str | None = None,
        layout: Layout = "auto",
        adapter: str | None = None,
        scenario_key: str | None = None,
    ) -> RunSet:
        """The runs under `root` (a folder, a glob or an fsspec URL), paired by relative path.

        With `scenario_key` (a trace field such as `task_input`, `agent_name` or
        `metadata.dataset_item_id`) every trace file is loaded once to read it, and runs are
        grouped by its value instead of by path.
        """
        text = str(root)
        skipped: list[NotARunError] = []
        listing = list_files(text, skipped)
        return cls._from_listing(text, listing, label, layout, adapter, scenario_key, skipped)

    @classmethod
    def from_dirs(
        cls,
        baseline: str | Path,
        candidate: str | Path,
        *,
        labels: tuple[str | None, str | None] = (None, None),
        layout: Layout = "auto",
        adapter: str | None = None,
        scenario_key: str | None = None,
    ) -> tuple[RunSet, RunSet]:
        """Both sides of a comparison (`from_dir` each), a file path named alike on both.

        A single-run file beside a run folder of its name is named by its path (`a/r1.json`
        beside `a/r1/`); here that is decided from both sides' layouts together, so the file
        `a/r1.json` is scenario `a/r1.json` on both sides when either has the folder `a/r1/`,
        and is never paired against that folder's runs.
        """
        texts = (str(baseline), str(candidate))
        skipped: tuple[list[NotARunError], list[NotARunError]] = ([], [])
        listings = [list_files(text, found) for text, found in zip(texts, skipped, strict=True)]
        folders = [set() if scenario_key else run_folders(f, layout) for _, f in listings]
        base = cls._from_listing(
            texts[0], listings[0], labels[0], layout, adapter, scenario_key, skipped[0], folders[1]
        )
        cand = cls._from_listing(
            texts[1], listings[1], labels[1], layout, adapter, scenario_key, skipped[1], folders[0]
        )
        return base, cand

    @classmethod
    def _from_listing(
        cls,
        text: str,
        listing: tuple[str, list[tuple[str, int | None]]],
        label: str | None,
        layout: Layout,
        adapter: str | None,
        scenario_key: str | None,
        skipped: list[NotARunError],
        other_run_folders: set[str] | None = None,
    ) -> RunSet:
        base, files = listing
        label = label or _label(base)
        if scenario_key:
            from agentdiff.suite.keys import group_by_field  # noqa: PLC0415 - loads traces

            refs = group_by_field(base, files, scenario_key, adapter)
            provenance = f"folder {text} grouped by {scenario_key}"
        else:
            try:
                refs = assign(files, layout, adapter, other_run_folders=other_run_folders or ())
            except ConfigError as exc:  # it names paths below the root: name the root too
                raise exc.with_source(text) from exc.__cause__
            provenance = f"folder {text}" + ("" if layout == "auto" else f" ({layout})")
        return cls.of(
            refs,
            label=label,
            root=base,
            provenance=provenance,
            scanned=True,
            skipped=tuple(skipped),
        )

    @classmethod
    def from_records(
        cls,
        records: Iterable[Mapping[str, Any]],
        *,
        label: str,
        root: str | Path = "",
        provenance: str = "records",
    ) -> RunSet:
        """Runs from dicts: `scenario` and `path` required; `run`, `trace_id`, `adapter`."""
        refs = [_record_ref(record, number, provenance) for number, record in enumerate(records)]
        return cls.of(refs, label=label, root=str(root), provenance=provenance)

    @classmethod
    def from_manifest(cls, path: str | Path, side: str = "baseline") -> RunSet:
        """One side (`baseline` or `candidate`) of a TOML or JSON Lines suite manifest."""
        from agentdiff.suite.manifest import load_manifest  # noqa: PLC0415 - cycle

        manifest = load_manifest(path)
        if side not in ("baseline", "candidate"):
            raise ConfigError(f"side must be 'baseline' or 'candidate', got {side!r}")
        return manifest.baseline if side == "baseline" else manifest.candidate

    @property
    def scenarios(self) -> list[str]:
        """Scenario keys in order."""
        return list(self.runs)

    def __len__(self) -> int:
        return sum(len(refs) for refs in self.runs.values())


def _label(base: str) -> str:
    name = base.rstrip("/").rsplit("/", 1)[-1]
    return name if name not in ("", ".") else Path.cwd().name


def _record_ref(record: Mapping[str, Any], number: int, provenance: str) -> RunRef:
    where = f"{provenance} record {number + 1}" if provenance else f"record {number + 1}"
    if not isinstance(record, Mapping):
        raise ConfigError("expected an object with scenario and path", source=where)
    scenario, path = record.get("scenario"), record.get("path")
    if not isinstance(scenario, str) or not scenario or not isinstance(path, str) or not path:
        raise ConfigError("needs non-empty strings `scenario` and `path`", source=where)
    run = record.get("run")
    if run is None:
        run = strip_suffix(path.rsplit("/", 1)[-1]) or path
    optional = {k: record.get(k) for k in ("trace_id", "adapter")}
    for key, value in (("run", run), *optional.items()):
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"`{key}` must be a string, got {value!r}", source=where)
    return RunRef(scenario, str(run), path, optional["adapter"], optional["trace_id"])
