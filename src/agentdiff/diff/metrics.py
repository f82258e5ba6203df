"""Totals per side and the deltas between them. Unknown stays `None`; never a sum of nested spans.

- **latency**: the trace's `total_latency_ms`, else wall clock (max `ended_at` − min
  `started_at`), else the sum of the root steps' latencies when every root step has one, else
  unknown (a sum over some of them would read as the whole run's).
- **model turns**: `llm_call` steps, and every other non-tool step that carries token usage or
  a model name (`metadata["model"]`, see `MODEL_KEYS`): a LangGraph or CrewAI model turn maps
  to a routing or response step, and is still a call to the model.
- **tokens**: the trace's `total_tokens` fields when given, else the sum over the model turns
  that report them; `token_coverage` says "1 of 2 model turns reports tokens" when some do not
  (all of them when the trace gives its total).
- **cost**: the trace's cost, else per model turn its own cost or, failing that, an estimate
  from its tokens and model name (`cost_estimated=True` when any is estimated). Turns that can
  be priced neither way are left out and counted: `cost_coverage` says "4 of 5 model turns
  priced". No turn priced → unknown.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from functools import partial
from itertools import compress
from operator import attrgetter, contains, is_not, itemgetter
from typing import Any

from agentdiff.diff.pricing import ModelPrice, cache_counts, estimate_cost
from agentdiff.models.compact import shared_store
from agentdiff.models.report import (
    CostCoverage,
    Delta,
    Deltas,
    StepRef,
    Summary,
    TokenCoverage,
    step_fields,
)
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TokenUsage, TraceStep

__all__ = [
    "MODEL_KEYS",
    "deltas",
    "is_model_turn",
    "model_turns",
    "own_tokens",
    "step_model",
    "steps_tokens",
    "summarize",
]

MODEL_KEYS = (
    "model",
    "model_name",
    "llm.model_name",
    "gen_ai.response.model",
    "gen_ai.request.model",
    "ls_model_name",
)
"""Step metadata keys that may name the model of an LLM step (first found wins); an LLM step
without any falls back to its own name (adapters often name LLM steps after the model)."""


def summarize(
    trace: AgentTrace,
    prices: Mapping[str, ModelPrice],
    wall_clock: tuple[float, float] | None,
    refs: Sequence[StepRef] | None = None,
    retries: int = 0,
    tool_counts: dict[str, int] | None = None,
    *,
    tool_calls: int | None = None,
    errors: int | None = None,
    turns: list[Held] | None = None,
) -> Summary:
    """The totals of one trace; `wall_clock` = (earliest start, latest end) in epoch seconds.

    `errors` counts failed attempts (status `error` or `retry`); `retries` is given by the
    caller: the failed attempts that were attempted again (`recovery.later_attempts`), as
    are `tool_counts` (calls per tool name).

    `refs`, the `StepRef`s of the trace's steps when the caller has them, are counted instead
    of the steps (the same types and statuses; small records are faster to walk). A caller
    that has counted the tool calls and failed attempts already (a prepared side lists them)
    gives `tool_calls` and `errors`, and they are not counted again; likewise `turns`, the field
    dicts of the trace's model turns (`model_turns(trace.steps)`, which a prepared side picked
    as it read the steps).
    """
    counted: Sequence[StepRef | TraceStep] = trace.steps if refs is None else refs
    # enum members compared by `list.count` (identity first, else str equality at C speed;
    # an enum's hash is Python code, so no Counter of them)
    statuses = list(map(_STATUS_OF, counted))
    if errors is None:
        errors = statuses.count(StepStatus.ERROR) + statuses.count(StepStatus.RETRY)
    if tool_calls is None:
        tool_calls = list(map(_TYPE_OF, counted)).count(StepType.TOOL_CALL)
    # steps and token usages are read through their field dicts (`Held`): an attribute read
    # of a pydantic model passes its `__getattr__` hook, several times the cost
    if turns is None:
        turns = model_turns(trace.steps)
    # every `llm_call` step is a model turn: counted among the turns, not over every step
    llm_calls = list(map(_STEP_TYPE, turns)).count(StepType.LLM_CALL)
    with_usage = [h for h in turns if h["tokens"] is not None]
    usages: list[Held] = list(map(step_fields, map(_TOKENS, with_usage)))
    given = trace.total_tokens
    prompt, completion, total, reported = _tokens(given, usages, len(turns))
    cost, estimated, priced = _cost(given, len(turns), with_usage, usages, prices)
    reported = len(turns) if reported is None else reported  # a trace total covers every turn
    return _summary(
        trace_id=trace.trace_id,
        agent_name=trace.agent_name,
        source_format=(trace.metadata or {}).get("source_format"),
        steps=len(trace.steps),
        tool_calls=tool_calls,
        llm_calls=llm_calls,
        model_turns=len(turns),
        errors=errors,
        retries=retries,
        abandoned=statuses.count(StepStatus.ABANDONED),
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        cost_usd=cost,
        cost_estimated=estimated,
        cost_coverage=_COVERAGE.adopt({"priced": priced, "turns": len(turns)}, _COVERAGE_GIVEN)
        if turns
        else None,
        token_coverage=_TOKEN_COVERAGE.adopt(
            {"reported": reported, "turns": len(turns)}, _TOKEN_COVERAGE_GIVEN
        )
        if turns
        else None,
        latency_ms=_latency(trace, wall_clock),
        tool_counts=tool_counts or {},
        folded_framework_steps=None,  # `totals.with_folded` says it of a folded copy
    )


def _summary(**values: Any) -> Summary:
    """The `Summary` of `values` (every field, in field order), unvalidated when it may be.

    When each value already has the type validation leaves (the usual case: counts made by
    `len` and `count`, floats from `fsum`, names and ids from validated models), the record
    is built as validation would build it without running it: with its `CostCoverage`, ~33k
    instructions of a 50-step pair's 11.7M (a suite compares thousands of small pairs).
    Anything else goes through validation, which converts or rejects it as it always did
    (`tests/diff/test_unvalidated_records.py`).
    """
    kept = all(map(contains, _SUMMARY_TYPES, map(type, values.values())))  # at C speed
    if kept and _names_only(values["tool_counts"]):
        built: Summary = _SUMMARY.adopt(values, _SUMMARY_GIVEN)
        return built
    return Summary(**values)


def _names_only(counts: dict[str, int]) -> bool:
    """Every key a plain string and every count a plain int (what validation leaves)."""
    return set(map(type, counts)) <= _STR and set(map(type, counts.values())) <= _INT


_STR, _INT = {str}, {int}
_SUMMARY, _COVERAGE = shared_store(Summary), shared_store(CostCoverage)
_SUMMARY_GIVEN, _COVERAGE_GIVEN = set(Summary.model_fields), set(CostCoverage.model_fields)
_TOKEN_COVERAGE = shared_store(TokenCoverage)
_TOKEN_COVERAGE_GIVEN = set(TokenCoverage.model_fields)
"""Every field given: one fields-set shared by all (frozen records never change theirs)."""
_OPTIONAL = type(None)
_SUMMARY_TYPES = (
    (str,),  # trace_id
    (str,),  # agent_name
    (str, _OPTIONAL),  # source_format
    *[(int,)] * 7,  # steps, tool_calls, llm_calls, model_turns, errors, retries, abandoned
    *[(int, _OPTIONAL)] * 3,  # prompt_tokens, completion_tokens, total_tokens
    (float, _OPTIONAL),  # cost_usd
    (bool,),  # cost_estimated
    (CostCoverage, _OPTIONAL),  # cost_coverage
    (TokenCoverage, _OPTIONAL),  # token_coverage
    (float, _OPTIONAL),  # latency_ms
    (dict,),  # tool_counts
    (_OPTIONAL,),  # folded_framework_steps
)
"""The exact types validation leaves in each field of `Summary`, in field order."""


_TYPE_OF = attrgetter("step_type")
_STATUS_OF = attrgetter("status")
_STEP_TYPE = itemgetter("step_type")
_PROMPT = itemgetter("prompt_tokens")
_COMPLETION = itemgetter("completion_tokens")
_TOTAL = itemgetter("total_tokens")
_STEP_ID = attrgetter("step_id")

Held = dict[str, Any]
"""A model's field dict (`step_fields`): a step's or a token usage's fields, read-only."""


