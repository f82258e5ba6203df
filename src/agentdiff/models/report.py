"""The diff report: pure, versioned data that every renderer and the gate read.

`DiffReport.to_json()` is a stable contract (`report_version`); its JSON Schema is published by
`agentdiff schema report` and committed under `schema/`. Version 2 counts `change` on the route
(divergence measures inserted and deleted steps only) and adds `first_change`, `changed_calls`,
retry outcomes and tool counts. The report also keeps both traces (not
serialized) so renderers can show payloads and the DAG without recomputing anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any, ClassVar, Literal

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from agentdiff.models.compact import shared_store
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TraceStep

__all__ = [
    "ON_PATH",
    "REPORT_VERSION",
    "Aligned",
    "Change",
    "CostCoverage",
    "Delta",
    "Deltas",
    "DiffReport",
    "Effect",
    "Finding",
    "FoldedOptional",
    "GateResult",
    "GateViolation",
    "LoopFinding",
    "Moved",
    "Op",
    "Recovery",
    "StepRef",
    "Summary",
    "Threshold",
    "TokenCoverage",
]

REPORT_VERSION = "2"
ERROR_CHARS = 2000
"""Longest error message a `StepRef` keeps (the full one stays in the trace)."""


class Op(str, Enum):
    """What happened to a step between baseline and candidate."""

    MATCH = "match"
    CHANGE = "change"
    INSERT = "insert"
    DELETE = "delete"
    REORDER = "reorder"


ON_PATH = frozenset((Op.MATCH, Op.REORDER, Op.CHANGE))
"""Ops that keep the candidate on the baseline's route: the spec matches steps on type + name
(`change` is the same step with other arguments, status or model). Only inserts and deletes
leave it."""


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# The alignment holds one `Aligned` and two `StepRef`s per step: 300,000 records for 100,000
# steps. They are frozen slots dataclasses (pydantic validates, serializes and documents them
# like models: same JSON, same schema) because a pydantic record costs ~1 µs and three tracked
# objects to build. `_FORBID` keeps unknown keys out when pydantic validates one.
_FORBID = ConfigDict(extra="forbid")


def _builder(cls: type) -> Callable[..., Any]:
    """A fast constructor for the frozen slots dataclass `cls`: `_builder(cls)(*values)`.

    A frozen dataclass's `__init__` stores each field with `object.__setattr__`, and filling
    the slots through their descriptors is not much cheaper. The builder is a mutable twin
    class with the same slots whose `__init__` stores the values (all given, in field order)
    with plain slot stores and then turns the instance into a `cls` by `__class__` assignment,
    which CPython allows between classes of one layout: calling the twin gives a `cls`, in one
    Python frame. The engine's fast path for records it builds by the hundred thousand;
    `tests/test_models.py` checks that each builder gives what `cls(...)` gives.
    """
    names = [f.name for f in fields(cls)]
    body = "".join(f"    self.{name} = {name}\n" for name in names)
    # generated like a dataclass's own `__init__`, from the field names of our own records
    source = f"def __init__(self, {', '.join(names)}):\n{body}    self.__class__ = record\n"
    scope: dict[str, Any] = {"record": cls}
    exec(source, scope)  # noqa: S102 - trusted text, built from our own field names
    twin: type = type(f"_{cls.__name__}Builder", (), {"__slots__": tuple(names)})
    twin.__init__ = scope["__init__"]  # type: ignore[misc]
    return twin


@dataclass(frozen=True, slots=True)
class StepRef:
    """Enough of a step to name it; the full step is in the report's traces."""

    __pydantic_config__ = _FORBID

    step_id: str
    parent_id: str | None
    step_index: int
    step_type: StepType
    name: str
    status: StepStatus
    error_message: str | None = None
    """The step's error message (longer ones cut to `ERROR_CHARS` with an ellipsis)."""

    @classmethod
    def of(cls, step: TraceStep) -> StepRef:
        """The reference of `step`."""
        return cls.of_fields(step_fields(step))

    of_fields: ClassVar[Callable[[dict[str, Any]], StepRef]]
    """`of_fields(held)`: the reference of the step whose field dict (`step_fields`) is
    `held` (`_RefOfFields`)."""


