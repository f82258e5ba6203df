"""The build under test is the one asked for: the compiled engine (`make compiled`) or pure.

`make test` runs the suite twice, the second time with `AGENTDIFF_EXPECT_COMPILED=1` and the
compiled wheel's contents first on the path; each run checks it imported the build it names,
so a compiled run can never silently test the pure sources (nor the reverse).
"""

from __future__ import annotations

import runpy
from pathlib import Path

from agentdiff.diff.build import engine_modules
from tests.builds import COMPILED_RUN

ROOT = Path(__file__).resolve().parents[1]
COMPILED = runpy.run_path(str(ROOT / "hatch_build.py"), run_name="hatch_build_under_test")[
    "COMPILED"
]


def test_the_engine_modules_come_from_the_build_under_test():
    modules = engine_modules()
    compiled = sorted(name for name, extension in modules.items() if extension)
    # the compiled run: exactly the modules hatch_build.py compiles; the pure run: none
    assert compiled == (sorted(COMPILED) if COMPILED_RUN else [])
    assert set(COMPILED) < set(modules)


def test_the_compiled_list_names_existing_engine_modules():
    engine = ROOT / "src" / "agentdiff" / "diff"
    assert COMPILED
    assert all((engine / f"{name}.py").is_file() for name in COMPILED)
    assert len(set(COMPILED)) == len(COMPILED)
