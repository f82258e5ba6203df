"""`CompareOptions`: every knob of `compare()` in one frozen object."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from agentdiff.diff.pricing import DEFAULT_PRICES, ModelPrice
from agentdiff.gate import GateThresholds

__all__ = ["CompareOptions"]


class CompareOptions(BaseModel):
    """How two runs are compared and gated."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    detect_loops: bool = True
    """Scan for repeated tool calls; off when an agent legitimately polls."""
    strict_tool_signatures: bool = False
    """Steps match only when type, name and the same input keys (volatile keys left out) agree."""
    compare_content: bool = False
    """Count LLM text and tool-output differences as `change` (they are always recorded)."""
    ignore: tuple[str, ...] = ()
    """Dotted-path globs never compared, e.g. `input_payload.*.request_id`, `**.timestamp`."""
    gate: GateThresholds = Field(default_factory=GateThresholds)
    prices: Mapping[str, ModelPrice] = Field(default_factory=lambda: dict(DEFAULT_PRICES))
    """USD per million tokens by model-name prefix, for estimating unknown costs."""
