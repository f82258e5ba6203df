"""Scenario rows: what the suite says about one scenario, and `Rows`, a compact list of them.

A suite of 50,000 scenarios keeps 50,000 rows in the client: as objects that is ~12 KB each, as
their JSON ~1.4 KB. `Rows` keeps the JSON (and each verdict) and parses a row when it is read,
so memory stays flat and `suite.json` is written by joining the rows as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Literal, overload

import orjson
from pydantic import BaseModel, ConfigDict, Field

from agentdiff.models.report import Delta, FoldedOptional, GateViolation
from agentdiff.scenario.report import ScenarioReport

__all__ = [
    "VERDICTS",
    "FirstDivergence",
    "OpCounts",
    "PairSummary",
    "Rows",
    "RunError",
    "RunLocation",
    "ScenarioRow",
    "StepName",
    "Verdict",
    "row_json",
]

Verdict = Literal["pass", "regressed", "improved", "inconclusive", "error", "added", "removed"]
VERDICTS: tuple[Verdict, ...] = (
    "pass",
    "regressed",
    "improved",
    "inconclusive",
    "error",
    "added",
    "removed",
)
"""Every scenario verdict, in the order counts are shown.

`added`: only the candidate has the scenario (never fails). `removed`: only the baseline has it
and `allow_missing` is on (otherwise that is an `error`: usually a crashed run). `improved` and
`inconclusive` come from the N-vs-M statistics of scenarios with several runs on a side.
"""


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RunLocation(_Record):
    """Which run: its id, its source relative to its side's root, the trace picked from it."""

    run: str
    source: str
    trace_id: str | None = None


class StepName(_Record):
    """A step named by type and name."""

    step_type: str
    name: str


class FirstDivergence(_Record):
    """Where the candidate first left the baseline's path.

    `position` is the 0-based index in the alignment; reports show it as row `position + 1`,
    the row `agentdiff compare` numbers for the same pair.
    """

    position: int
    """0-based index in the pair's alignment (row `position + 1` in every rendered report)."""
    op: str
    baseline: StepName | None
    candidate: StepName | None


class OpCounts(_Record):
    """How many alignment entries of each kind."""

    match: int = 0
    change: int = 0
    insert: int = 0
    delete: int = 0
    reorder: int = 0


class PairSummary(_Record, FoldedOptional):
    """One comparison that ran: a candidate run against its (nearest) baseline run."""

    baseline: RunLocation
    candidate: RunLocation
    route_distance: float
    """1 − 2·LCS / (|a| + |b|) over the runs' step signatures (0 = same route)."""
    divergence: float
    passed: bool
    first_divergence: FirstDivergence | None
    ops: OpCounts
    deltas: dict[str, Delta]
    """steps, tool_calls, errors, total_tokens, cost_usd, latency_ms (pct in percent)."""
    new_loops: list[str]
    violations: list[GateViolation]
    warnings: list[GateViolation]
    folded_framework_steps: dict[str, int] | None = None
    """Framework steps folded out of each run before the pair was compared (`baseline`,
    `candidate`; `fold_framework_steps`): its `deltas` and `ops` are of the steps kept. `None`
    (left out of the JSON) when folding was off."""


class RunError(_Record):
    """A run that could not be loaded (or a scenario side with no run)."""

    side: Literal["baseline", "candidate"]
    run: str | None
    source: str | None
    message: str


class ScenarioRow(_Record):
    """Everything the suite says about one scenario."""

    scenario: str
    verdict: Verdict
    baseline_runs: int
    candidate_runs: int
    overrides: dict[str, Any] = Field(default_factory=dict)
    """Gate and `[stats]` settings this scenario overrides (a manifest's `[[scenario]]`)."""
    pairs: list[PairSummary] = Field(default_factory=list)
    """Each candidate run against its nearest baseline run, in candidate run order."""
    deciding: int | None = None
    """Index in `pairs` of the pair that decides the verdict (the first failing one, else the
    most divergent one)."""
    errors: list[RunError] = Field(default_factory=list)
    stats: ScenarioReport | None = None
    """With several runs on a side: the N-vs-M tests, routes and verdict (`agentdiff.scenario`);
    its verdict is the row's."""

    @property
    def pair(self) -> PairSummary | None:
        """The deciding pair, if any comparison ran."""
        return None if self.deciding is None else self.pairs[self.deciding]


_ERRORS = b'"errors":[{'


def row_json(row: ScenarioRow) -> bytes:
    """The row's JSON, compact (the same bytes in every process)."""
    return orjson.dumps(row.model_dump(mode="json"))


class Rows(Sequence[ScenarioRow]):
    """Scenario rows kept as their JSON with their verdicts; a row is parsed when read."""

    __slots__ = ("_blobs", "_verdicts")

    def __init__(self, blobs: list[bytes], verdicts: list[str]) -> None:
        self._blobs, self._verdicts = blobs, verdicts

    @classmethod
    def of(cls, rows: Iterable[ScenarioRow]) -> Rows:
        """Rows from row objects."""
        listed = list(rows)
        return cls([row_json(r) for r in listed], [r.verdict for r in listed])

    @property
    def blobs(self) -> list[bytes]:
        """Each row's JSON, in order."""
        return self._blobs

    @property
    def verdicts(self) -> list[str]:
        """Each row's verdict, in order."""
        return self._verdicts

    def with_errors(self, *verdicts: str) -> Iterator[ScenarioRow]:
        """The rows with one of `verdicts` that list an error (a run that could not be loaded).

        Read off the JSON without parsing the other rows: `"errors":[{` is only ever the start
        of a non-empty `errors` list of a row (quotes inside a string are escaped).
        """
        wanted = set(verdicts)
        for blob, verdict in zip(self._blobs, self._verdicts, strict=True):
            if verdict in wanted and _ERRORS in blob:
                row = ScenarioRow.model_validate_json(blob)
                if row.errors:
                    yield row

    def having(self, *verdicts: str) -> Iterator[ScenarioRow]:
        """The rows with one of `verdicts`, parsed (the others are never parsed)."""
        wanted = set(verdicts)
        for blob, verdict in zip(self._blobs, self._verdicts, strict=True):
            if verdict in wanted:
                yield ScenarioRow.model_validate_json(blob)

    def __len__(self) -> int:
        return len(self._blobs)

    @overload
    def __getitem__(self, index: int) -> ScenarioRow: ...
    @overload
    def __getitem__(self, index: slice) -> Rows: ...
    def __getitem__(self, index: int | slice) -> ScenarioRow | Rows:
        if isinstance(index, slice):
            return Rows(self._blobs[index], self._verdicts[index])
        return ScenarioRow.model_validate_json(self._blobs[index])

    def __iter__(self) -> Iterator[ScenarioRow]:
        for blob in self._blobs:
            yield ScenarioRow.model_validate_json(blob)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Rows):
            return self._blobs == other._blobs
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Rows({len(self)} scenarios)"
