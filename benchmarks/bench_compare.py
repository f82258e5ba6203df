"""Speed and memory of `compare()` and `agentdiff compare` on synthetic run pairs.

For each size N (baseline steps) it generates a realistic pair (`synthetic.py`), writes it as
canonical JSON and measures

- `compare()` in-process on traces already loaded: median wall time of several runs, and the
  peak of Python allocations during one extra run (`tracemalloc`);
- `agentdiff compare B C --format json` end to end as a subprocess (start-up, loading, compare,
  rendering): median wall time and the run's peak RSS (`measured.py`: started by a tiny
  launcher, so the benchmark's own memory is not counted; with the child that prepares a large
  candidate, both processes' memory together, sampled);
- at N=1,000 the yardstick, agent-trajectory-diff 0.7.0, as a black box: installed into a
  throwaway venv (`benchmarks/.yardstick-venv`, never ours), fed the same pair in its input
  format, its `compare()` and ours timed the same way, each in a fresh subprocess, round by
  round;
- at N=100,000 a reference engine: our own engine as of `--reference COMMIT` (default the
  commit whose run set the figures issue 11 quotes, 1.87 s), taken from git history and timed
  the same way, round by round with ours. The host's speed drifts by up to 2×, so this says
  how fast the host is today compared with when the target was set.

Prints a Markdown table and the verdicts against the targets of issues 11 and 13; a full default
run also writes `benchmarks/results.md`. `--quick` is a fast smoke run (small sizes, few repeats, no
yardstick, nothing written).

    python benchmarks/bench_compare.py [--sizes 1000,10000] [--quick] [--no-yardstick]
                                       [--reference COMMIT | --no-reference]
"""

from __future__ import annotations

import argparse
import compileall
import gc
import io
import itertools
import math
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import tracemalloc
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson
from engine_build import engine_build
from measured import run_measured
from synthetic import make_pair, write_pair

import agentdiff
from agentdiff import compare
from agentdiff.loader import load_trace
from agentdiff.models.report import DiffReport
from agentdiff.models.trace import AgentTrace

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.md"
DEFAULT_SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (1_000, 5_000)
SEED = 0

TARGET_COMPARE_S = 2.0
TARGET_CLI_S = 6.0
TARGET_CLI_TIGHT_S = 3.0
"""Issue 13's target for the same CLI run (issue 11's is `TARGET_CLI_S`)."""
TARGET_RSS_MB = 1536.0
TARGET_SPEEDUP = 100.0
TARGET_AT = 100_000
LINEAR_EXPONENT = 1.25
"""Time grows "about linearly" while log(t2/t1) / log(n2/n1) stays under this."""

YARDSTICK = "agent-trajectory-diff==0.7.0"
YARDSTICK_SIZE = 1_000
YARDSTICK_VENV = HERE / ".yardstick-venv"
DRIVER = """\
import gc, json, sys, time
if sys.argv[1] != "-":
    sys.path.insert(0, sys.argv[1])
from agentdiff import compare, load_trace
baseline, candidate = load_trace(sys.argv[2]), load_trace(sys.argv[3])
for _ in range(int(sys.argv[5])):
    compare(baseline, candidate)
runs = []
for _ in range(int(sys.argv[4])):
    gc.collect()
    start = time.perf_counter()
    compare(baseline, candidate)
    runs.append(time.perf_counter() - start)
print(json.dumps({"runs": runs, "engine": __import__("agentdiff").__file__}))
"""
"""Times a `compare()` in a subprocess: its public `load_trace` and `compare` (the yardstick's in
its venv; ours and the reference engine's from the sources they are given, argv[1]). Arguments: sources or
"-", baseline, candidate, runs timed, runs before them."""
YARDSTICK_ROUNDS = 5
"""Rounds of the side-by-side: each runs its `compare()` then ours, back to back."""
YARDSTICK_RUNS = 3
"""`compare()` runs timed per round and side (one subprocess each)."""
YARDSTICK_WARMUP = 1
"""`compare()` runs before the timed ones, per round and side (first-call costs left out)."""

REFERENCE_COMMIT = "486994e"
"""The engine whose benchmark run gave the figures issue 11 quotes (N=100,000 `compare()`
1.87 s, before the issue's semantics were added)."""
REFERENCE_SECONDS = 1.87
REFERENCE_AT = 100_000
REFERENCE_ROUNDS = 3
"""Rounds at N=100,000: each times the reference's `compare()` once, then ours once."""


