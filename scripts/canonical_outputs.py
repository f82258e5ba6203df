"""The canonical JSON of every real fixture, as hashes: regenerate, check or dump them.

`tests/fixtures/real/canonical.sha256.json` maps each fixture file (`<source>/<scenario>/<file>`)
to the sha256 of the canonical `AgentTrace` JSON that `agentdiff convert` prints for it. A change
of any adapter's output shows up as a changed hash; `tests/adapters/test_canonical_outputs.py`
checks them.

    python scripts/canonical_outputs.py --check       # list the fixtures whose output changed
    python scripts/canonical_outputs.py --write       # record the current outputs (a deliberate change)
    python scripts/canonical_outputs.py --dump DIR    # write every canonical JSON under DIR, to diff
                                                      # two checkouts' dumps with `diff -r`
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from agentdiff.baselines import canonical_json
from agentdiff.loader import load_trace

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "fixtures" / "real"
HASHES = REAL / "canonical.sha256.json"


def fixture_files() -> list[Path]:
    """Every trace file of every manifest's scenarios (not the facts), sorted."""
    return sorted(
        p
        for manifest in REAL.glob("*/manifest.json")
        for pattern in ("*/*.json", "*/*.jsonl")
        for p in manifest.parent.glob(pattern)
        if not p.name.endswith(".facts.json")
    )


def key(path: Path) -> str:
    """`<source>/<scenario>/<file>`."""
    return path.relative_to(REAL).as_posix()


def canonical_outputs() -> dict[str, str]:
    """The canonical JSON of each fixture file, by key."""
    return {key(p): canonical_json(load_trace(p)) for p in fixture_files()}


def current_hashes() -> dict[str, str]:
    """The sha256 of each fixture's canonical JSON, by key."""
    return {k: hashlib.sha256(v.encode()).hexdigest() for k, v in canonical_outputs().items()}


def recorded_hashes() -> dict[str, str]:
    """The hashes last written with `--write`."""
    data: dict[str, str] = json.loads(HASHES.read_text(encoding="utf-8"))
    return data


def changed(recorded: dict[str, str], current: dict[str, str]) -> list[str]:
    """The keys whose hash differs, is new, or is gone."""
    return sorted(k for k in recorded.keys() | current.keys() if recorded.get(k) != current.get(k))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--check", action="store_true")
    group.add_argument("--write", action="store_true")
    group.add_argument("--dump", type=Path, metavar="DIR")
    args = parser.parse_args(argv)
    if args.dump is not None:
        for name, text in canonical_outputs().items():
            target = args.dump / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        return 0
    if args.write:
        HASHES.write_text(json.dumps(current_hashes(), indent=1, sort_keys=True) + "\n")
        return 0
    differences = changed(recorded_hashes(), current_hashes())
    for name in differences:
        print(f"changed: {name}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
