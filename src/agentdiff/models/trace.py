"""The canonical trace model: one `AgentTrace` per run, whose `TraceStep`s form a DAG.

Conventions every adapter follows:

- **Unknown is not zero.** Every `TokenUsage` field may be `None`; a source with tokens but no
  cost has `estimated_cost_usd=None`; a trace without token data has `total_tokens=None`.
- **Timestamps.** When the source has them, `step.metadata["started_at"]` and
  `step.metadata["ended_at"]` hold ISO 8601 UTC strings; the diff engine orders steps and detects
  concurrency with them. `latency_ms` is derived from them when the source gives no duration.
- **Payloads are dicts.** A JSON-string payload is parsed; any other value is wrapped as
  `{"value": ...}` (see `agentdiff.adapters._kit.payloads.as_payload`).
- **Source ids are kept.** The source's own ids (span ids, run ids, message ids) stay in
  `metadata` when they are not the step id. `trace.metadata["source_format"]` names the format
  the run was recorded in: the adapter that read it, or for canonical JSON that names its format
  (what `convert` and an approved baseline write), that format (`with_source_format`).
- **Step metadata the diff engine reads** (every other key is kept and shown, never compared):

  ===============  ==========================================================================
  key              meaning
  ===============  ==========================================================================
  ``started_at``   ISO 8601 UTC start (or epoch seconds): orders siblings, and two siblings
                   whose ``[started_at, ended_at]`` windows overlap ran concurrently
  ``ended_at``     ISO 8601 UTC end; without it a step has no window (sequential)
  ``turn_id``      the model message that issued a tool call: sibling calls with the same
                   ``turn_id`` are one concurrent turn (a different order is a ``reorder``),
                   different ids are different turns, whatever the timing. Set only from
                   evidence in the source (a call id, a message id, the SDK's turn span, or
                   the model message just before the call that lists it); where each adapter
                   finds it, and where a source gives none, is in ``docs/formats.md``
  ``model``        the model of an LLM/model turn, for cost estimates (also ``model_name``,
                   ``llm.model_name``, ``gen_ai.response.model``, ``gen_ai.request.model``,
                   ``ls_model_name``; first found wins)
  ===============  ==========================================================================

- **Lenient on dangling parents.** A `parent_id` that points at no step is kept as written, the
  step is treated as a root (by `to_networkx` and the diff engine) and the trace records a
  warning under `metadata["warnings"]`. Duplicate step ids and parent cycles are errors.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "CANONICAL_FORMAT",
    "FAILED",
    "SCHEMA_VERSION",
    "AgentTrace",
    "StepStatus",
    "StepType",
    "TokenUsage",
    "TraceStep",
    "check_graph",
    "not_a_trace",
    "with_source_format",
]

SCHEMA_VERSION = "1.0.0"

MAX_COUNT = 10**12
"""The largest token count a step or run may report (sums of five million stay within 64 bits)."""
MAX_AMOUNT = 1e15
"""The largest latency (ms) or cost (USD) a step or run may report (sums stay finite)."""
MAX_INDEX = 2**53
"""The largest `step_index` (exact as a float, so every JSON reader keeps it)."""

Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Amount = Annotated[float, Field(ge=0, le=MAX_AMOUNT, allow_inf_nan=False)]


class StepType(str, Enum):
    """What kind of work a step is."""

    TOOL_CALL = "tool_call"
    LLM_CALL = "llm_call"
    ROUTING = "routing"
    THOUGHT = "thought"
    RESPONSE = "response"
    """A final answer (used by the conversation-based adapters)."""


class StepStatus(str, Enum):
    """How a step ended."""

    SUCCESS = "success"
    ERROR = "error"
    RETRY = "retry"
    ABANDONED = "abandoned"


FAILED = frozenset((StepStatus.ERROR, StepStatus.RETRY))
"""Statuses of a failed attempt: `retry` is an attempt that failed and was marked for retry."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_enum_values=False)

    def __setattr__(self, name: str, value: Any) -> None:
        # Steps loaded by `agentdiff.canonical` share one fields-set per shape of input; pydantic
        # adds the assigned name to it, so this instance gets its own copy first.
        object.__setattr__(self, "__pydantic_fields_set__", set(self.__pydantic_fields_set__))
        super().__setattr__(name, value)


class TokenUsage(_Model):
    """Token counts and cost of a step or a whole run; `None` means unknown, never zero."""

    prompt_tokens: Count | None = None
    completion_tokens: Count | None = None
    total_tokens: Count | None = None
    estimated_cost_usd: Amount | None = None

    @property
    def is_empty(self) -> bool:
        """True when every field is unknown."""
        return all(
            v is None
            for v in (
                self.prompt_tokens,
                self.completion_tokens,
                self.total_tokens,
                self.estimated_cost_usd,
            )
        )

    @property
    def known_total(self) -> int | None:
        """`total_tokens`, else prompt + completion when both are known (as the totals count)."""
        if self.total_tokens is not None:
            return self.total_tokens
        if self.prompt_tokens is not None and self.completion_tokens is not None:
            return self.prompt_tokens + self.completion_tokens
        return None