class _RefOfFields:
    """`StepRef.of_fields`: a twin of `StepRef` (see `_builder`) that reads the field dict itself.

    The engine makes a reference of every step (200,000 for a 100,000-step pair): calling
    this class is one Python frame (its `__init__`) where a classmethod calling a builder was
    two (~1,100 instructions fewer a reference).
    """

    __slots__ = (  # StepRef's fields (CPython keeps slots sorted by name either way)
        "error_message",
        "name",
        "parent_id",
        "status",
        "step_id",
        "step_index",
        "step_type",
    )

    def __init__(self, held: dict[str, Any]) -> None:
        self.step_id = held["step_id"]
        self.parent_id = held["parent_id"]
        self.step_index = held["step_index"]
        self.step_type = held["step_type"]
        self.name = held["name"]
        self.status = held["status"]
        error = held["error_message"]
        self.error_message = None if error is None else cut_error(error)
        self.__class__ = StepRef  # type: ignore[assignment]  # noqa: PLE0237 - see `_builder`


def cut_error(error: str) -> str:
    """The error message a `StepRef` keeps: longer ones cut to `ERROR_CHARS` with an ellipsis."""
    return error if len(error) <= ERROR_CHARS else error[: ERROR_CHARS - 1] + "…"


StepRef.of_fields = staticmethod(_RefOfFields)  # type: ignore[assignment]
new_step_ref: Callable[[str, str | None, int, StepType, str, StepStatus, str | None], StepRef] = (
    _builder(StepRef)
)
"""`StepRef(...)` with every value given (the error message already `cut_error`), in one
Python frame: for the engine, which reads the values off a step's field dict anyway (with
`of_fields` it read four of them twice)."""
step_fields: Callable[[TraceStep], dict[str, Any]] = BaseModel.__dict__["__dict__"].__get__
"""A step's field dict, read-only (where its attribute reads look). Reading many fields of a
step from it is faster than attribute reads, which pass pydantic's `__getattr__` hook: the
engine's per-step passes read steps this way."""


@dataclass(frozen=True, slots=True)
class Change:
    """One field that differs between an aligned pair of steps."""

    __pydantic_config__ = _FORBID

    path: str
    """Dotted path, e.g. `input_payload.units`; `status`; `model` (the model a model turn
    called: its metadata's model, else an LLM step's name)."""
    kind: Literal["argument", "status", "model", "content"]
    baseline: Any = None
    candidate: Any = None

    of: ClassVar[Callable[[str, str, Any, Any], Change]]
    """`of(path, kind, baseline, candidate)`: the same as `Change(...)` with every value given,
    about twice as fast (the builder itself, see `_builder`: one Python frame)."""


Change.of = staticmethod(_builder(Change))


@dataclass(frozen=True, slots=True)
class Aligned:
    """One entry of the alignment (in candidate execution order)."""

    __pydantic_config__ = _FORBID

    op: Op
    baseline: StepRef | None
    candidate: StepRef | None
    changes: list[Change] = field(default_factory=list)
    more_changes: int = 0
    """Further differences of this pair beyond the listed `changes` (the per-step cap)."""

    @classmethod
    def of(
        cls,
        op: Op,
        baseline: StepRef | None,
        candidate: StepRef | None,
        changes: list[Change],
        more_changes: int = 0,
    ) -> Aligned:
        """The same as `Aligned(op, baseline, candidate, changes)`, about twice as fast."""
        return new_aligned(op, baseline, candidate, changes, more_changes)


new_aligned: Callable[[Op, StepRef | None, StepRef | None, list[Change], int], Aligned] = _builder(
    Aligned
)
"""`Aligned.of` without the classmethod's own call (all five values given): the engine builds
one per alignment entry."""


class LoopFinding(_Record):
    """A repeated tool call (or window of calls) in the candidate."""

    names: list[str]
    repetitions: int
    step_ids: list[str]
    new: bool
    """False when the baseline already has this loop with at least as many repetitions."""
    baseline_repetitions: int = 0
    kind: Literal["loop", "retry_storm"] = "loop"


class Effect(_Record):
    """What a finding's own steps measurably carry (read off those steps, never estimated)."""

    steps: int
    """Steps the finding adds to the candidate (negative: removes from the baseline)."""
    tokens: int | None
    """Those steps' own total tokens (model turns only, as in the totals), signed like `steps`;
    `None` when none of them reports tokens."""
    of_tokens: float | None
    """The comparison's whole total-token change, for "+N of +M tokens"."""


