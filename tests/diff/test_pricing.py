"""Cost estimates: the right row of the price table, and cached prompt tokens at cache rates."""

from __future__ import annotations

import pytest

from agentdiff.diff.pricing import DEFAULT_PRICES, cache_counts, estimate_cost, find_price
from tests.realdata import RealSource


@pytest.mark.parametrize(
    ("model", "row"),
    [
        ("gpt-4o-2024-08-06", "gpt-4o"),
        ("openai/gpt-4o-mini", "gpt-4o-mini"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4"),
        ("claude-opus-4-5", "claude-opus-4-5"),
        ("claude-opus-4-1", "claude-opus-4"),
        ("gemini-2.5-flash-lite", "gemini-2.5-flash-lite"),
        ("gpt-4.1", "gpt-4.1"),
    ],
)
def test_a_model_takes_its_longest_row_up_to_a_separator(model: str, row: str) -> None:
    assert find_price(model, DEFAULT_PRICES) is DEFAULT_PRICES[row]


@pytest.mark.parametrize("model", ["gpt-5.5", "gpt-5.1-codex", "gpt-40", "o3x", "mystery"])
def test_a_newer_version_is_never_priced_as_an_older_row(model: str) -> None:
    assert find_price(model, DEFAULT_PRICES) is None
    assert estimate_cost(model, 100, 10, DEFAULT_PRICES) is None


def test_cached_prompt_tokens_are_priced_at_cache_rates() -> None:
    # claude-sonnet-4: input 3, output 15, cache read 0.30, cache write 3.75 per million
    cost = estimate_cost("claude-sonnet-4-5", 10_000, 1_000, DEFAULT_PRICES, 6_000, 3_000)
    assert cost == pytest.approx((1_000 * 3 + 6_000 * 0.30 + 3_000 * 3.75 + 1_000 * 15) / 1e6)
    plain = estimate_cost("claude-sonnet-4-5", 10_000, 1_000, DEFAULT_PRICES)
    assert plain == pytest.approx((10_000 * 3 + 1_000 * 15) / 1e6)


def test_a_model_without_cache_rates_prices_cached_tokens_as_input() -> None:
    with_cache = estimate_cost("gpt-4-turbo", 1_000, 100, DEFAULT_PRICES, 800, 0)
    assert with_cache == estimate_cost("gpt-4-turbo", 1_000, 100, DEFAULT_PRICES)


def test_cache_counts_never_exceed_the_prompt() -> None:
    assert estimate_cost("gpt-4o", 100, 0, DEFAULT_PRICES, 10**9, 10**9) == pytest.approx(
        100 * 1.25 / 1e6
    )


@pytest.mark.parametrize(
    ("usage", "counts"),
    [
        ({"cache_read_input_tokens": 5, "cache_creation_input_tokens": 7}, (5, 7)),
        ({"cached_input_tokens": 4, "input_tokens": 9}, (4, 0)),
        ({"cache_read_input_tokens": True, "cached_input_tokens": -3}, (0, 0)),
        (None, (0, 0)),
    ],
)
def test_cache_counts_from_step_usage(usage: object, counts: tuple[int, int]) -> None:
    assert cache_counts(usage) == counts


def test_a_claude_code_session_is_priced_with_its_cache_tokens() -> None:
    from agentdiff.diff import trace_totals

    source = RealSource("claude_code")
    trace = source.load("session", "identical", "baseline")
    facts = source.facts("identical", "baseline")
    usage = facts["usage"]
    expected = (
        usage["input_tokens"] * 3
        + usage["cache_read_input_tokens"] * 0.30
        + usage["cache_creation_input_tokens"] * 3.75
        + usage["output_tokens"] * 15
    ) / 1e6
    totals = trace_totals(trace)
    assert totals.cost_usd == pytest.approx(expected)
    assert totals.cost_estimated


def test_the_built_in_table_is_read_only_and_one_object_across_processes():
    import pickle

    from agentdiff.diff.options import CompareOptions
    from agentdiff.diff.pricing import DEFAULT_PRICES

    options = CompareOptions()
    assert options.prices is DEFAULT_PRICES  # shared, not copied per comparison
    assert pickle.loads(pickle.dumps(options)).prices is DEFAULT_PRICES  # noqa: S301 - our own bytes
    with pytest.raises(TypeError):
        DEFAULT_PRICES["my-model"] = DEFAULT_PRICES["gpt-4o"]  # type: ignore[index]
    assert options.model_dump()["prices"] == {k: v.model_dump() for k, v in DEFAULT_PRICES.items()}


def test_remembered_lookups_answer_like_fresh_ones():
    from agentdiff.diff.pricing import DEFAULT_PRICES, find_price

    for model in ("gpt-4o-mini-2024-07-18", "openai/gpt-4o", "gpt-4o", "no-such-model", "GPT-4O"):
        first, again = find_price(model, DEFAULT_PRICES), find_price(model, DEFAULT_PRICES)
        assert first == again == find_price(model, dict(DEFAULT_PRICES))
