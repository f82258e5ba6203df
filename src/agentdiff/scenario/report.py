"""The N-vs-M report: pure, versioned data that the renderers read (`RunsReport.to_json()`).

One `ScenarioReport` per scenario: its tests (raw and adjusted p-values, effects with
intervals, practical thresholds), invariants (loops no baseline run shows), route clusters per
side, the baseline's noise floor, each candidate run's nearest baseline run, and the runs' own
metrics (for distributions). No traces are kept: any pair is re-derivable with `agentdiff
compare` on the two run ids a row lists.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict

from agentdiff.models.report import FoldedOptional
from agentdiff.stats_options import inconclusive_fails

__all__ = [
    "RUNS_REPORT_VERSION",
    "Band",
    "Departure",
    "Invariant",
    "NearestRun",
    "Needs",
    "Rate",
    "RouteRow",
    "RouteSection",
    "RoutesReport",
    "RunRow",
    "RunsReport",
    "ScenarioReport",
    "SkeletonPart",
    "StatTest",
    "TrieNode",
    "Verdict",
]

RUNS_REPORT_VERSION = "2"
"""2: the per-run metric tested is `model_turns` (every model turn, `Summary.model_turns`), not
`llm_calls` (steps typed `llm_call`: none in a LangGraph or CrewAI run, so version 1 never tested
their turns); `RunRow.model_turns` gives it per run. Route reports share the number: a
`RouteRow.skeleton` (and `side_routes`) shows a concurrent group as `{a ‖ b}` (`{a ‖×3}`), where
version 1 joined its steps with `→`; `RouteRow.concurrent` and `Departure.concurrent`,
`here_concurrent` and `main_concurrent` are new (optional, False). Added within version 2
(optional): `RouteRow.skeleton_parts` and `side_route_parts`, the skeletons in parts (a route
shown in part is cut between two, never inside a group)."""


class Verdict(str, Enum):
    """A scenario's (or one test's) outcome."""

    PASS = "pass"  # noqa: S105 - a verdict, not a password
    REGRESSED = "regressed"
    IMPROVED = "improved"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Band(_Record):
    """Median and quartiles of one metric on one side."""

    median: float
    q1: float
    q3: float
    runs: int


class Rate(_Record):
    """k of n runs, with the 95 % Wilson interval."""

    count: int
    runs: int
    low: float
    high: float


class StatTest(_Record):
    """One test of a scenario, in the worse direction (and the better one, for `improved`)."""

    name: str
    """What is tested: `cost_usd`, `runs with errors`, `route shift`, ..."""
    method: str
    """`mann-whitney (exact)`, `conformal rank`, `fisher exact`, `energy (999 permutations)`..."""
    baseline: Band | Rate | None = None
    candidate: Band | Rate | None = None
    shift: float | None = None
    """Hodges–Lehmann shift (candidate − baseline), in the metric's unit."""
    shift_low: float | None = None
    """95 % bootstrap interval of the shift (`[stats] bootstrap` seeded resamples)."""
    shift_high: float | None = None
    change_pct: float | None = None
    """Median ratio as a percent change."""
    change_low: float | None = None
    change_high: float | None = None
    statistic: float | None = None
    p: float
    """Raw one-sided p-value: the candidate is worse."""
    p_better: float
    adjusted_p: float
    """Holm-adjusted across this scenario's tests."""
    adjusted_p_better: float
    min_p: float
    """The smallest p this test could give with these runs."""
    threshold_pct: float | None = None
    """The practical threshold (percent) the effect must exceed; None: none applies."""
    effect_worse: bool
    """The effect passes the practical threshold in the worse direction."""
    effect_better: bool
    verdict: Verdict
    note: str | None = None

    def directed_p(self) -> tuple[float, float]:
        """The raw and Holm-adjusted p in the test's verdict's direction (better: `improved`)."""
        if self.verdict is Verdict.IMPROVED:
            return self.p_better, self.adjusted_p_better
        return self.p, self.adjusted_p


class Invariant(_Record):
    """A hard finding in candidate runs: a loop that no baseline run shows."""

    rule: str
    names: list[str]
    repetitions: int
    """The most repetitions a run shows."""
    fewest_repetitions: int | None = None
    """The fewest a run of `runs` shows (None: every run shows `repetitions`)."""
    runs: list[str]
    """Candidate run ids that show it."""
    frequency: str
    """`3/10 runs`."""
    message: str