FindingKind = Literal[
    "first_divergence",
    "first_change",
    "loop",
    "retry_storm",
    "added_steps",
    "removed_steps",
    "changed_calls",
    "error",
    "content",
]


class Finding(_Record):
    """One thing a reader should know first, with its evidence (rows are 1-based alignment rows).

    `kind` says what: the first divergence or first change, a loop or retry storm, a run of
    added or removed steps, calls whose arguments changed, a failed attempt, changed content.
    """

    kind: FindingKind
    rows: list[int]
    step_ids: list[str]
    tool: str | None = None
    """The tool (or step) name concerned; loops join their window with " → "."""
    count: int = 0
    """Repetitions of a loop, steps of a run, calls changed, steps with changed content."""
    new: bool | None = None
    """For loops: not already in the baseline at this size."""
    outcome: str | None = None
    """For errors: `retried_succeeded`, `retried_still_failing` or `gave_up`."""
    other_arguments: bool | None = None
    """For errors: the later attempt called the same tool with other arguments."""
    back_after: int | None = None
    """For errors: candidate steps until the run was back on the baseline path."""
    message: str | None = None
    """For errors: the step's error message."""
    counted: bool | None = None
    """For content: whether the changes counted as behaviour (`compare_content`)."""
    effect: Effect | None = None


class Recovery(_Record):
    """What became of one failed attempt (status `error` or `retry`) of the candidate."""

    error_step_id: str
    outcome: Literal["retried_succeeded", "retried_still_failing", "gave_up"]
    """Its later attempt succeeded, failed too, or there was none. For a tool call the later
    attempt is the run's next action when it calls the same tool (any arguments), else the next
    call of the same tool with the same normalized arguments; for another step, the next step
    of the same type and name."""
    retry_step_id: str | None = None
    """The later attempt (None: gave up)."""
    steps_to_recover: int | None
    """The candidate's steps off the baseline path (the error itself, when it is off it) before
    a later step is on it again (0: the error's next step is on it); None when no later step
    is on it (also when the run ended with the error)."""
    recovered: bool
    """A step after the error is on the baseline path (`steps_to_recover` is not None)."""
    retry: bool = False
    """True when the call was attempted again (`outcome` is one of the `retried_*`)."""
    other_arguments: bool = False
    """True when the later attempt called the same tool with other (normalized) arguments."""


@dataclass(frozen=True, slots=True)
class Moved:
    """Where each run ran the steps of one row whose pair moved inside its concurrent group.

    Rows list the candidate's execution order, so the baseline column of a `reorder` row is
    not the order the baseline ran: these positions are (1-based, in each run's execution
    order, as `compare` ordered it; of the run as given, also when `fold_framework_steps`
    compared folded copies).
    """

    __pydantic_config__ = _FORBID

    row: int
    """The 1-based alignment row (a `reorder`, or a `change` whose pair moved too)."""
    baseline_position: int
    """The baseline step's place in the order the baseline ran (1: its first step)."""
    candidate_position: int
    """The candidate step's place in the order the candidate ran."""


new_moved: Callable[[int, int, int], Moved] = _builder(Moved)
"""`Moved(row, baseline_position, candidate_position)`, built fast (see `_builder`)."""


class Delta(_Record):
    """Baseline vs candidate for one measure; unknown stays `None`; pct in percent units."""

    baseline: float | None
    candidate: float | None
    delta: float | None
    pct: float | None


class Deltas(_Record):
    """Every measured delta."""

    steps: Delta
    tool_calls: Delta
    llm_calls: Delta
    model_turns: Delta
    errors: Delta
    prompt_tokens: Delta
    completion_tokens: Delta
    total_tokens: Delta
    cost_usd: Delta
    latency_ms: Delta


class CostCoverage(_Record):
    """How many of a side's model turns have a cost (given by the trace or estimated)."""

    priced: int = Field(ge=0)
    turns: int = Field(ge=0)

    @property
    def partial(self) -> bool:
        """True when some model turns are priced and some are not."""
        return 0 < self.priced < self.turns

    def __str__(self) -> str:
        return f"{self.priced} of {self.turns} model turn{'s' if self.turns != 1 else ''} priced"


