"""Cookbook: a suite of every real fixture (333 scenarios), run locally and on a Dask LocalCluster.

Every real capture under `tests/fixtures/real/<source>/<scenario>/` (every SDK and export
shape of the manifests, five behaviours: identical, detour, loop, error_retry, reworded) becomes suite
scenarios, one run per side:

- `<source>/<shape>/<variant>`: the variant's own baseline against its candidate;
- `<source>/<shape>/identical-vs-<variant>`: the unchanged baseline against each variant's
  candidate (the variants as candidates).

The suite runs once with the default local backend (in-process or a process pool) and once on a
`LocalCluster` of two worker processes (`pip install 'agentdiff[dask]'`); both write a results
folder, and the two `suite.json` files are compared byte for byte.

    python cookbooks/suite_from_fixtures.py [WORK_DIR]
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

from agentdiff.suite import RunSet, SuiteOptions, run_suite
from agentdiff.suite.render import render_suite

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real"
VARIANTS = ("identical", "detour", "loop", "error_retry", "reworded")


def build(work: Path) -> tuple[Path, Path]:
    """Copy the fixtures into `work/baseline` and `work/candidate`, one file per scenario."""
    base, cand = work / "baseline", work / "candidate"
    for manifest_path in sorted(FIXTURES.glob("*/manifest.json")):
        source = manifest_path.parent
        shapes = json.loads(manifest_path.read_text(encoding="utf-8"))["shapes"]
        for shape, spec in shapes.items():
            pattern = spec["file"]
            ext = Path(pattern).suffix
            for variant in VARIANTS:
                pairs = {variant: variant}
                if variant != "identical":
                    pairs[f"identical-vs-{variant}"] = "identical"
                for name, base_variant in pairs.items():
                    where = Path(source.name) / shape / f"{name}{ext}"
                    for folder, side, from_variant in (
                        (base, "baseline", base_variant),
                        (cand, "candidate", variant),
                    ):
                        target = folder / where
                        target.parent.mkdir(parents=True, exist_ok=True)
                        file = source / from_variant / pattern.replace("<side>", side)
                        shutil.copyfile(file, target)
    return base, cand


def main(work: Path) -> None:
    """Build the suite, run it locally and on a LocalCluster, show what it found."""
    base_dir, cand_dir = build(work)
    baseline = RunSet.from_dir(base_dir, label="main", layout="files")
    candidate = RunSet.from_dir(cand_dir, label="candidate", layout="files")
    print(f"scenarios: {len(baseline.runs)} baseline, {len(candidate.runs)} candidate")

    local = run_suite(baseline, candidate, SuiteOptions(results=str(work / "local")))
    print(render_suite(local, "terminal").splitlines()[0])
    print(f"local backend: {local.timings['backend']}, {local.timings['wall_s']:.2f} s")

    by_variant: Counter[tuple[str, str]] = Counter()
    for row in local.scenarios:
        by_variant[row.scenario.rsplit("/", 1)[1], row.verdict] += 1
    for (variant, verdict), n in sorted(by_variant.items()):
        print(f"  {variant:24s} {verdict:9s} {n}")
    loops = [
        r for r in local.scenarios if r.pair and any(v.rule == "loop" for v in r.pair.violations)
    ]
    print(f"scenarios blocked by a tool loop: {len(loops)}")

    try:
        cluster = run_suite(
            baseline,
            candidate,
            SuiteOptions(backend="dask", jobs=2, results=str(work / "dask")),
        )
    except ImportError:
        print("dask is not installed: pip install 'agentdiff[dask]'")
        return
    same = (work / "local" / "suite.json").read_bytes() == (
        work / "dask" / "suite.json"
    ).read_bytes()
    print(f"LocalCluster: {cluster.timings['workers']} workers, {cluster.timings['batches']} tasks")
    print(f"LocalCluster suite.json identical to the local one: {same}")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as folder:
            main(Path(folder))