@dataclass
class Row:
    """Everything measured at one size."""

    n: int
    candidate_steps: int
    compare_runs: list[float]
    compare_peak_mb: float
    cli_runs: list[float]
    rss_mb: float
    found: dict[str, Any]
    yardstick: Yardstick | None = None
    reference: Reference | None = None


@dataclass
class Yardstick:
    """The yardstick's timings at one size, or why it was skipped."""

    compare_runs: list[float] = field(default_factory=list)
    cli_runs: list[float] = field(default_factory=list)
    ours: list[float] = field(default_factory=list)
    """Our `compare()` in the same rounds (a process of its own, as the yardstick's)."""
    ratios: list[float] = field(default_factory=list)
    """Per round: its median `compare()` over ours, measured back to back."""
    skipped: str | None = None

    @property
    def speedup(self) -> float:
        """The median of the per-round ratios (robust to the host's speed drifting)."""
        return _median(self.ratios)


@dataclass
class Reference:
    """The reference engine's timings at one size, or why it was skipped."""

    commit: str
    compare_runs: list[float] = field(default_factory=list)
    ours: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)
    """Per round: ours over the reference's, measured back to back."""
    skipped: str | None = None


def _median(runs: list[float]) -> float:
    return statistics.median(runs) if runs else math.nan


def _repeats(n: int, quick: bool) -> tuple[int, int]:
    """(compare() runs, CLI runs) at size n."""
    if quick:
        return (3, 1) if n <= 1_000 else (1, 1)
    if n <= 1_000:
        return 9, 5
    return (5, 3) if n <= 10_000 else (3, 2)


# --- compare() in-process ---------------------------------------------------------------------


def _time_compare(
    baseline: AgentTrace, candidate: AgentTrace, repeats: int
) -> tuple[list[float], dict[str, Any]]:
    """Wall times of `repeats` runs, and what the first run found."""
    runs: list[float] = []
    found: dict[str, Any] = {}
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        report = compare(baseline, candidate)
        runs.append(time.perf_counter() - start)
        found = found or _found(report)
        del report
    return runs, found


def _peak_alloc_mb(baseline: AgentTrace, candidate: AgentTrace) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        compare(baseline, candidate)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def _found(report: DiffReport) -> dict[str, Any]:
    ops: dict[str, int] = {}
    for entry in report.alignment:
        ops[entry.op.value] = ops.get(entry.op.value, 0) + 1
    loops = [f"{' → '.join(lp.names)} ×{lp.repetitions}" for lp in report.loops if lp.new]
    return {**ops, "loops": ", ".join(loops) or "none", "divergence": report.divergence}


# --- the CLI, end to end ----------------------------------------------------------------------


def _fresh_bytecode() -> None:
    """Bring agentdiff's `.pyc` files up to date, as an installed copy has them.

    Under PYTHONDONTWRITEBYTECODE (set in some shells and CI images) an editable checkout never
    refreshes them, and every CLI run would recompile each module edited since (68 of them at
    one point: a third more start-up instructions, ~0.1 s a run, that no installed copy pays).
    """
    try:
        compileall.compile_dir(Path(agentdiff.__file__).parent, quiet=1)
    except OSError as exc:  # a read-only checkout: measured as it is
        print(f"note: bytecode not refreshed ({exc})", file=sys.stderr)


def _cli_command() -> list[str]:
    script = Path(sys.executable).with_name("agentdiff")
    return [str(script)] if script.exists() else [sys.executable, "-m", "agentdiff"]


def _run_measured(command: list[str], cwd: Path) -> tuple[float, float, int]:
    """Wall seconds, peak RSS in MiB (the command's own: `measured`) and exit code of one run."""
    with tempfile.TemporaryFile() as errors:
        elapsed, rss, code = run_measured(command, cwd, errors)
        if code not in (0, 1):
            errors.seek(0)
            detail = errors.read().decode(errors="replace").strip()[-2000:]
            msg = f"{' '.join(command)} exited {code}: {detail}"
            raise RuntimeError(msg)
    return elapsed, rss, code


def _measure_cli(paths: tuple[Path, Path], repeats: int, work: Path) -> tuple[list[float], float]:
    out = work / "report.json"
    command = [*_cli_command(), "compare", str(paths[0]), str(paths[1]), "--format", "json"]
    runs, peak = [], 0.0
    for _ in range(repeats):
        elapsed, rss, _ = _run_measured([*command, "-o", str(out)], work)
        runs.append(elapsed)
        peak = max(peak, rss)
    report = orjson.loads(out.read_bytes())
    if not report.get("loops"):
        msg = f"the CLI's JSON report at {paths[0].parent.name} steps found no loop"
        raise RuntimeError(msg)
    return runs, peak


