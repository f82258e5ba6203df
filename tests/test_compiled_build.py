"""The build under test is the one asked for: the compiled engine (`make compiled`) or pure.

`make test` runs the suite twice, the second time with `AGENTDIFF_EXPECT_COMPILED=1` and the
compiled wheel's contents first on the path; each run checks it imported the build it names,
so a compiled run can never silently test the pure sources (nor the reverse).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import runpy
from pathlib import Path

import pytest

from tests.builds import COMPILED_RUN

ROOT = Path(__file__).resolve().parents[1]
COMPILED = runpy.run_path(str(ROOT / "hatch_build.py"), run_name="hatch_build_under_test")[
    "COMPILED"
]
EXPECT_COMPILED = COMPILED_RUN


@pytest.mark.parametrize("name", COMPILED)
def test_each_engine_module_comes_from_the_build_under_test(name):
    module = importlib.import_module(f"agentdiff.diff.{name}")
    extension = any(
        str(module.__file__).endswith(suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES
    )
    assert extension is EXPECT_COMPILED, module.__file__


def test_the_compiled_list_names_existing_engine_modules():
    engine = ROOT / "src" / "agentdiff" / "diff"
    assert COMPILED
    assert all((engine / f"{name}.py").is_file() for name in COMPILED)
    assert len(set(COMPILED)) == len(COMPILED)
