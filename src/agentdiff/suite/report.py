"""The suite report: pure, versioned data that every suite renderer reads.

`SuiteReport.to_json()` is a stable contract (`report_version`, its JSON Schema published by
`agentdiff schema suite` and committed under `schema/`). It holds one compact row per scenario,
never a full `DiffReport` or a trace, so memory stays flat however large the suite; any pair it
lists is re-derivable with `agentdiff compare` on the two sources it names. Paths are relative
to the suite roots. Timings and host details are kept apart (`timings`, written to
`timings.json`), so `suite.json` is byte-identical whichever backend ran the suite.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from agentdiff.files import write_atomically
from agentdiff.stats_options import inconclusive_fails
from agentdiff.suite.rows import (
    VERDICTS,
    FirstDivergence,
    OpCounts,
    PairSummary,
    Rows,
    RunError,
    RunLocation,
    ScenarioRow,
    StepName,
    Verdict,
)

__all__ = [
    "SUITE_REPORT_VERSION",
    "VERDICTS",
    "Counts",
    "FirstDivergence",
    "OpCounts",
    "PairSummary",
    "Rows",
    "RunError",
    "RunLocation",
    "RunSetInfo",
    "ScenarioRow",
    "StepName",
    "SuiteReport",
    "Threshold",
    "Verdict",
]

SUITE_REPORT_VERSION = "3"
"""3: a multi-run scenario's statistics test `model_turns` (every model turn), not `llm_calls`,
and its run rows give `model_turns` (see `RUNS_REPORT_VERSION`). 2: a scenario with several runs
is judged on the runs that loaded, its row listing the others in `errors` (version 1 made it an
`error` row), and `counts.partly_loaded` counts such rows."""


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Threshold(_Record):
    """One gate setting, its value and where the value came from."""

    setting: str
    value: Any
    source: str
    """`default`, `flag --x`, `env AGENTDIFF_X`, `<file> [gate]` or `<manifest> [gate]`."""


class RunSetInfo(_Record):
    """One side of the suite: its label, root and how it was built."""

    label: str
    root: str
    provenance: str
    scenarios: int
    """Scenarios with runs on this side among those the suite judged (after `only`)."""
    runs: int
    """Runs the judged scenarios loaded on this side (a file of several traces holds several)."""


class Counts(_Record):
    """Scenarios by verdict."""

    scenarios: int = 0
    passed: int = 0
    regressed: int = 0
    improved: int = 0
    inconclusive: int = 0
    errors: int = 0
    added: int = 0
    removed: int = 0
    partly_loaded: int = 0
    """Scenarios some of whose runs could not be loaded while others were (each one listed in the
    row's `errors`): judged on the runs that loaded, or added/removed (never judged); also counted
    under their verdict. They fail the suite as an error row does (exit 2, unless a scenario
    regressed)."""


_COUNT_FIELD: dict[str, str] = {
    "pass": "passed",
    "regressed": "regressed",
    "improved": "improved",
    "inconclusive": "inconclusive",
    "error": "errors",
    "added": "added",
    "removed": "removed",
}


class SuiteReport(BaseModel):
    """Everything a suite run found; renderers only read it."""

    model_config = ConfigDict(extra="forbid")

    report_version: str = SUITE_REPORT_VERSION
    name: str
    baseline: RunSetInfo
    candidate: RunSetInfo
    multi_run_rule: str = "statistics"
    """How scenarios with several runs on a side are judged (`statistics`: N-vs-M tests with
    Holm within and Benjamini–Hochberg across scenarios, loops as invariants; see `stats`)."""
    stats: dict[str, Any] = Field(default_factory=dict)
    """The `[stats]` settings the N-vs-M scenarios were judged with."""
    tarone_threshold: float | None = None
    """The smallest reachable p a multi-run scenario needed to be tested (Tarone)."""
    thresholds: list[Threshold]
    scenario_overrides: list[dict[str, Any]] = Field(default_factory=list)
    """The manifest's `[[scenario]]` tables (`match` glob and the settings they change)."""
    only: list[str] = Field(default_factory=list)
    allow_missing: bool = False
    unjudged: int = 0
    """Scenarios never judged because `--fail-fast` stopped the suite at a failure (0: every
    scenario was judged). Which ones were still run when it stopped depends on the backend."""
    counts: Counts
    scenarios: Sequence[ScenarioRow]
    """One row per scenario in key order (kept as `Rows`: compact, parsed when read)."""

    _timings: dict[str, Any] = PrivateAttr(default_factory=dict)
    _pages: dict[str, str] = PrivateAttr(default_factory=dict)
    _page_files: dict[str, str] = PrivateAttr(default_factory=dict)
    _pages_redacted: bool = PrivateAttr(default=True)
    _pages_href: str = PrivateAttr(default="")

    @field_validator("scenarios", mode="after")
    @classmethod
    def _compact(cls, rows: Sequence[ScenarioRow]) -> Rows:
        return rows if isinstance(rows, Rows) else Rows.of(rows)

    @staticmethod
    def count(verdicts: Iterable[str], partly_loaded: int = 0) -> Counts:
        """Scenarios by verdict (and how many were judged without a run that did not load)."""
        tally = dict.fromkeys(_COUNT_FIELD.values(), 0)
        total = 0
        for verdict in verdicts:
            tally[_COUNT_FIELD[verdict]] += 1
            total += 1
        return Counts(scenarios=total, partly_loaded=partly_loaded, **tally)

    @property
    def rows(self) -> Rows:
        """The scenario rows (compact; `rows.having("regressed")` parses only those)."""
        rows = self.scenarios
        return rows if isinstance(rows, Rows) else Rows.of(rows)

    @property
    def passed(self) -> bool:
        """No scenario regressed or is an error, and every run loaded.

        Nor is a scenario inconclusive, when that fails the suite.
        """
        return not (
            self.counts.regressed
            or self.counts.errors
            or self.counts.partly_loaded
            or self._inconclusive_fails
        )

    @property
    def _inconclusive_fails(self) -> bool:
        return inconclusive_fails(self.stats) and bool(self.counts.inconclusive)

    @property
    def exit_code(self) -> int:
        """As `compare`: 1 when a scenario regressed (wins), 2 on an error, else 0.

        An error: an error row, or a run that could not be loaded beside others that did. An
        inconclusive scenario counts as regressed under `[stats] inconclusive = "fail"`.
        """
        if self.counts.regressed or self._inconclusive_fails:
            return 1
        return 2 if self.counts.errors or self.counts.partly_loaded else 0

    @property
    def timings(self) -> dict[str, Any]:
        """Wall times, backend and host (never part of `suite.json`)."""
        return self._timings

    @property
    def pair_pages(self) -> dict[str, str]:
        """Scenario → the pair HTML report of its deciding pair (the most severe regressions)."""
        return self._pages

    @property
    def pair_files(self) -> dict[str, str]:
        """Scenario → its pair report's file, relative to the results folder it was read from."""
        return self._page_files

    @property
    def pages_redacted(self) -> bool:
        """The pair reports were made with secrets redacted (False: with `--no-redact`).

        An HTML report rendered with redaction on embeds none that were not.
        """
        return self._pages_redacted

    @pages_redacted.setter
    def pages_redacted(self, value: bool) -> None:
        self._pages_redacted = value

    @property
    def pages_href(self) -> str:
        """The results folder as a URL relative to the HTML page being written ("": the same).

        Put before each `pair_files` link (see `agentdiff.suite.pages.folder_href`).
        """
        return self._pages_href

    @pages_href.setter
    def pages_href(self, value: str) -> None:
        self._pages_href = value

    def scenario(self, key: str) -> ScenarioRow:
        """The row of scenario `key` (KeyError if the suite has none)."""
        for row in self.rows:
            if row.scenario == key:
                return row
        raise KeyError(key)

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract as Python data."""
        return self.model_dump(mode="json")

    def to_json(self) -> str:
        """The JSON contract (`report_version` first), one scenario row per line."""
        head = orjson.dumps(self.model_dump(mode="json", exclude={"scenarios"}))
        blobs = self.rows.blobs
        body = b"[\n" + b",\n".join(blobs) + b"\n]" if blobs else b"[]"
        return (head[:-1] + b',"scenarios":' + body + b"}").decode()

    def timings_json(self) -> str:
        """The timings document (`timings.json`)."""
        return orjson.dumps(self._timings, option=orjson.OPT_INDENT_2).decode() + "\n"

    def write(self, folder: str | Path, formats: tuple[str, ...] = ("json",)) -> list[Path]:
        """Write `suite.json` + `timings.json` and each rendering in `formats` into `folder`."""
        from agentdiff.suite.render import FILE_NAMES, render_suite  # noqa: PLC0415 - cycle

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for fmt in dict.fromkeys(("json", *formats)):
            path = folder / FILE_NAMES[fmt]
            write_atomically(path, render_suite(self, fmt))
            written.append(path)
        timings = folder / "timings.json"
        write_atomically(timings, self.timings_json())
        return [*written, timings]