def own_tokens(trace: AgentTrace, ids: AbstractSet[str]) -> dict[str, int]:
    """Step id → own total tokens of the steps in `ids` that the totals count (model turns)."""
    steps = trace.steps
    chosen = list(compress(steps, map(ids.__contains__, map(_STEP_ID, steps)))) if ids else []
    return steps_tokens(chosen)


def steps_tokens(steps: list[TraceStep]) -> dict[str, int]:
    """Step id → own total tokens of the `steps` that the totals count (model turns)."""
    owned = {}
    for held in model_turns(steps):
        usage = held["tokens"]
        if usage is not None:
            total = usage.total_tokens
            if total is None:
                total = _add(usage.prompt_tokens, usage.completion_tokens)
            if total is not None:
                owned[held["step_id"]] = total
    return owned


def model_turns(steps: list[TraceStep]) -> list[Held]:
    """The field dicts of the `steps` that are calls to a model, whatever their type."""
    return list(filter(is_model_turn, map(step_fields, steps)))


def is_model_turn(held: Held) -> bool:
    """The step whose field dict is `held` is a call to a model.

    An `llm_call` is; a tool call is not; any other step is when it reports token usage or
    names a model in its metadata.
    """
    kind = held["step_type"]
    if kind is _LLM:
        return True
    if kind is _TOOL_CALL:
        return False
    meta = held["metadata"]
    return held["tokens"] is not None or (meta is not None and "model" in meta)


