"""Estimated cost from token counts and a model name, with a user-overridable price table.

Prices are USD per million tokens (input, output), matched by the longest model-name prefix
after lower-casing and dropping a provider prefix (`openai/gpt-4o` → `gpt-4o`). They are list
prices at the time of writing, for estimates only; pass `CompareOptions(prices=...)` to use your
own. A model not in the table gives an unknown cost, never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DEFAULT_PRICES", "ModelPrice", "estimate_cost", "find_price"]


class ModelPrice(BaseModel):
    """USD per million input and output tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_million: float = Field(ge=0, allow_inf_nan=False)
    output_per_million: float = Field(ge=0, allow_inf_nan=False)


def _p(i: float, o: float) -> ModelPrice:
    return ModelPrice(input_per_million=i, output_per_million=o)


DEFAULT_PRICES: Mapping[str, ModelPrice] = {
    "gpt-4o-mini": _p(0.15, 0.60),
    "gpt-4o": _p(2.50, 10.00),
    "gpt-4.1-nano": _p(0.10, 0.40),
    "gpt-4.1-mini": _p(0.40, 1.60),
    "gpt-4.1": _p(2.00, 8.00),
    "gpt-4-turbo": _p(10.00, 30.00),
    "gpt-4": _p(30.00, 60.00),
    "gpt-3.5-turbo": _p(0.50, 1.50),
    "gpt-5-nano": _p(0.05, 0.40),
    "gpt-5-mini": _p(0.25, 2.00),
    "gpt-5": _p(1.25, 10.00),
    "o1-mini": _p(1.10, 4.40),
    "o1": _p(15.00, 60.00),
    "o3-mini": _p(1.10, 4.40),
    "o3": _p(2.00, 8.00),
    "o4-mini": _p(1.10, 4.40),
    "claude-3-5-haiku": _p(0.80, 4.00),
    "claude-3-haiku": _p(0.25, 1.25),
    "claude-3-5-sonnet": _p(3.00, 15.00),
    "claude-3-7-sonnet": _p(3.00, 15.00),
    "claude-sonnet-4": _p(3.00, 15.00),
    "claude-3-opus": _p(15.00, 75.00),
    "claude-opus-4": _p(15.00, 75.00),
    "gemini-1.5-flash": _p(0.075, 0.30),
    "gemini-1.5-pro": _p(1.25, 5.00),
    "gemini-2.0-flash": _p(0.10, 0.40),
    "gemini-2.5-flash": _p(0.30, 2.50),
    "gemini-2.5-pro": _p(1.25, 10.00),
}


def find_price(model: str, prices: Mapping[str, ModelPrice]) -> ModelPrice | None:
    """The price of the longest table prefix of `model`, or `None`."""
    name = model.lower().rsplit("/", 1)[-1]
    best = max((key for key in prices if name.startswith(key.lower())), key=len, default=None)
    return prices[best] if best is not None else None


def estimate_cost(
    model: str | None, prompt: int | None, completion: int | None, prices: Mapping[str, ModelPrice]
) -> float | None:
    """Estimated USD cost, or `None` when the model or a token count is unknown."""
    if model is None or prompt is None or completion is None:
        return None
    price = find_price(model, prices)
    if price is None:
        return None
    return (prompt * price.input_per_million + completion * price.output_per_million) / 1e6