class TokenCoverage(_Record):
    """How many of a side's model turns report their tokens (all when the trace gives totals)."""

    reported: int = Field(ge=0)
    turns: int = Field(ge=0)

    @property
    def partial(self) -> bool:
        """True when some model turns report tokens and some do not."""
        return 0 < self.reported < self.turns

    def __str__(self) -> str:
        turns = f"{self.turns} model turn{'s' if self.turns != 1 else ''}"
        return f"{self.reported} of {turns} {'reports' if self.reported == 1 else 'report'} tokens"


_FOLDED = "folded_framework_steps"


class FoldedOptional(BaseModel):
    """A record whose `folded_framework_steps` is left out of its JSON when it is `None`.

    The field counts framework steps folded (`fold_framework_steps`); `None` is folding off, so
    a report made without folding is the same JSON as before the field existed.
    """

    # No return annotation: pydantic would publish the serialization schema of an annotated
    # wrap serializer as a bare object (the fields' schema is what the JSON holds).
    @model_serializer(mode="wrap")
    def _unfolded_as_before(  # type: ignore[no-untyped-def]  # noqa: ANN202
        self, handler: SerializerFunctionWrapHandler
    ):
        """Every field, `folded_framework_steps` only when folding was on."""
        data = handler(self)
        if data.get(_FOLDED) is None:
            data.pop(_FOLDED, None)
        return data


class Summary(_Record, FoldedOptional):
    """Totals for one side.

    `llm_calls` counts `llm_call` steps; `model_turns` counts every step that is a model turn
    whatever type it maps to (an `llm_call`, or any non-tool step that carries token usage or a
    `metadata["model"]`: LangGraph and CrewAI turns are routing/response steps). `cost_usd` sums
    what can be priced; `cost_coverage` says how many model turns that covers (all of them when
    the trace gives its own total cost; `None` when the side has no model turns).
    """

    trace_id: str
    agent_name: str
    source_format: str | None
    steps: int
    tool_calls: int
    llm_calls: int
    model_turns: int = 0
    errors: int
    """Failed attempts: steps with status `error` or `retry`."""
    retries: int = 0
    """Failed attempts that were attempted again (see `Recovery.outcome`)."""
    abandoned: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None
    cost_usd: float | None
    cost_estimated: bool
    cost_coverage: CostCoverage | None = None
    token_coverage: TokenCoverage | None = None
    """How many model turns `total_tokens` covers (`None` when the side has no model turns)."""
    latency_ms: float | None
    tool_counts: dict[str, int] = Field(default_factory=dict)
    """Calls per tool name (the `tool_repeats` gate rule reads it)."""
    folded_framework_steps: int | None = None
    """Framework steps folded into their parents before comparing (`fold_framework_steps`):
    `steps` and the other counts here are of the steps kept, so the run as given holds
    `steps + folded_framework_steps` steps. `None` (left out of the JSON) when folding was off;
    0 when it was on and the run had no such step."""


class GateViolation(_Record):
    """One rule the candidate broke (hard) or came close to (soft warning)."""

    rule: str
    message: str


class Threshold(_Record):
    """One gate setting as it applied to this comparison, and where its value came from."""

    setting: str
    """A `GateThresholds` field, e.g. `max_divergence`."""
    rule: str | None = None
    """The gate rule that reads it (`GateViolation.rule`), e.g. `divergence`."""
    value: float | int | bool | None
    """`None`: the rule was switched off."""
    source: str
    """`default`, `argument` (Python), `flag --x`, `env AGENTDIFF_X` or `<file> [gate]`."""


class GateResult(_Record):
    """The verdict: hard violations fail, warnings never change the exit code."""

    passed: bool
    violations: list[GateViolation] = Field(default_factory=list)
    warnings: list[GateViolation] = Field(default_factory=list)