_LLM, _TOOL_CALL = StepType.LLM_CALL, StepType.TOOL_CALL


def _sum(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


_Sums = tuple[int | None, int | None, list[int | None]]
"""The `usages`' prompt and completion tokens summed, and each one's total tokens as given."""


def _tokens(
    given: TokenUsage | None, usages: list[Held], turns: int
) -> tuple[int | None, int | None, int | None, int | None]:
    """Each total from `given` when it has it, else summed over the LLM steps' `usages`.

    `given`, the trace's own totals, counts only when it is the whole run's (`_all_turns`) of
    `turns` model turns. The fourth value: how many usages the summed total covers (None:
    `given` has the total).
    """
    sums: _Sums | None = None
    if given is not None and len(usages) < turns:
        sums = _sums(usages)
        given = _all_turns(given, sums)
    if (
        given
        and given.prompt_tokens is not None
        and given.completion_tokens is not None
        and given.total_tokens is not None
    ):
        return given.prompt_tokens, given.completion_tokens, given.total_tokens, None
    prompt_sum, completion_sum, totals = _sums(usages) if sums is None else sums
    prompt = given.prompt_tokens if given and given.prompt_tokens is not None else prompt_sum
    completion = (
        given.completion_tokens if given and given.completion_tokens is not None else completion_sum
    )
    if given and given.total_tokens is not None:
        return prompt, completion, given.total_tokens, None
    if None in totals:
        totals = [
            u["total_tokens"]
            if u["total_tokens"] is not None
            else _add(u["prompt_tokens"], u["completion_tokens"])
            for u in usages
        ]
    return prompt, completion, _sum(totals), len(totals) - totals.count(None)


def _sums(usages: list[Held]) -> _Sums:
    return (
        _sum(list(map(_PROMPT, usages))),
        _sum(list(map(_COMPLETION, usages))),
        list(map(_TOTAL, usages)),
    )


def _all_turns(given: TokenUsage, sums: _Sums) -> TokenUsage | None:
    """The trace's own token total, unless it is only the sum of the turns that report (`sums`).

    Adapters give a trace the sum of its steps' tokens (`sum_usage`), which leaves out a turn
    that reports none: taken as the trace's total, it would read as covering every turn. It is
    kept when every turn reports (the caller's check), or when it is more than that sum (the
    source's own total).
    """
    turns_sums = (sums[0], sums[1], _sum(sums[2]))
    held = (given.prompt_tokens, given.completion_tokens, given.total_tokens)
    summed = all(
        value is None or value == sum_ for value, sum_ in zip(held, turns_sums, strict=True)
    )
    return None if summed else given


def _cost_of_all_turns(given: TokenUsage | None, own: list[float], turns: int) -> float | None:
    """The trace's own cost, unless it is only the sum of the turns that have one (see above).

    `own` are the costs of the turns that have one. None: the cost is the turns' own, or
    estimated from their tokens, with its coverage.
    """
    cost = given.estimated_cost_usd if given is not None else None
    if cost is None:
        return None
    if len(own) >= turns or not math.isclose(cost, math.fsum(own), rel_tol=1e-9, abs_tol=1e-12):
        return cost
    return None


def _add(a: int | None, b: int | None) -> int | None:
    return a + b if a is not None and b is not None else None


def _cost(
    total: TokenUsage | None,
    turns: int,
    with_usage: list[Held],
    usages: list[Held],
    prices: Mapping[str, ModelPrice],
) -> tuple[float | None, bool, int]:
    """(cost, estimated, priced turns) of one side of `turns` model turns.

    `with_usage` are the turns with token usage and `usages` their usage. The trace's own
    total cost (`total`'s, when `_cost_of_all_turns` keeps it), else each turn's own cost or an
    estimate from its tokens and model (each model priced once); turns priced neither way are
    left out and counted.
    """
    own = list(map(_COST, usages))
    given: list[float] = list(filter(_KNOWN, own))
    own_cost = _cost_of_all_turns(total, given, turns)
    if own_cost is not None:
        return own_cost, False, turns
    # the turns to estimate: no cost of their own, both token counts known
    todo = [
        i
        for i, (cost, prompt, completion) in enumerate(
            zip(own, map(_PROMPT, usages), map(_COMPLETION, usages), strict=True)
        )
        if cost is None and prompt is not None and completion is not None
    ]
    costs, priced = list(given), len(given)
    per_model = _per_model(with_usage, usages, todo)
    for model, (prompt, completion, count, read, write) in per_model.items():
        guess = estimate_cost(model, prompt, completion, prices, read, write)
        if guess is not None:
            costs.append(guess)
            priced += count
    if not costs:
        return None, False, 0
    return math.fsum(costs), priced > len(given), priced


def _per_model(
    steps: list[Held], usages: list[Held], todo: list[int]
) -> dict[str | None, list[int]]:
    """Model → [prompt, completion, turns, cache read, cache write] summed over `todo`."""
    per_model: dict[str | None, list[int]] = {}
    llm, named = StepType.LLM_CALL, _MODEL_KEY_SET.isdisjoint
    for i in todo:
        step, usage = steps[i], usages[i]
        meta = step["metadata"]
        # `step_model(step)`, its common case inline (a call per model turn is most of the loop)
        if meta and not named(meta):
            model = step_model(step)
        else:
            model = step["name"] if step["step_type"] is llm else None
        sums = per_model.get(model)
        if sums is None:
            sums = per_model[model] = [0, 0, 0, 0, 0]
        sums[0] += usage["prompt_tokens"] or 0
        sums[1] += usage["completion_tokens"] or 0
        sums[2] += 1
        if meta and "usage" in meta:
            read, write = cache_counts(meta["usage"])
            sums[3] += read
            sums[4] += write
    return per_model


_TOKENS = itemgetter("tokens")
_COST = itemgetter("estimated_cost_usd")
_KNOWN = partial(is_not, None)


_MODEL_KEY_SET = frozenset(MODEL_KEYS)


def names_model(meta: Held | None) -> bool:
    """A model turn whose metadata is `meta` names its model there (`MODEL_KEYS`).

    When no model turn of a side does, every turn's model is its name (`step_model`), which
    steps paired by an alignment share: their models cannot differ. Asked per turn, by the
    pass that picks the model turns (`order`), not in a pass of its own over them.
    """
    return meta is not None and bool(meta) and not _MODEL_KEY_SET.isdisjoint(meta)


def step_model(step: Held) -> str | None:
    """The model of the step whose field dict is `step`.

    Its metadata's (`MODEL_KEYS`, first found), else an LLM step's name; None for another step.
    """
    meta = step["metadata"]
    if meta and not _MODEL_KEY_SET.isdisjoint(meta):
        for key in MODEL_KEYS:
            value = meta.get(key)
            if isinstance(value, str) and value:
                return value
    return step["name"] if step["step_type"] is StepType.LLM_CALL else None


def _latency(trace: AgentTrace, wall_clock: tuple[float, float] | None) -> float | None:
    if trace.total_latency_ms is not None:
        return trace.total_latency_ms
    if wall_clock is not None and wall_clock[1] >= wall_clock[0]:
        return round((wall_clock[1] - wall_clock[0]) * 1000.0, 3)
    ids = {s.step_id for s in trace.steps}
    roots = [s.latency_ms for s in trace.steps if s.parent_id not in ids]
    known = [ms for ms in roots if ms is not None]
    if not roots or len(known) < len(roots):  # a sum over some root steps is not the run's
        return None
    return math.fsum(known)


def _delta(
    baseline: int | float | None,  # noqa: PYI041 - an int stays an int (exact) until `number`
    candidate: int | float | None,  # noqa: PYI041
    number: Callable[[float], float | None] = float,
) -> dict[str, float | None]:
    """The fields of one `Delta`, each known value passed through `number`.

    Counts stay ints until then, so a difference of two large counts is exact (the compiled
    engine would make a `float` parameter a float on the way in).

    `float` gives what validation leaves (ints made floats); `_as_given` the raw values, for
    validation to judge.
    """
    if baseline is None or candidate is None:
        return {
            "baseline": None if baseline is None else number(baseline),
            "candidate": None if candidate is None else number(candidate),
            "delta": None,
            "pct": None,
        }
    change = candidate - baseline
    pct = (change / baseline * 100.0) if baseline else None
    return {
        "baseline": number(baseline),
        "candidate": number(candidate),
        "delta": number(change),
        "pct": pct,
    }


def _as_given(value: Any) -> Any:
    """The value as it is (an int past a float's range stays an int, for validation to judge)."""
    return value


_MEASURES = tuple(Deltas.model_fields)
"""The measures, in the order of `Deltas`' fields (each one of `Summary`'s)."""
_DELTA, _DELTAS = shared_store(Delta), shared_store(Deltas)
_DELTA_GIVEN, _DELTAS_GIVEN = set(Delta.model_fields), set(_MEASURES)
"""Every field given: one fields-set shared by all (frozen records never change theirs)."""


def deltas(b: Summary, c: Summary) -> Deltas:
    """Candidate minus baseline for every measure.

    The measures come from validated `Summary`s, so the `Delta`s are built from the values
    validation would give (ints as floats) without running it: eleven validations were ~160k
    instructions a compare, and a suite compares thousands of small pairs
    (`tests/diff/test_unvalidated_records.py` checks the records against validated ones).
    """
    before, after = b.__dict__, c.__dict__
    try:
        measured = {
            name: _DELTA.adopt(_delta(before[name], after[name]), _DELTA_GIVEN)
            for name in _MEASURES
        }
    except OverflowError:  # an int past a float's range: validation says what is wrong
        return Deltas.model_validate(
            {name: _delta(before[name], after[name], _as_given) for name in _MEASURES}
        )
    built: Deltas = _DELTAS.adopt(measured, _DELTAS_GIVEN)
    return built
