"""Compact storage for the trace models: what a million steps cost in memory.

Pydantic gives every instance its own field dict and its own set of the fields it was given
(about 1.2 KB per step before any data). A `Store` builds, or re-packs, instances of one model
as validation leaves them but with a split field dict (its key table shared by every instance: a
third of the size) and one fields-set shared by the instances given the same fields (the models
copy theirs before an assignment changes it; see `models.trace`). `compact_trace` re-packs a
trace an adapter built and shares its repeated step names and parent ids.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from functools import cache
from itertools import compress, repeat
from operator import is_
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from agentdiff.models.trace import AgentTrace, TokenUsage, TraceStep

__all__ = ["Store", "compact_trace", "shared_store"]

_NEVER = object()
_new = object.__new__
_slots = BaseModel.__dict__
_set_dict = _slots["__dict__"].__set__
_set_fields_set = _slots["__pydantic_fields_set__"].__set__
_set_extra = _slots["__pydantic_extra__"].__set__
_set_private = _slots["__pydantic_private__"].__set__


class Store:
    """Compact instances of one model; `unset` marks a value not given (see `fill`)."""

    def __init__(self, cls: type[BaseModel], unset: object = _NEVER) -> None:
        self.cls = cls
        self.unset = unset
        self.fields = tuple(cls.model_fields)
        self.defaults = {name: _default_of(info) for name, info in cls.model_fields.items()}
        prototype = _new(cls)
        for name in self.fields:
            object.__setattr__(prototype, name, None)
        self.template: dict[str, Any] = prototype.__dict__
        """A split dict: copies of it share its keys (one key table for every instance)."""
        self.by_missing: dict[tuple[str, ...], set[str]] = {(): set(self.fields)}
        self.by_given: dict[frozenset[str], set[str]] = {}
        self._masks: dict[tuple[str, ...], list[set[str] | None]] = {}

    def fill(self, values: dict[str, Any]) -> set[str]:
        """Defaults for the fields `unset` in `values` (all fields, in order); the fields-set."""
        missing = tuple(compress(values, map(is_, values.values(), repeat(self.unset))))
        for name in missing:
            values[name] = self.defaults[name]()
        return self._without(missing)

    def _without(self, missing: tuple[str, ...]) -> set[str]:
        """The shared fields-set of instances given every field but `missing`."""
        fields_set = self.by_missing.get(missing)
        if fields_set is None:
            fields_set = self.by_missing[missing] = set(self.fields).difference(missing)
        return fields_set

    def fields_sets(self, optional: tuple[str, ...]) -> list[set[str] | None]:
        """The fields-sets by bit mask of the `optional` fields left out (bit i: `optional[i]`).

        Entries are `None` until `fields_set_of` has made them.
        """
        table = self._masks.get(optional)
        if table is None:
            table = self._masks[optional] = [None] * (1 << len(optional))
        return table

    def fields_set_of(self, optional: tuple[str, ...], missing: int) -> set[str]:
        """The fields-set when the `optional` fields in bit mask `missing` were left out."""
        left_out = tuple(name for i, name in enumerate(optional) if missing >> i & 1)
        fields_set = self.fields_sets(optional)[missing] = self._without(left_out)
        return fields_set

    def build(self, values: dict[str, Any]) -> Any:
        """An instance holding `values` (all fields in order; `unset` for one not given)."""
        return self.instance(values, self.fill(values))

    def instance(self, values: dict[str, Any], fields_set: set[str]) -> Any:
        """An instance holding `values` (complete) that says `fields_set`."""
        held = self.template.copy()
        held.update(values)
        return self.adopt(held, fields_set)

    def adopt(
        self, held: dict[str, Any], fields_set: set[str], private: dict[str, Any] | None = None
    ) -> Any:
        """An instance whose field dict is `held` (a filled copy of `template`, or every field).

        Fields in field order; `private`: every private value, for a model that has them.
        """
        instance = _new(self.cls)
        _set_dict(instance, held)
        _set_fields_set(instance, fields_set)
        _set_extra(instance, None)
        _set_private(instance, private)
        return instance

    def blanks(self, count: int) -> list[Any]:
        """`count` new instances, their field dicts empty, to fill in and then `settle`.

        Made in one C-level loop; each one's field dict shares the model's key table (a split
        dict, as `template` copies are) once filled in field order.
        """
        return list(map(_new, repeat(self.cls, count)))

    def settle(self, instances: list[Any], fields_sets: list[set[str]]) -> None:
        """Finish `blanks` whose field dicts are filled: each one's fields-set, no extras."""
        for setter, values in (
            (_set_fields_set, fields_sets),
            (_set_extra, repeat(None)),
            (_set_private, repeat(None)),
        ):
            deque(map(setter, instances, values), maxlen=0)  # C-level loops: no bytecode each

    def repack(self, instance: BaseModel) -> None:
        """Move `instance`'s values into a split dict and share its fields-set (in place)."""
        held = self.template.copy()
        held.update(instance.__dict__)
        _set_dict(instance, held)
        given = instance.__pydantic_fields_set__
        if len(given) == len(self.fields):
            _set_fields_set(instance, self.by_missing[()])
            return
        key = frozenset(given)
        shared = self.by_given.get(key)
        if shared is None:
            shared = self.by_given[key] = set(key)
        _set_fields_set(instance, shared)


def _default_of(info: FieldInfo) -> Callable[[], Any]:
    """What a field holds when not given: its factory's output, else its default."""
    if info.default_factory is not None:
        return info.default_factory  # type: ignore[return-value]
    default = info.default
    return lambda: default


@cache
def shared_store(cls: type[BaseModel], unset: object = _NEVER) -> Store:
    """One `Store` per model and unset marker, shared by every load in the process.

    Its fields-sets are shared by instances of different traces, as they are within one trace
    (the models copy theirs before an assignment changes it); building a `Store` per load
    was a tenth of the time of a 50-step canonical load.
    """
    return Store(cls, unset)


def compact_trace(trace: AgentTrace) -> AgentTrace:
    """`trace` with every step and token usage re-packed, names and parent ids shared."""
    steps, usage = Store(TraceStep), Store(TokenUsage)
    names: dict[str, str] = {}
    ids = {step.step_id: step.step_id for step in trace.steps}
    for step in trace.steps:
        steps.repack(step)
        held = step.__dict__
        held["name"] = names.setdefault(step.name, step.name)
        if step.parent_id is not None:
            held["parent_id"] = ids.get(step.parent_id, step.parent_id)
        if step.tokens is not None:
            usage.repack(step.tokens)
    return trace
