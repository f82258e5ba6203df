"""Every captured real scenario pair, discovered from the fixture manifests."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REAL = Path(__file__).parents[1] / "fixtures" / "real"
SCENARIOS = ("identical", "detour", "loop", "error_retry", "reworded")


@dataclass(frozen=True)
class RealPair:
    source: str
    shape: str
    adapter: str
    scenario: str
    baseline: Path
    candidate: Path

    @property
    def id(self) -> str:
        return f"{self.source}-{self.shape}-{self.scenario}"

    def facts(self, side: str) -> dict[str, Any]:
        folder = self.baseline.parent
        return json.loads((folder / f"{side}.facts.json").read_text())


def real_pairs(scenario: str | None = None) -> list[RealPair]:
    pairs = []
    for manifest_path in sorted(REAL.glob("*/manifest.json")):
        manifest = json.loads(manifest_path.read_text())
        for shape, spec in sorted(manifest["shapes"].items()):
            for name in SCENARIOS if scenario is None else (scenario,):
                folder = manifest_path.parent / name
                b = folder / spec["file"].replace("<side>", "baseline")
                c = folder / spec["file"].replace("<side>", "candidate")
                if b.exists() and c.exists():
                    pairs.append(RealPair(manifest["source"], shape, spec["adapter"], name, b, c))
    return pairs
