"""Field-level differences between two aligned steps: arguments, status, model and content.

Tool-call arguments, status and the model a model turn called are **behaviour** (`argument`,
`status`, `model`: the change's path is `model`, see `metrics.step_model`); LLM prompts and answers,
routing/thought payloads and tool outputs are **content** — recorded, but a `change` only with
`compare_content=True`, since real LLM wording always differs between runs.
"""

from __future__ import annotations

from typing import Any, Literal

from agentdiff.diff.metrics import step_model
from agentdiff.diff.normalize import Normalizer, volatile_tests
from agentdiff.limits import check_level, check_values
from agentdiff.models.report import Change
from agentdiff.models.trace import StepType

__all__ = ["MAX_CHANGES", "Changes", "same_model", "step_changes"]

_Kind = Literal["argument", "status", "model", "content"]

MAX_CHANGES = 20
"""Field differences listed per step pair; further ones are only counted (`Changes.more`)."""


class Changes(list[Change]):
    """The listed differences of one step pair, and how many more there were (`more`)."""

    more: int = 0


def step_changes(
    base: dict[str, Any],
    cand: dict[str, Any],
    normalizer: Normalizer,
    *,
    same_arguments: bool = False,
    models: bool = True,
) -> Changes:
    """Every recorded difference between two steps (same signature), capped.

    `base` and `cand` are the steps' field dicts (`models.report.step_fields`).
    `same_arguments=True` says the caller already knows the normalized tool arguments are equal;
    `models=False` that no model turn of either trace names its model in its metadata (paired
    steps then called the same model: `metrics.names_models`).
    """
    changes = Changes()
    status = base["status"]
    if status is not cand["status"]:
        changes.append(Change.of("status", "status", status.value, cand["status"].value))
    if models and base["step_type"] is not _TOOL and not same_model(base, cand):
        changes.append(Change.of("model", "model", step_model(base), step_model(cand)))
    tool = base["step_type"] is _TOOL
    if not (tool and same_arguments):
        a, b = base["input_payload"], cand["input_payload"]
        if a != b:
            _payload(a, b, "input_payload", "argument" if tool else "content", normalizer, changes)
    x, y = base["output_payload"], cand["output_payload"]
    if x != y:
        _payload(x, y, "output_payload", "content", normalizer, changes)
    return changes


_TOOL = StepType.TOOL_CALL


def same_model(base: dict[str, Any], cand: dict[str, Any]) -> bool:
    """Two paired steps called the same model, or neither names one in its metadata.

    Paired steps share their name, the model of an LLM step without a model in its metadata.
    Tool calls are no model turns (`metrics.is_model_turn`): callers leave them out.
    """
    if not (base["metadata"] or cand["metadata"]):
        return True
    return step_model(base) == step_model(cand)


def _payload(a: Any, b: Any, path: str, kind: _Kind, normalizer: Normalizer, out: Changes) -> None:
    """The differences of two unequal payloads (none when they are equal once normalized)."""
    if normalizer.has_ignores:
        root = (path,)
        a, b = normalizer.normalize(a, root), normalizer.normalize(b, root)
        if a == b:
            return
    _diff(a, b, path, kind, out, 1)


def _diff(a: Any, b: Any, path: str, kind: _Kind, out: Changes, level: int) -> None:
    """Leaf differences of two unequal values, volatile fields left out as it walks.

    No normalized copies; callers skip equal values (`x is y or x == y`) themselves, so no
    call or path is made for them. Past `MAX_CHANGES` the walk goes on only to count
    (`out.more`), building no records. `level` is the values' level of nesting in their
    payload (a payload is at level 1): a value the report holds nests at most `MAX_DEPTH`
    levels with it, else `RecursionError` (see `normalize.strip_volatile`; loaded traces never
    hold one).
    """
    if isinstance(a, dict) and isinstance(b, dict):
        check_level(level)
        tests = volatile_tests
        # the same keys on both sides (the usual case): no scan for the keys only b has
        keys = a if a.keys() == b.keys() else [*a, *(k for k in b if k not in a)]
        for key in keys:
            x, y = a.get(key, _MISSING), b.get(key, _MISSING)
            test = tests[key]
            if test is not None:
                x = _MISSING if x is not _MISSING and test(x) else x
                y = _MISSING if y is not _MISSING and test(y) else y
            if x is not y and not x == y:  # noqa: SIM201 - `_diff` has always tested ==
                _diff(x, y, f"{path}.{key}", kind, out, level + 1)
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        check_level(level)
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x is not y and not x == y:  # noqa: SIM201
                _diff(x, y, f"{path}.{i}", kind, out, level + 1)
        return
    if len(out) >= MAX_CHANGES:
        out.more += 1
        return
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        check_values([a, b], level)
    out.append(Change.of(path, kind, None if a is _MISSING else a, None if b is _MISSING else b))


_MISSING: Any = object()