class TraceStep(_Model):
    """One node of the trajectory DAG."""

    step_id: str
    """Unique within the trace."""
    parent_id: str | None = None
    """The step this one ran under; `None` for a root."""
    step_index: Annotated[int, Field(ge=0, le=MAX_INDEX)]
    """Sequential position in the run, as the source recorded it."""
    step_type: StepType
    name: str
    """Action name, e.g. `web_search`."""
    input_payload: dict[str, Any] = Field(default_factory=dict)
    output_payload: dict[str, Any] | None = None
    status: StepStatus = StepStatus.SUCCESS
    error_message: str | None = None
    latency_ms: Amount | None = None
    tokens: TokenUsage | None = None
    metadata: dict[str, Any] | None = None


class AgentTrace(_Model):
    """One run of an agent: its task, its answer and its steps (a DAG through `parent_id`)."""

    schema_version: str = SCHEMA_VERSION
    trace_id: str
    agent_name: str
    agent_version: str | None = None
    task_input: dict[str, Any] = Field(default_factory=dict)
    final_output: dict[str, Any] | None = None
    steps: list[TraceStep] = Field(default_factory=list)
    total_latency_ms: Amount | None = None
    total_tokens: TokenUsage | None = None
    metadata: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _check_graph(self) -> AgentTrace:
        return check_graph(self)

    def step_map(self) -> dict[str, TraceStep]:
        """Steps by id."""
        return {s.step_id: s for s in self.steps}

    def to_networkx(self) -> nx.DiGraph[str]:
        """The DAG as a `networkx.DiGraph`: parent → child edges, step fields as node attributes."""
        import networkx as nx  # noqa: PLC0415 - networkx import is slow; only users pay for it

        graph: nx.DiGraph[str] = nx.DiGraph()
        for step in self.steps:
            graph.add_node(step.step_id, **step.model_dump())
        for step in self.steps:
            if step.parent_id is not None and step.parent_id in graph:
                graph.add_edge(step.parent_id, step.step_id)
        return graph


CANONICAL_FORMAT = "generic"
"""The `source_format` of canonical AgentTrace JSON (the generic adapter's name)."""
_FORMAT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")
"""What a recorded format name may look like (an adapter's name); anything else is not kept."""


def with_source_format(metadata: object, source: str) -> dict[str, Any]:
    """A copy of a trace's `metadata` (a dict, or none) whose `source_format` is `source`.

    Canonical JSON (`source` is `CANONICAL_FORMAT`) whose metadata already names a format (an
    adapter's name: `convert` and an approved baseline write the one the run was recorded in)
    keeps that name. The key keeps its place if the metadata had it.
    """
    marked = dict(metadata) if isinstance(metadata, dict) else {}
    named = marked.get("source_format")
    if source != CANONICAL_FORMAT or not isinstance(named, str) or not _FORMAT_NAME.match(named):
        marked["source_format"] = source
    return marked


def check_graph(trace: AgentTrace) -> AgentTrace:
    """`trace` after the checks of its step graph (run by validation).

    Duplicate step ids and parent cycles raise `ValueError`; dangling parents are recorded as a
    warning under `metadata["warnings"]`. When every parent comes before its children (what
    every adapter writes) there can be neither a cycle nor a dangling parent, and one pass says so.
    """
    parents, ordered = _parent_map(trace.steps)
    if ordered:
        return trace
    dangling = sorted({p for p in parents.values() if p is not None and p not in parents})
    _raise_on_cycle(parents)
    if dangling:
        meta = dict(trace.metadata or {})
        warnings = [w for w in meta.get("warnings", []) if not str(w).startswith("dangling")]
        warnings.append(f"dangling parent_id kept as root: {', '.join(dangling)}")
        meta["warnings"] = warnings
        trace.metadata = meta
    return trace


def _parent_map(steps: list[TraceStep]) -> tuple[dict[str, str | None], bool]:
    """Each step's parent, and whether every parent came before its children."""
    parents: dict[str, str | None] = {}
    ordered = True
    for i, step in enumerate(steps):
        step_id, parent = step.step_id, step.parent_id
        if step_id in parents:
            first = next(j for j, s in enumerate(steps) if s.step_id == step_id)
            msg = (
                f"duplicate step_id {step_id!r} at steps[{first}] and steps[{i}]; "
                "step ids must be unique"
            )
            raise ValueError(msg)
        if parent is not None and parent not in parents:
            ordered = False
        parents[step_id] = parent
    return parents, ordered


def _raise_on_cycle(parents: dict[str, str | None]) -> None:
    done: set[str] = set()
    for start in parents:
        path: list[str] = []
        on_path: set[str] = set()
        node: str | None = start
        while node is not None and node in parents and node not in done:
            if node in on_path:
                cycle = [*path[path.index(node) :], node]
                msg = f"parent cycle between steps: {' -> '.join(cycle)}"
                raise ValueError(msg)
            path.append(node)
            on_path.add(node)
            node = parents[node]
        done.update(path)


def not_a_trace(value: object) -> str:
    """What the library says of a value given where a trace belongs: its type, how to load one."""
    return (
        f"got {type(value).__name__}; load a file with agentdiff.load_trace(path), a parsed "
        "document with agentdiff.parse_trace_data(data)"
    )