class Departure(_Record):
    """Where a route first leaves the main route."""

    step: int
    """1-based position in the route's skeleton (just past its end: it ended there). Of folded
    runs (`fold_framework_steps`): the step's place in the run as given, in the order it ran,
    as `compare` shows a place (the skeleton leaves the folded steps out)."""
    main: str | None
    here: str | None
    extra_steps: int
    concurrent: bool = False
    """The step (here or on the main route) is in a concurrent group: its position counts the
    group's steps as the skeleton lists them (by name), not in the order they ran."""
    main_concurrent: bool = False
    """The main route's step there is in a concurrent group (`concurrent` without it: only
    this route's step is)."""
    here_concurrent: bool = False
    """This route's step there is in a concurrent group."""


class SkeletonPart(_Record):
    """One part of a skeleton, from one step boundary to the next.

    `plan`, `lookup_order ×3`, or a whole concurrent group, `{geocode ‖ web_search}`.
    """

    shown: str
    steps: int
    """The route's steps it holds (`lookup_order ×3`: 3; `{geocode ‖ web_search}`: 2)."""


class RouteRow(_Record):
    """One route cluster: its runs per side and what it looks like."""

    name: str
    counts: dict[str, int]
    """Runs per side (`baseline`, `candidate`; `runs` for one set of runs)."""
    skeleton: str
    """Its medoid's route: `a → b` one after another, `a ×3` repeated, `{a ‖ b}` one
    concurrent group (listed by name, not in the order they ran), `{a ‖×3}` three equal members
    of one."""
    skeleton_parts: list[SkeletonPart] = []
    """`skeleton` in parts (joined by ` → ` they read as `skeleton`); empty in a report written
    before routes gave them."""
    concurrent: bool = False
    """`skeleton` (or one of `side_routes`) shows a concurrent group."""
    medoid_run: str
    medoid_id: str
    variants: int
    new: bool
    """No baseline run takes this route (N-vs-M only)."""
    runs_with_loops: int
    runs_with_errors: int
    cost_median: float | None
    departure: Departure | None
    """Where its medoid first leaves the main route (None: it is the main route)."""
    side_routes: dict[str, str] = {}
    """A side none of whose runs here take the medoid's route: the route most of them take
    (a cluster holds routes within the threshold of each other, so "R1 5/5 → 5/5" may be two
    routes, one per side)."""
    side_route_parts: dict[str, list[SkeletonPart]] = {}
    """Each of `side_routes` in parts, under its side (see `skeleton_parts`)."""


class TrieNode(_Record):
    """The route trie: a step and the runs per side that passed through it."""

    step: str
    counts: dict[str, int]
    ends: dict[str, int] = {}
    """Runs whose route ends at this step, per side."""
    children: list[TrieNode] = []


class RouteSection(_Record, FoldedOptional):
    """The routes of a scenario."""

    threshold: float
    method: str
    """`average` linkage, or `leader` clustering above 1,500 distinct routes."""
    runs: int
    distinct: int
    """Distinct exact routes."""
    clusters: list[RouteRow]
    unexplained: Rate | None = None
    """Candidate runs farther than the threshold from every baseline run (N-vs-M only)."""
    trie: TrieNode
    folded_framework_steps: int | None = None
    """Framework steps folded out of its runs before their routes were read, over every run
    (`fold_framework_steps`): the skeletons and the trie are of the steps kept. `None` (left out
    of the JSON) when folding was off."""


class RoutesReport(_Record):
    """`agentdiff routes`: the route clusters of one set of runs, per scenario."""

    report_version: str = RUNS_REPORT_VERSION
    threshold: float
    scenarios: dict[str, RouteSection]

    def to_json(self) -> str:
        """The report as indented JSON."""
        data = self.model_dump(mode="json")
        return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


class NearestRun(_Record):
    """A candidate run against its nearest baseline run (route distance) under `compare`."""

    candidate_run: str
    baseline_run: str
    route_distance: float
    divergence: float
    first_divergence: str | None
    inserted: int
    deleted: int
    changed: int
    cost_change_pct: float | None
    gate_passed: bool
    violations: list[str]