# --- the yardstick (black box) ----------------------------------------------------------------


class YardstickUnavailableError(RuntimeError):
    """The yardstick could not be installed or run."""


def _yardstick_python() -> Path:
    """The throwaway venv's interpreter, with the yardstick installed (created on first use)."""
    python = YARDSTICK_VENV / "bin" / "python"
    if not python.exists():
        _checked([sys.executable, "-m", "venv", "--clear", str(YARDSTICK_VENV)], 300)
    probe = [
        str(python),
        "-I",
        "-c",
        "import importlib.metadata as m; print(m.version('agent-trajectory-diff'))",
    ]
    if subprocess.run(probe, capture_output=True, text=True, check=False).stdout.strip() != "0.7.0":
        _checked(
            [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", YARDSTICK],
            900,
        )
    return python


def _checked(command: list[str], timeout: float) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise YardstickUnavailableError(f"{command[-1]}: {exc}") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise YardstickUnavailableError(f"`{' '.join(command[-3:])}` failed: {tail[0]}")


def yardstick_document(trace: AgentTrace) -> dict[str, Any]:
    """The trace in the yardstick's input format (the same fields; it has no `response` type)."""
    data = trace.model_dump(mode="json", exclude_none=True)
    for step in data["steps"]:
        if step["step_type"] == "response":
            step["step_type"] = "llm_call"
    return data


def _measure_yardstick(
    traces: tuple[AgentTrace, AgentTrace], paths: tuple[Path, Path], cli_repeats: int, work: Path
) -> Yardstick:
    """Its `compare()` and ours alternately, round by round, so both see the same host speed.

    Both are timed the same way: `DRIVER` in a fresh subprocess (`-I`), the same number of
    runs before the timed ones, on the same pair (`paths` ours, in our format). Ours in this
    process measured ~7% slower than in a process of its own (this one holds the generated pair
    and everything measured so far), which is a cost of the benchmark, not of `compare()`.
    """
    try:
        python = _yardstick_python()
    except YardstickUnavailableError as exc:
        return Yardstick(skipped=str(exc))
    yard_paths = work / "yard-baseline.json", work / "yard-candidate.json"
    for trace, path in zip(traces, yard_paths, strict=True):
        path.write_bytes(orjson.dumps(yardstick_document(trace)))
    runs = [str(YARDSTICK_RUNS), str(YARDSTICK_WARMUP)]
    driver = str(_driver(work))
    theirs_args = [str(python), "-I", driver, "-", *map(str, yard_paths), *runs]
    sources = _our_sources()
    ours_args = [sys.executable, "-I", driver, str(sources), *map(str, paths), *runs]
    yard = Yardstick()
    for _ in range(YARDSTICK_ROUNDS):
        try:
            theirs = _driver_runs(theirs_args, work, YARDSTICK_VENV)
            ours = _driver_runs(ours_args, work, sources)
        except YardstickUnavailableError as exc:
            return Yardstick(skipped=str(exc))
        yard.compare_runs += theirs
        yard.ours += ours
        yard.ratios.append(_median(theirs) / _median(ours))
    cli = [str(python.with_name("agentdiff")), "diff", *map(str, yard_paths), "--format", "json"]
    yard.cli_runs = [_run_measured(cli, work)[0] for _ in range(cli_repeats)]
    return yard


def _our_sources() -> Path:
    """The folder our engine was imported from (the sources, or the compiled build)."""
    return Path(agentdiff.__file__).resolve().parent.parent


# --- the reference engine (our own, from git history) -----------------------------------------


def _reference_sources(commit: str, work: Path) -> Path:
    """The `src` folder of `commit`, extracted from this checkout's history into `work`."""
    try:
        done = subprocess.run(
            ["git", "-C", str(HERE.parent), "archive", "--format=tar", commit, "src"],
            capture_output=True,
            check=False,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise YardstickUnavailableError(f"git archive {commit}: {exc}") from None
    if done.returncode != 0:
        detail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise YardstickUnavailableError(f"git archive {commit} failed: {detail[0]}")
    target = work / f"reference-{commit}"
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        archive.extractall(target, filter="data")
    return target / "src"


def _measure_reference(commit: str, paths: tuple[Path, Path], work: Path) -> Reference:
    """The reference's `compare()` and ours alternately, round by round (same host speed).

    Both timed the same way: `DRIVER` in a fresh subprocess, one run before the timed one.
    """
    try:
        sources = _reference_sources(commit, work)
    except YardstickUnavailableError as exc:
        return Reference(commit=commit, skipped=str(exc))
    driver, files = str(_driver(work)), [*map(str, paths), "1", "1"]
    args = [sys.executable, "-I", driver, str(sources), *files]
    mine = _our_sources()
    ours_args = [sys.executable, "-I", driver, str(mine), *files]
    ref = Reference(commit=commit)
    for _ in range(REFERENCE_ROUNDS):
        try:
            theirs = _driver_runs(args, work, sources)
            ours = _driver_runs(ours_args, work, mine)
        except YardstickUnavailableError as exc:
            return Reference(commit=commit, skipped=str(exc))
        ref.compare_runs += theirs
        ref.ours += ours
        ref.ratios.append(ours[0] / theirs[0])
    return ref


def _driver(work: Path) -> Path:
    """`DRIVER` written into `work` (once per folder)."""
    path = work / "compare_driver.py"
    if not path.exists():
        path.write_text(DRIVER)
    return path


def _driver_runs(args: list[str], work: Path, sources: Path | None = None) -> list[float]:
    """The timed `compare()` runs of one `DRIVER` subprocess (`args`).

    Raises `YardstickUnavailableError` when it fails, or when, given its `sources`, it imported
    an engine from anywhere else.
    """
    done = subprocess.run(args, cwd=work, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise YardstickUnavailableError(f"compare() failed: {done.stderr.strip()[-300:]}")
    result = orjson.loads(done.stdout)
    if sources is not None and not Path(result["engine"]).resolve().is_relative_to(
        sources.resolve()
    ):
        raise YardstickUnavailableError(f"imported {result['engine']}, not its own")
    return list(result["runs"])


# --- one size ---------------------------------------------------------------------------------


def measure(
    n: int, work: Path, *, quick: bool, yardstick: bool, reference: str | None = None
) -> Row:
    """Generate the pair of size n and measure everything at that size."""
    paths = write_pair(make_pair(n, SEED), work / str(n))
    gc.collect()
    baseline, candidate = load_trace(paths[0]), load_trace(paths[1])
    compare_repeats, cli_repeats = _repeats(n, quick)
    compare_runs, found = _time_compare(baseline, candidate, compare_repeats)
    row = Row(
        n=n,
        candidate_steps=len(candidate.steps),
        compare_runs=compare_runs,
        compare_peak_mb=_peak_alloc_mb(baseline, candidate),
        cli_runs=[],
        rss_mb=0.0,
        found=found,
    )
    row.cli_runs, row.rss_mb = _measure_cli(paths, cli_repeats, work / str(n))
    if yardstick:
        row.yardstick = _measure_yardstick((baseline, candidate), paths, 2, work / str(n))
    if reference is not None:
        row.reference = _measure_reference(reference, paths, work / str(n))
    del baseline, candidate
    gc.collect()
    return row


# --- report -----------------------------------------------------------------------------------


def _seconds(value: float) -> str:
    if math.isnan(value):
        return "—"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def _results_table(rows: list[Row]) -> list[str]:
    lines = [
        (
            "| N (baseline steps) | candidate steps | `compare()` median | CLI median (end to end) "
            "| peak RSS (CLI) | `compare()` peak alloc | agent-trajectory-diff 0.7.0 `compare()` "
            "| speed-up |"
        ),
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        ours = _median(row.compare_runs)
        yard = row.yardstick
        theirs = _median(yard.compare_runs) if yard else math.nan
        speedup = f"{yard.speedup:.0f}×" if yard and yard.ratios else "—"
        lines.append(
            f"| {row.n:,} | {row.candidate_steps:,} | {_seconds(ours)} "
            f"| {_seconds(_median(row.cli_runs))} | {row.rss_mb:,.0f} MB "
            f"| {row.compare_peak_mb:,.0f} MB | {_seconds(theirs)} | {speedup} |"
        )
    return lines


def _found_table(rows: list[Row]) -> list[str]:
    ops = ("match", "reorder", "change", "insert", "delete")
    lines = [
        "| N | " + " | ".join(ops) + " | new loops | divergence |",
        "|---:|" + "---:|" * len(ops) + "---|---:|",
    ]
    for row in rows:
        counts = " | ".join(f"{row.found.get(op, 0):,}" for op in ops)
        lines.append(
            f"| {row.n:,} | {counts} | {row.found['loops']} | {row.found['divergence']:.4f} |"
        )
    return lines


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "**FAIL**"


def _target_lines(rows: list[Row]) -> list[str]:
    lines = []
    big = next((r for r in rows if r.n == TARGET_AT), None)
    if big is not None:
        compare_s, cli_s = _median(big.compare_runs), _median(big.cli_runs)
        lines.append(
            f"- N=100,000 `compare()` < {TARGET_COMPARE_S:g} s: {_seconds(compare_s)} — "
            f"{_verdict(compare_s < TARGET_COMPARE_S)}"
        )
        lines.append(
            f"- N=100,000 `agentdiff compare --format json` < {TARGET_CLI_S:g} s: "
            f"{_seconds(cli_s)} — {_verdict(cli_s < TARGET_CLI_S)}"
        )
        lines.append(
            f"- N=100,000 `agentdiff compare --format json` ≤ {TARGET_CLI_TIGHT_S:g} s "
            f"(issue 13): {_seconds(cli_s)} — {_verdict(cli_s <= TARGET_CLI_TIGHT_S)}"
        )
    peak = max(r.rss_mb for r in rows)
    lines.append(
        f"- peak memory < {TARGET_RSS_MB:,.0f} MB: {peak:,.0f} MB — {_verdict(peak < TARGET_RSS_MB)}"
    )
    lines += _yardstick_lines(rows)
    lines += _reference_lines(rows)
    return lines + _scaling_lines(rows)


def _reference_lines(rows: list[Row]) -> list[str]:
    lines = []
    for row in rows:
        ref = row.reference
        if ref is None:
            continue
        if ref.skipped:
            lines.append(f"- reference engine ({ref.commit}) skipped: {ref.skipped}")
            continue
        theirs, ratio = _median(ref.compare_runs), _median(ref.ratios)
        lines.append(
            f"- the host today, against the run that set the target: the engine of commit "
            f"{ref.commit} (measured {REFERENCE_SECONDS:g} s at N={row.n:,} then) takes "
            f"{_seconds(theirs)} here now, back to back with ours ({_seconds(_median(ref.ours))}"
            f" in the same rounds): ours / reference = {ratio:.2f} (median of {len(ref.ratios)} "
            f"rounds, range {min(ref.ratios):.2f}–{max(ref.ratios):.2f}). At the host speed of "
            f"that run, ours would take about {_seconds(ratio * REFERENCE_SECONDS)} (information, "
            f"not the verdict: the target is judged on this host's time above)"
        )
    return lines


def _yardstick_lines(rows: list[Row]) -> list[str]:
    measured = [r for r in rows if r.yardstick is not None]
    if not measured:
        return ["- speed-up vs agent-trajectory-diff 0.7.0: not measured"]
    lines = []
    for row in measured:
        yard = row.yardstick
        assert yard is not None
        if yard.skipped:
            lines.append(f"- yardstick skipped at N={row.n:,}: {yard.skipped}")
            continue
        speedup = yard.speedup
        lines.append(
            f"- N={row.n:,} `compare()` ≥ {TARGET_SPEEDUP:g}× faster than agent-trajectory-diff "
            f"0.7.0: {speedup:.0f}× — {_verdict(speedup >= TARGET_SPEEDUP)} (median of "
            f"{len(yard.ratios)} back-to-back rounds, range {min(yard.ratios):.0f}×–"
            f"{max(yard.ratios):.0f}×; its `compare()` {_seconds(_median(yard.compare_runs))}, "
            f"ours {_seconds(_median(yard.ours))} in those rounds; its CLI end to end: "
            f"{_seconds(_median(yard.cli_runs))}, ours {_seconds(_median(row.cli_runs))})"
        )
    return lines


def _scaling_lines(rows: list[Row]) -> list[str]:
    lines = []
    for small, large in itertools.pairwise(rows):
        parts, exponents = [], []
        for label, a, b in (
            ("`compare()`", small.compare_runs, large.compare_runs),
            ("CLI", small.cli_runs, large.cli_runs),
        ):
            growth = _median(b) / _median(a)
            exponents.append(math.log(growth) / math.log(large.n / small.n))
            parts.append(f"{label} ×{growth:.1f} (exponent {exponents[-1]:.2f})")
        verdict = "about linear" if max(exponents) < LINEAR_EXPONENT else "**worse than linear**"
        lines.append(
            f"- N {small.n:,} → {large.n:,} (×{large.n / small.n:g}): {'; '.join(parts)} — {verdict}"
        )
    return lines


def _environment() -> str:
    commit = subprocess.run(
        ["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return (
        f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC on {platform.machine()} "
        f"({os.cpu_count()} cores), Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; commit {commit or 'unknown'}; seed {SEED}; "
        f"engine {engine_build()}."
    )


_HOW = (
    "The table's `compare()` runs in the benchmark's process on traces already loaded; its "
    "peak alloc is `tracemalloc`'s peak during one extra run. The CLI is `agentdiff compare B C "
    "--format json -o FILE` in a subprocess (start-up and loading included); peak RSS is the "
    "run's (started by a small launcher, so the benchmark's memory is not counted): the larger "
    "of its largest process's own peak and the sum over its processes sampled every 5 ms (at "
    "N=100,000 a child process prepares the candidate while the command loads the baseline; a "
    "page both share counts twice). The pair comes from `benchmarks/synthetic.py`: agent segments "
    "with LLM turns, concurrent tool calls (40 tools), thoughts, sub-agents and answers; the "
    "candidate has ~5% of tool calls with a changed argument, ~2% of steps deleted, ~5% "
    "inserted, one tool loop (the same call 4× in a row), reworded LLM text and fresh ids, "
    "request ids and timestamps. The yardstick, agent-trajectory-diff 0.7.0, runs as a black "
    "box in its own venv on the same pair written in its input format (no `response` step "
    "type there: those steps are given as `llm_call`). The host's speed drifts by up to 2× "
    "from one minute to the next, so the speed-up is measured in rounds: each round times its "
    "`compare()` and then ours, each in a fresh subprocess running the same driver (the "
    "package's `load_trace` and `compare`, one untimed run, then 3 timed; each checked to "
    "import its own package), and the speed-up is the median of the rounds' ratios of "
    "medians. The reference engine and ours are timed the same way (one untimed run, then one "
    "timed, per round)."
)


def render(rows: list[Row], quick: bool) -> str:
    """The whole Markdown report."""
    runs = ", ".join(
        f"N={r.n:,}: {len(r.compare_runs)} `compare()` / {len(r.cli_runs)} CLI" for r in rows
    )
    parts = [
        "# `compare()` benchmark",
        "",
        _environment() + (" Quick run." if quick else ""),
        "",
        *_results_table(rows),
        "",
        "## Targets (issues 11 and 13)",
        "",
        *_target_lines(rows),
        "",
        "## What `compare()` found",
        "",
        *_found_table(rows),
        "",
        "## How",
        "",
        f"Medians of {runs} runs. {_HOW}",
        "",
    ]
    return "\n".join(parts)


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", help="comma-separated step counts (default 1000,10000,100000)")
    parser.add_argument("--quick", action="store_true", help="fast smoke run; writes nothing")
    parser.add_argument("--no-yardstick", action="store_true", help="skip agent-trajectory-diff")
    parser.add_argument("--output", type=Path, help=f"write the report here (default {RESULTS})")
    parser.add_argument(
        "--reference",
        default=REFERENCE_COMMIT,
        help=f"commit of the reference engine timed at N={REFERENCE_AT:,} (default %(default)s)",
    )
    parser.add_argument("--no-reference", action="store_true", help="skip the reference engine")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; 0 whatever the verdicts (it measures, it does not gate)."""
    args = _parse_args(argv)
    default = QUICK_SIZES if args.quick else DEFAULT_SIZES
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else list(default)
    with_yardstick = not (args.quick or args.no_yardstick)
    reference = None if args.quick or args.no_reference else args.reference
    rows = []
    _fresh_bytecode()
    with tempfile.TemporaryDirectory(prefix="agentdiff-bench-") as tmp:
        for n in sizes:
            print(f"measuring N={n:,} …", file=sys.stderr, flush=True)
            rows.append(
                measure(
                    n,
                    Path(tmp),
                    quick=args.quick,
                    yardstick=with_yardstick and n == YARDSTICK_SIZE,
                    reference=reference if n == REFERENCE_AT else None,
                )
            )
    text = render(rows, args.quick)
    print(text)
    output = args.output or (RESULTS if not (args.quick or args.sizes) else None)
    if output is not None:
        output.write_text(text)
        print(f"written to {output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
