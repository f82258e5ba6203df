"""Estimated cost from token counts and a model name, with a user-overridable price table.

Prices are USD per million tokens (input, output, and where the provider lists them cached
input read and cache writes), matched by the longest model-name prefix after lower-casing and
dropping a provider prefix (`openai/gpt-4o` → `gpt-4o`). A prefix matches only up to a
separator (`-`, `_`, `:`, `@`), so `gpt-5.5` is not priced as `gpt-5` and stays unknown. They are
list prices at the time of writing, for estimates only; pass `CompareOptions(prices=...)` to use
your own. A model not in the table gives an unknown cost, never a guess.

Cached tokens are part of the prompt count (the canonical convention); the counts come from a
step's `metadata["usage"]` (`CACHE_READ_KEYS`, `CACHE_WRITE_KEYS`) and are priced at the cache
rates when the model has them, else as input.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CACHE_READ_KEYS",
    "CACHE_WRITE_KEYS",
    "DEFAULT_PRICES",
    "ModelPrice",
    "cache_counts",
    "estimate_cost",
    "find_price",
]

CACHE_READ_KEYS = (
    "cache_read_input_tokens",
    "cached_input_tokens",
    "input_cached_tokens",
    "input_cache_read",
    "prompt_tokens_details.cached_tokens",
    "input_tokens_details.cached_tokens",
)
"""`metadata["usage"]` keys that count prompt tokens read from a provider's cache
(`input_cache_read`: Langfuse's LangChain handler; the dotted ones: OpenAI's usage objects as
Langfuse records them, flattened)."""
CACHE_WRITE_KEYS = (
    "cache_creation_input_tokens",
    "cache_write_input_tokens",
    "input_cache_creation",
)
"""`metadata["usage"]` keys that count prompt tokens written to a provider's cache."""
_SEPARATORS = frozenset("-_:@ ")


