"""Exact signatures: equal exactly when base, failed-or-not and call key are equal."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.signatures import Signer

_STEP = st.tuples(
    st.integers(min_value=0, max_value=5),  # base
    st.booleans(),  # failed
    st.one_of(st.none(), st.sampled_from(["a\x00{}", 'a\x00{"q":1}', 'b\x00{"q":1}'])),
)


def _exacts(signer: Signer, steps: list[tuple[int, bool, str | None]]) -> list[int]:
    base = [b for b, _, _ in steps]
    failed = [f for _, f, _ in steps]
    calls = {i: call for i, (_, _, call) in enumerate(steps) if call is not None}
    return signer.exacts(base, failed, calls)


@given(st.lists(_STEP, max_size=30), st.lists(_STEP, max_size=30))
def test_exact_signatures_are_equal_exactly_when_the_steps_are(
    one: list[tuple[int, bool, str | None]], other: list[tuple[int, bool, str | None]]
) -> None:
    signer = Signer(Normalizer(), strict=False)  # both sides share one signer, as in compare()
    ids = _exacts(signer, one) + _exacts(signer, other)
    steps = one + other
    for i, step in enumerate(steps):
        assert (ids[i] < 0) == (step[2] is not None)  # tool calls negative, other steps not
        if step[2] is None:
            assert ids[i] == 2 * step[0] + step[1]
        for j in range(i):
            assert (ids[i] == ids[j]) == (step == steps[j])
