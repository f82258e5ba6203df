"""A suite built from the real captured fixtures: one shape per source, five scenarios each.

`build(root)` copies `tests/fixtures/real/<source>/<scenario>/<side>.<shape>` to
`root/<side>/<source>/<scenario>.<ext>` (35 single-run scenarios per side, `layout="files"`)
and returns the two folders. Extras make the edge cases real: `extras=True` adds a scenario only
in the candidate, one only in the baseline and one whose candidate file is cut in half.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.realdata import SCENARIOS, RealSource

SOURCES = (
    "crewai",
    "genai",
    "langfuse",
    "langgraph",
    "langsmith",
    "openai_agents",
    "openinference",
)


def build(root: Path, *, extras: bool = False) -> tuple[Path, Path]:
    """The baseline and candidate folders of the fixture suite under `root`."""
    sides = root / "baseline", root / "candidate"
    for name in SOURCES:
        source = RealSource(name)
        shape = source.shapes[0]
        for scenario in SCENARIOS:
            for folder in sides:
                path = source.path(shape, scenario, folder.name)
                target = folder / name / f"{scenario}{path.suffix}"
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
    if extras:
        base, cand = sides
        (cand / "extra").mkdir(exist_ok=True)
        shutil.copyfile(base / "langfuse" / "identical.json", cand / "extra" / "added.json")
        (base / "extra").mkdir(exist_ok=True)
        shutil.copyfile(base / "langfuse" / "identical.json", base / "extra" / "removed.json")
        shutil.copyfile(base / "langfuse" / "identical.json", base / "extra" / "broken.json")
        text = (cand / "langfuse" / "identical.json").read_bytes()
        (cand / "extra" / "broken.json").write_bytes(text[: len(text) // 2])
    return sides