class DiffReport(BaseModel):
    """Everything `compare()` found; renderers only read it."""

    # not `defer_build`: a deferred model's first build is not thread-safe in the pydantic
    # versions we allow (pydantic#11849), and it saved only ~12 ms of a CLI start-up
    model_config = ConfigDict(extra="forbid")

    report_version: str = REPORT_VERSION
    baseline: Summary
    candidate: Summary
    divergence: float
    """1 − 2·U / (|B| + |C|), U = the pairs (match, reorder or change): how much of both runs
    lies off the shared route (steps inserted or deleted). 0 when only arguments changed."""
    content_changes: int
    changed_calls: int = 0
    """Pairs whose behaviour differs on the same route (`change`: other arguments, status or
    model)."""
    first_divergence: Aligned | None
    """The first insert or delete: where the candidate leaves the baseline's route."""
    first_change: Aligned | None = None
    """The first entry whose behaviour differs (a change, insert or delete)."""
    alignment: list[Aligned]
    loops: list[LoopFinding]
    recovery: list[Recovery]
    moved: list[Moved] = Field(default_factory=list)
    """Each row whose pair moved inside its concurrent group, with where each run ran it."""
    deltas: Deltas
    gate: GateResult
    thresholds: list[Threshold] = Field(default_factory=list)
    """The gate settings that applied, each with where it came from."""
    findings: list[Finding] = Field(default_factory=list)
    """What a reader should know first, each with its evidence (see `Finding`)."""

    _baseline_trace: AgentTrace | None = PrivateAttr(default=None)
    _candidate_trace: AgentTrace | None = PrivateAttr(default=None)

    @classmethod
    def assemble(
        cls, baseline_trace: AgentTrace, candidate_trace: AgentTrace, **values: Any
    ) -> DiffReport:
        """`model_construct(**values).attach_traces(...)`, for `compare()`.

        Every field but `report_version` is given, from validated parts.

        The same instance (field dict in field order, fields-set, private values) without
        `model_construct`'s Python walk over the fields and its private-attribute set-up,
        ~80k instructions a report (a suite builds thousands of small ones);
        `tests/diff/test_unvalidated_records.py` checks it against `model_construct`.
        """
        if values.keys() != _GIVEN:
            msg = f"assemble needs exactly the fields {sorted(_GIVEN)}"
            raise TypeError(msg)
        held = {"report_version": REPORT_VERSION}
        for name in _GIVEN_ORDER:
            held[name] = values[name]
        private = {"_baseline_trace": baseline_trace, "_candidate_trace": candidate_trace}
        report: DiffReport = _REPORT_STORE.adopt(held, set(_GIVEN_ORDER), private)
        return report

    def attach_traces(self, baseline: AgentTrace, candidate: AgentTrace) -> DiffReport:
        """Keep both traces on the report (for renderers); returns self."""
        self._baseline_trace, self._candidate_trace = baseline, candidate
        return self

    @property
    def baseline_trace(self) -> AgentTrace | None:
        """The baseline trace the report was computed from, when attached."""
        return self._baseline_trace

    @property
    def candidate_trace(self) -> AgentTrace | None:
        """The candidate trace the report was computed from, when attached."""
        return self._candidate_trace

    @property
    def passed(self) -> bool:
        """True when the gate passed."""
        return self.gate.passed

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract as Python data."""
        return self.model_dump(mode="json")

    def to_json(self, *, indent: bool = True) -> str:
        """The JSON contract (`report_version` first)."""
        return self.to_json_bytes(indent=indent).decode()

    def to_json_bytes(self, *, indent: bool = True, newline: bool = False) -> bytes:
        """The JSON contract as UTF-8 bytes (what a file gets, without a copy as text).

        orjson writes the report directly (str enums it knows; every record gives its fields
        as a dict through `_fields_of`), the same bytes as `model_dump(mode="json")` without
        building that copy. A value orjson would write differently or not at all (a datetime,
        an integer past 64 bits or a dataclass in a changed argument given through the Python
        API) takes the pydantic route.
        """
        option = orjson.OPT_INDENT_2 if indent else 0
        option |= orjson.OPT_APPEND_NEWLINE if newline else 0
        try:
            # orjson's own walk of a slots dataclass (no `__dict__`) costs 1.5x the instructions
            # of handing it each record's dict (a 10,000-step report: 294 M → 177 M)
            return orjson.dumps(self, default=_fields_of, option=option | _DIRECT)
        except orjson.JSONEncodeError:
            return orjson.dumps(self.model_dump(mode="json"), option=option)

    def json_parts(self, *, newline: bool = False) -> Iterator[bytes | memoryview]:
        """`to_json_bytes()` (indented) in parts whose concatenation is the same bytes.

        The alignment (nearly all of a large report: ~80 MB at 100,000 steps) comes in slices
        of `_SLICE` entries, so a writer can put one part in a file while the next is made
        (see `files.write_atomically`) and the whole text never sits in memory at once. A
        slice is written as the alignment of a one-key object (`{"alignment": [...]}`): at
        the same depth, so with the same indentation as in the report; its entries are the
        bytes between that object's fixed head and tail. A part that orjson cannot write
        directly takes the pydantic route as `to_json_bytes` does.
        """
        option = orjson.OPT_INDENT_2 | (orjson.OPT_APPEND_NEWLINE if newline else 0)
        alignment = self.alignment
        outline = dict(self.__dict__, alignment=[])
        try:
            whole = orjson.dumps(outline, default=_fields_of, option=option | _DIRECT)
        except orjson.JSONEncodeError:
            yield self.to_json_bytes(newline=newline)
            return
        # A top-level key is the only text after a newline and two spaces (a string's own
        # newlines are escaped), so this finds the alignment's empty list.
        at = whole.index(_EMPTY_ALIGNMENT) + len(_EMPTY_ALIGNMENT) - len(b"[]")
        if not alignment:
            yield whole
            return
        yield memoryview(whole)[:at]
        yield b"[\n"
        dumped: list[Any] | None = None
        for start in range(0, len(alignment), _SLICE):
            if start:
                yield b",\n"
            try:
                yield _entries_json(alignment[start : start + _SLICE], _DIRECT)
            except orjson.JSONEncodeError:
                if dumped is None:
                    dumped = self.model_dump(mode="json", include={"alignment"})["alignment"]
                yield _entries_json(dumped[start : start + _SLICE], 0)
        yield b"\n  ]"
        yield memoryview(whole)[at + len(b"[]") :]


def _entries_json(entries: list[Any], direct: int) -> memoryview:
    """The JSON of alignment `entries` as they stand in the indented report (see `json_parts`)."""
    held = {"alignment": entries}
    text = orjson.dumps(held, default=_fields_of, option=orjson.OPT_INDENT_2 | direct)
    return memoryview(text)[len(_SLICE_HEAD) : -len(_SLICE_TAIL)]


_DIRECT = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
"""What `to_json_bytes` hands to `_fields_of` (which refuses what pydantic must write)."""
_SLICE = 2000
"""Alignment entries per part of `json_parts` (~1.6 MB of JSON with typical payloads)."""
_EMPTY_ALIGNMENT = b'\n  "alignment": []'
_SLICE_HEAD = b'{\n  "alignment": [\n'
_SLICE_TAIL = b"\n  ]\n}"


_GIVEN_ORDER = tuple(name for name in DiffReport.model_fields if name != "report_version")
_GIVEN = frozenset(_GIVEN_ORDER)


_REPORT_STORE = shared_store(DiffReport)


def _fields_of(value: Any) -> dict[str, Any]:
    """A record's fields in field order, for orjson (which calls this for what it cannot write).

    The dataclass records are spelled out, matched by exact type, most frequent first: one
    Python call per record (a 100,000-step report has 300,000 of them), no helper call in it.
    """
    kind = type(value)
    if kind is StepRef:
        return {
            "step_id": value.step_id,
            "parent_id": value.parent_id,
            "step_index": value.step_index,
            "step_type": value.step_type,
            "name": value.name,
            "status": value.status,
            "error_message": value.error_message,
        }
    if kind is Aligned:
        return {
            "op": value.op,
            "baseline": value.baseline,
            "candidate": value.candidate,
            "changes": value.changes,
            "more_changes": value.more_changes,
        }
    if kind is Change:
        return {
            "path": value.path,
            "kind": value.kind,
            "baseline": value.baseline,
            "candidate": value.candidate,
        }
    if kind is Moved:
        return {
            "row": value.row,
            "baseline_position": value.baseline_position,
            "candidate_position": value.candidate_position,
        }
    if kind is Summary and value.folded_framework_steps is None:
        return {name: held for name, held in value.__dict__.items() if name != _FOLDED}
    if isinstance(value, BaseModel):
        return value.__dict__
    raise TypeError(kind.__name__)
