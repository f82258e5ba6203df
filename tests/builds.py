"""Which build of the engine the tests run against (`make test` runs both).

The second run of `make test` puts the compiled wheel's contents first on the path and sets
`AGENTDIFF_EXPECT_COMPILED=1` (`tests/test_compiled_build.py` checks it got that build).
"""

from __future__ import annotations

import os

import pytest

COMPILED_RUN = os.environ.get("AGENTDIFF_EXPECT_COMPILED") == "1"

pure_only = pytest.mark.skipif(
    COMPILED_RUN,
    reason="counts the engine's internal calls by patching its modules; compiled modules call "
    "each other directly (the run on the pure sources checks it)",
)
"""For a test that patches an engine module's function to see how often the engine calls it."""
