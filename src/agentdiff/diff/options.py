"""`CompareOptions`: every knob of `compare()` in one frozen object."""

from __future__ import annotations

import weakref
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, field_serializer

from agentdiff.diff.pricing import DEFAULT_PRICES, ModelPrice
from agentdiff.gate import RULES, GateThresholds
from agentdiff.models.report import Threshold

__all__ = ["CompareOptions", "applied_thresholds"]


class CompareOptions(BaseModel):
    """How two runs are compared and gated."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    detect_loops: bool = True
    """Scan for repeated tool calls; off when an agent legitimately polls."""
    strict_tool_signatures: bool = False
    """Steps match only when type, name and the same input keys (volatile keys left out) agree."""
    compare_content: bool = False
    """Count LLM text and tool-output differences as `change` (they are always recorded)."""
    fold_framework_steps: bool = False
    """Fold LangChain plumbing steps (RunnableSequence, prompt templates, routing lambdas) into
    their parent before comparing (`agentdiff.diff.fold`)."""
    ignore: tuple[str, ...] = ()
    """Dotted-path globs never compared, e.g. `input_payload.*.request_id`, `**.timestamp`."""
    gate: GateThresholds = Field(default_factory=GateThresholds)
    prices: Mapping[str, ModelPrice] = Field(default_factory=lambda: DEFAULT_PRICES)
    """USD per million tokens by model-name prefix, for estimating unknown costs (default: the
    built-in read-only table, whose lookups are remembered)."""
    sources: Mapping[str, str] = Field(default_factory=dict)
    """Where each setting's value came from (`flag --x`, `env AGENTDIFF_X`, `<file> [gate]`),
    filled by `agentdiff.config.load_options`; a setting absent here was an argument or the
    default."""

    @field_serializer("prices")
    def _plain_prices(self, prices: Mapping[str, ModelPrice]) -> dict[str, ModelPrice]:
        return dict(prices)  # the built-in table is a read-only mapping, dumped as a dict


def applied_thresholds(options: CompareOptions) -> list[Threshold]:
    """Every gate setting in rule-table order, with the rule reading it, its value and source.

    Kept for the last few options objects (a suite compares thousands of pairs with one); the
    records are frozen, and each report gets its own list.
    """
    gate, sources = options.gate, options.sources
    kept = _KEPT.get(id(options))
    # the options are frozen, but `sources` is a mapping a caller may still change in place:
    # the records are kept with a copy of it and reused only while it is equal
    if kept is None or kept[0]() is not options or kept[1] is not gate or kept[2] != sources:
        if len(_KEPT) >= _KEEP:
            _KEPT.clear()
        kept = _KEPT[id(options)] = (
            weakref.ref(options),
            gate,
            dict(sources),
            tuple(_thresholds(options)),
        )
    return list(kept[3])


_KEEP = 8
_KEPT: dict[
    int,
    tuple[weakref.ref[CompareOptions], GateThresholds, Mapping[str, str], tuple[Threshold, ...]],
] = {}
"""id(options) → (the options, their gate, a copy of their sources, their thresholds)."""


def _thresholds(options: CompareOptions) -> list[Threshold]:
    gate = options.gate
    given = gate.model_fields_set
    by_setting = {rule.setting: rule.name for rule in RULES}
    names = [*by_setting, *(n for n in type(gate).model_fields if n not in by_setting)]
    return [
        Threshold(
            setting=name,
            rule=by_setting.get(name),
            value=getattr(gate, name),
            source=options.sources.get(name) or ("argument" if name in given else "default"),
        )
        for name in names
    ]
