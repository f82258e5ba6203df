"""`mypy --strict` on a user's script sees the public names, and flags a name that is not one.

The lazy names (`compare_runs`, ...) are resolved by a module `__getattr__` at run time; a type
checker must not see it, or it would type every misspelt name as `Any`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api")

SRC = Path(__file__).resolve().parents[1] / "src"

USER_SCRIPT = """
import agentdiff
from agentdiff import compare, compare_runs, load_trace

report = compare(load_trace("a.json"), load_trace("b.json"))
passed: bool = report.passed
scenario = compare_runs([], [])
agentdiff.load_trac("a.json")
"""


def test_a_misspelt_name_is_a_type_error_and_the_lazy_names_are_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "user.py"
    script.write_text(USER_SCRIPT)
    monkeypatch.setenv("MYPYPATH", str(SRC))
    limit = sys.getrecursionlimit()
    try:
        out, _, status = api.run(
            ["--strict", "--no-incremental", "--cache-dir", str(tmp_path / ".mypy"), str(script)]
        )
    finally:  # mypy raises the process's recursion limit for good: later tests in this worker
        sys.setrecursionlimit(limit)  # must see the default one
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1, out
    assert len(errors) == 1, out
    assert 'Module has no attribute "load_trac"' in errors[0]
    assert "user.py:8:" in errors[0]
