"""Every JUnit file parses whatever the names in it: U+FFFE and U+FFFF (which XML 1.0 cannot
hold) in a step name, a file name or a scenario made the suite's and compare-runs' JUnit
unreadable to CI (compare's was escaped already)."""

from __future__ import annotations

import xml.dom.minidom
from pathlib import Path

import pytest

from .helpers import cli, spec, write

ODD = "\ufffe\uffff\x0b"


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    base, cand = tmp_path / f"base{ODD}", tmp_path / f"cand{ODD}"
    for folder, failing in ((base, False), (cand, True)):
        for k in range(3):
            document = spec()
            document["trace_id"] = f"{folder.name}-{k}"
            for step in document["steps"]:
                step["name"] = f"{step['name']}{ODD}"
            if failing:
                document["steps"][1]["status"] = "error"
                document["steps"][1]["error_message"] = f"boom{ODD}"
            (folder / f"scenario{ODD}").mkdir(parents=True, exist_ok=True)
            write(folder / f"scenario{ODD}" / f"run{k}.json", document)
    return base, cand


@pytest.mark.parametrize("command", ["suite", "compare-runs"])
def test_junit_is_well_formed_with_characters_xml_cannot_hold(tmp_path: Path, command: str) -> None:
    base, cand = _folders(tmp_path)
    if command == "compare-runs":
        base, cand = base / f"scenario{ODD}", cand / f"scenario{ODD}"
    outcome = cli(
        command,
        base,
        cand,
        "-f",
        "junit",
        "--scenario" if command != "suite" else "--name",
        f"x{ODD}",
    )
    assert outcome.code in (0, 1), outcome.stderr
    xml.dom.minidom.parseString(outcome.stdout.encode())  # noqa: S318 - our own output
    assert "\\xffff" in outcome.stdout
