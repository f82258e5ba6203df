"""Data flows one way: the engine (`diff/`) and the model never import an adapter."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "agentdiff"


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("package", ["diff", "models"])
def test_engine_and_model_import_nothing_from_adapters(package: str) -> None:
    files = sorted((SRC / package).rglob("*.py"))
    assert files
    leaks = {
        f"{path.relative_to(SRC)}: {module}"
        for path in files
        for module in _imports(path)
        if module.startswith("agentdiff.adapters")
    }
    assert leaks == set()


def test_time_parsing_is_neutral() -> None:
    assert not any(m.startswith("agentdiff.adapters") for m in _imports(SRC / "timeparse.py"))