class ModelPrice(BaseModel):
    """USD per million input and output tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_million: float = Field(ge=0, allow_inf_nan=False)
    output_per_million: float = Field(ge=0, allow_inf_nan=False)
    cache_read_per_million: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    """Cached input read; `None` prices it as input."""
    cache_write_per_million: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    """Input written to the cache; `None` prices it as input."""


def _p(i: float, o: float, read: float | None = None, write: float | None = None) -> ModelPrice:
    return ModelPrice(
        input_per_million=i,
        output_per_million=o,
        cache_read_per_million=read,
        cache_write_per_million=write,
    )


class _BuiltIn(Mapping[str, ModelPrice]):
    """The built-in price table: read-only, and one object even across processes.

    A pickled copy unpickles as `DEFAULT_PRICES` itself, so a pool worker's price lookups are
    remembered too (`find_price`).
    """

    def __init__(self, prices: dict[str, ModelPrice]) -> None:
        self._prices = prices

    def __getitem__(self, model: str) -> ModelPrice:
        return self._prices[model]

    def __iter__(self) -> Iterator[str]:
        return iter(self._prices)

    def __len__(self) -> int:
        return len(self._prices)

    def __reduce__(self) -> tuple[Callable[[], Mapping[str, ModelPrice]], tuple[()]]:
        return _built_in, ()


def _built_in() -> Mapping[str, ModelPrice]:
    return DEFAULT_PRICES


DEFAULT_PRICES: Mapping[str, ModelPrice] = _BuiltIn(
    {
        "gpt-4o-mini": _p(0.15, 0.60, 0.075),
        "gpt-4o": _p(2.50, 10.00, 1.25),
        "gpt-4.1-nano": _p(0.10, 0.40, 0.025),
        "gpt-4.1-mini": _p(0.40, 1.60, 0.10),
        "gpt-4.1": _p(2.00, 8.00, 0.50),
        "gpt-4-turbo": _p(10.00, 30.00),
        "gpt-4": _p(30.00, 60.00),
        "gpt-3.5-turbo": _p(0.50, 1.50),
        "gpt-5-nano": _p(0.05, 0.40, 0.005),
        "gpt-5-mini": _p(0.25, 2.00, 0.025),
        "gpt-5": _p(1.25, 10.00, 0.125),
        "o1-mini": _p(1.10, 4.40, 0.55),
        "o1": _p(15.00, 60.00, 7.50),
        "o3-mini": _p(1.10, 4.40, 0.55),
        "o3": _p(2.00, 8.00, 0.50),
        "o4-mini": _p(1.10, 4.40, 0.275),
        "claude-3-5-haiku": _p(0.80, 4.00, 0.08, 1.00),
        "claude-3-haiku": _p(0.25, 1.25, 0.03, 0.30),
        "claude-haiku-4-5": _p(1.00, 5.00, 0.10, 1.25),
        "claude-3-5-sonnet": _p(3.00, 15.00, 0.30, 3.75),
        "claude-3-7-sonnet": _p(3.00, 15.00, 0.30, 3.75),
        "claude-sonnet-4": _p(3.00, 15.00, 0.30, 3.75),
        "claude-3-opus": _p(15.00, 75.00, 1.50, 18.75),
        "claude-opus-4": _p(15.00, 75.00, 1.50, 18.75),
        "claude-opus-4-5": _p(5.00, 25.00, 0.50, 6.25),
        "gemini-1.5-flash": _p(0.075, 0.30),
        "gemini-1.5-pro": _p(1.25, 5.00),
        "gemini-2.0-flash": _p(0.10, 0.40),
        "gemini-2.5-flash-lite": _p(0.10, 0.40),
        "gemini-2.5-flash": _p(0.30, 2.50),
        "gemini-2.5-pro": _p(1.25, 10.00),
    }
)


def find_price(model: str, prices: Mapping[str, ModelPrice]) -> ModelPrice | None:
    """The price of the longest table prefix of `model` that ends at a separator, or `None`.

    Lookups in the built-in table are remembered (it never changes; a suite prices the same
    few models thousands of times).
    """
    if prices is DEFAULT_PRICES:
        if model not in _DEFAULT_FOUND:
            if len(_DEFAULT_FOUND) >= _FOUND_CACHE_SIZE:
                return _lookup(model, prices)
            _DEFAULT_FOUND[model] = _lookup(model, prices)
        return _DEFAULT_FOUND[model]
    return _lookup(model, prices)


def _lookup(model: str, prices: Mapping[str, ModelPrice]) -> ModelPrice | None:
    name = model.lower().rsplit("/", 1)[-1]
    best = max((key for key in prices if _prefix_of(key.lower(), name)), key=len, default=None)
    return prices[best] if best is not None else None


_DEFAULT_FOUND: dict[str, ModelPrice | None] = {}
_FOUND_CACHE_SIZE = 4096


def _prefix_of(key: str, name: str) -> bool:
    return name.startswith(key) and (len(name) == len(key) or name[len(key)] in _SEPARATORS)


def cache_counts(usage: object) -> tuple[int, int]:
    """(cache read, cache write) prompt tokens of a step's `metadata["usage"]` (0 when absent)."""
    if not isinstance(usage, dict):
        return 0, 0
    return _first_int(usage, CACHE_READ_KEYS), _first_int(usage, CACHE_WRITE_KEYS)


def _first_int(usage: dict[str, object], keys: tuple[str, ...]) -> int:
    for key in keys:
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return 0


def estimate_cost(
    model: str | None,
    prompt: int | None,
    completion: int | None,
    prices: Mapping[str, ModelPrice],
    cache_read: int = 0,
    cache_write: int = 0,
) -> float | None:
    """Estimated USD cost, or `None` when the model or a token count is unknown.

    `cache_read` and `cache_write` are the parts of `prompt` read from / written to the cache.
    """
    if model is None or prompt is None or completion is None:
        return None
    price = find_price(model, prices)
    if price is None:
        return None
    read, write = min(cache_read, prompt), min(cache_write, max(prompt - cache_read, 0))
    read_rate = (
        price.input_per_million
        if price.cache_read_per_million is None
        else price.cache_read_per_million
    )
    write_rate = (
        price.input_per_million
        if price.cache_write_per_million is None
        else price.cache_write_per_million
    )
    plain = prompt - read - write
    return (
        plain * price.input_per_million
        + read * read_rate
        + write * write_rate
        + completion * price.output_per_million
    ) / 1e6