class RunRow(_Record, FoldedOptional):
    """One run's metrics (for the distributions) and route cluster."""

    side: str
    run_id: str
    route: str
    """Its cluster's name."""
    steps: int
    tool_calls: int
    llm_calls: int
    """Steps typed `llm_call`."""
    model_turns: int | None = None
    """Model turns, whatever step type they map to (the tested metric); None in a saved report
    written before it was given (runs report version 1, suite report version 2)."""
    errors: int
    total_tokens: int | None
    cost_usd: float | None
    latency_ms: float | None
    loops: int
    outcome: bool | None
    folded_framework_steps: int | None = None
    """Framework steps folded before the run was read (`fold_framework_steps`): `steps` and the
    other counts are of the steps kept. `None` (left out of the JSON) when folding was off; 0
    when it was on and the run had no such step."""


class Needs(_Record):
    """Runs per side that would let the scenario reach significance."""

    baseline: int
    candidate: int
    threshold: float


class ScenarioReport(_Record):
    """N baseline runs against M candidate runs of one scenario."""

    scenario: str
    n_baseline: int
    n_candidate: int
    verdict: Verdict
    reasons: list[str]
    p: float | None = None
    """The scenario's p (smallest Holm-adjusted p of a test whose effect is large enough)."""
    q: float | None = None
    """Benjamini–Hochberg across scenarios (None: left out by Tarone's rule, or no p)."""
    p_better: float | None = None
    q_better: float | None = None
    min_p: float = 1.0
    tests: list[StatTest] = []
    untested: list[str] = []
    """Why a metric that some runs report was not tested (unknown or partial in a run):
    `total_tokens not tested: 6 of 6 candidate runs report tokens for only some model turns`."""
    invariants: list[Invariant] = []
    all_clean: bool = True
    """Every candidate run without errors, loops and per-pair gate failures (pass^k)."""
    routes: RouteSection | None = None
    noise_floor: Band | None = None
    """How far baseline runs stray from each other (leave-one-out nearest route distance)."""
    nearest: list[NearestRun] = []
    runs: list[RunRow] = []
    needs: Needs | None = None
    error: str | None = None

    def directed_p(self) -> tuple[float | None, float | None]:
        """The scenario's p and q in its verdict's direction.

        The better direction's for `improved`, else the worse one's (what `p` and `q` hold).
        """
        if self.verdict is Verdict.IMPROVED:
            return self.p_better, self.q_better
        return self.p, self.q

    def evidence(self, fdr: float) -> tuple[float, float] | None:
        """The scenario's p and q that support its verdict, in the verdict's direction.

        `improved`: the better direction's (`p_better`, `q_better`); `regressed` by the tests
        (q ≤ `fdr`): the worse direction's (`p`, `q`). None when no test decided the verdict
        (a hard finding such as a new loop, `inconclusive`, `pass`, `error`): the worse
        direction's p of an improved scenario is near 1, and printing it as the scenario's p
        would contradict its verdict.
        """
        decided = self.verdict is Verdict.IMPROVED or (
            self.verdict is Verdict.REGRESSED and self.q is not None and self.q <= fdr
        )
        p, q = self.directed_p()
        return None if not decided or p is None or q is None else (p, q)


class RunsReport(_Record):
    """Scenarios of N-vs-M runs, corrected across scenarios; the JSON contract."""

    report_version: str = RUNS_REPORT_VERSION
    settings: dict[str, Any]
    sources: dict[str, str] = {}
    """Where each non-default setting came from."""
    correction: str = "Holm within a scenario; Benjamini-Hochberg across scenarios (Tarone)"
    tarone_threshold: float | None = None
    counts: dict[str, int]
    scenarios: list[ScenarioReport]

    @property
    def failed(self) -> bool:
        """A scenario regressed, or was inconclusive under `inconclusive = "fail"` (exit 1)."""
        bad = {Verdict.REGRESSED}
        if inconclusive_fails(self.settings):
            bad.add(Verdict.INCONCLUSIVE)
        return any(s.verdict in bad for s in self.scenarios)

    def to_json(self) -> str:
        """The report as indented JSON (the contract)."""
        data = self.model_dump(mode="json")
        return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"
