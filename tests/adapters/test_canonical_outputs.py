"""Every real fixture converts to the canonical JSON recorded in `canonical.sha256.json`.

The hashes pin the adapters' output: a restructure must leave them alone; a deliberate change of
an adapter's output re-records them with `python scripts/canonical_outputs.py --write` (and
`--dump DIR` before and after shows what changed, with `diff -r`).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "canonical_outputs.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("canonical_outputs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_real_fixture_converts_to_its_recorded_canonical_json() -> None:
    script = _script()
    recorded = script.recorded_hashes()
    assert len(recorded) == len(script.fixture_files()) > 100
    assert script.changed(recorded, script.current_hashes()) == []


def test_a_changed_output_is_reported() -> None:
    script = _script()
    recorded = script.recorded_hashes()
    name = min(recorded)
    assert script.changed({**recorded, name: "0" * 64}, recorded) == [name]
    assert script.changed(recorded, {k: v for k, v in recorded.items() if k != name}) == [name]
