"""Loading and large-trace benchmarks (issue 13): how much loading costs next to parsing.

    python benchmarks/bench_loading.py [--steps 100000] [--million] [--only CASE] [--out FILE]

1. A synthetic canonical trace of `--steps` steps (benchmarks/synthetic.py): the median time of
   `orjson.loads` on its bytes versus `agentdiff.load_trace` (read, parse, limits, validation),
   and their ratio (target: at most 2x). Both are timed twice: as plain calls (the cyclic GC on:
   orjson's parse is then interrupted by collections, and `load_trace`, which pauses the GC while
   it builds, pays one young-generation collection over the new trace when it turns it back on)
   and with the GC paused by the caller (as the CLI runs: the pure cost of each); both ratios
   are printed.
2. `agentdiff compare --format json` of the synthetic pair of that size, end to end in a
   subprocess: wall time (target: at most 3 s at 100,000 steps) and peak RSS.
3. With `--million`: a 1,000,000-step canonical JSON file, the same trace as one line of a JSON
   Lines file, and a 1,000,000-span OTLP JSON Lines file (one span per line), each compared
   with itself by the CLI: wall time and peak RSS (target: within 4 GB). `--only otlp`
   (or `canonical`, `jsonl`) runs that one 1,000,000-step case and nothing else.

Results print as a Markdown table (and go to `--out` when given).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).parent))

from measured import run_measured
from synthetic import make_pair, write_pair

from agentdiff import load_trace
from agentdiff.gcpause import no_gc_pauses
from agentdiff.limits import Limits


def _median_seconds(action, repeats: int) -> float:
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def _cli(*args: str) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MiB, the run's own: `measured`) and exit code of one `agentdiff` run."""
    script = Path(sys.executable).with_name("agentdiff")
    command = [str(script), *args]
    with tempfile.TemporaryFile() as errors:
        elapsed, rss, code = run_measured(command, stderr=errors)
        if code not in (0, 1):
            errors.seek(0)
            detail = errors.read().decode(errors="replace")
            msg = f"{' '.join(command)} exited {code}: {detail[-500:]}"
            raise RuntimeError(msg)
    return elapsed, rss, code


def _canonical_million(path: Path, n: int) -> None:
    """A flat-ish canonical trace: LLM turns each with two tool calls, written in chunks."""
    with path.open("wb") as out:
        out.write(b'{"schema_version":"1.0.0","trace_id":"big","agent_name":"bench","steps":[')
        for i in range(n):
            parent = None if i % 3 == 0 else f"s{i - i % 3}"
            kind = "llm_call" if i % 3 == 0 else "tool_call"
            step = {
                "step_id": f"s{i}",
                "parent_id": parent,
                "step_index": i,
                "step_type": kind,
                "name": "gpt-4o" if kind == "llm_call" else f"tool_{i % 40}",
                "input_payload": {"q": f"query {i % 977}", "n": i % 13},
                "output_payload": {"r": f"result {i % 991}"},
                "tokens": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
                if kind == "llm_call"
                else None,
            }
            out.write((b"," if i else b"") + orjson.dumps(step))
        out.write(b"]}")


def _otlp_million(path: Path, n: int) -> None:
    """OTLP/JSON Lines as the file exporter writes it: one export request per line."""
    with path.open("wb") as out:
        for i in range(n):
            span = {
                "traceId": "0def255fcc610f0d5c5d0f6d336ad9c4",
                "spanId": f"{i + 1:016x}",
                "parentSpanId": f"{i - i % 3 + 1:016x}" if i % 3 else "",
                "name": "ChatOpenAI" if i % 3 == 0 else f"tool_{i % 40}",
                "kind": 1,
                "startTimeUnixNano": str(1_700_000_000_000_000_000 + i * 1000),
                "endTimeUnixNano": str(1_700_000_000_000_000_000 + i * 1000 + 500),
                "attributes": [
                    {
                        "key": "openinference.span.kind",
                        "value": {"stringValue": "LLM" if i % 3 == 0 else "TOOL"},
                    },
                    {"key": "input.value", "value": {"stringValue": f"query {i % 977}"}},
                ],
                "status": {"code": 1},
            }
            request = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [span]}]}]}
            out.write(orjson.dumps(request) + b"\n")


_MILLION_CASES = {
    "canonical": ("canonical JSON", "million.json", _canonical_million),
    "jsonl": ("canonical JSON Lines (one line)", "million-canonical.jsonl", _canonical_million),
    "otlp": ("OTLP JSON Lines", "million.jsonl", _otlp_million),
}


def measure(steps: int, million: bool, work: Path, only: str | None = None) -> list[str]:
    rows = ["| measure | value | target |", "| --- | ---: | --- |"]
    if only is not None:
        return rows + _million_rows([_MILLION_CASES[only]], work)
    rows += _small_rows(steps, work)
    if million:
        rows += _million_rows(list(_MILLION_CASES.values()), work)
    return rows


def _small_rows(steps: int, work: Path) -> list[str]:
    rows = []
    base, cand = write_pair(make_pair(steps), work)
    raw = base.read_bytes()
    parse = _median_seconds(lambda: orjson.loads(raw), 3)
    load = _median_seconds(lambda: load_trace(base, limits=Limits()), 3)
    with no_gc_pauses():
        parse_paused = _median_seconds(lambda: orjson.loads(raw), 3)
        load_paused = _median_seconds(lambda: load_trace(base, limits=Limits()), 3)
    size = f"{steps:,}-step canonical file ({len(raw) / 1e6:.0f} MB)"
    rows.append(f"| orjson.loads, {size} | {parse:.2f} s | |")
    rows.append(f"| load_trace, {size} | {load:.2f} s | |")
    rows.append(f"| load / parse | {load / parse:.2f}x | ≤ 2x |")
    rows.append(f"| orjson.loads, the GC paused by the caller | {parse_paused:.2f} s | |")
    rows.append(f"| load_trace, the GC paused by the caller | {load_paused:.2f} s | |")
    rows.append(f"| load / parse, the GC paused | {load_paused / parse_paused:.2f}x | ≤ 2x |")
    runs = [_cli("compare", str(base), str(cand), "--format", "json", "-o", os.devnull)]
    runs.append(_cli("compare", str(base), str(cand), "--format", "json", "-o", os.devnull))
    wall = statistics.median(r[0] for r in runs)
    rss = max(r[1] for r in runs)
    rows.append(
        f"| `compare --format json`, {steps:,}-step pair, end to end | {wall:.2f} s | ≤ 3 s |"
    )
    rows.append(f"| peak RSS of that run | {rss:,.0f} MiB | |")
    return rows


def _million_rows(
    cases: list[tuple[str, str, Callable[[Path, int], None]]], work: Path
) -> list[str]:
    rows = []
    for name, file_name, make in cases:
        path = work / file_name
        make(path, 1_000_000)
        mb = path.stat().st_size / 1e6
        wall, rss, _ = _cli("compare", str(path), str(path), "--format", "json", "-o", os.devnull)
        rows.append(
            f"| 1,000,000 steps, {name} ({mb:,.0f} MB): compare with itself | {wall:.1f} s | |"
        )
        rows.append(f"| peak RSS of that run | {rss:,.0f} MiB | ≤ 4,096 MiB |")
        path.unlink()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--million", action="store_true")
    parser.add_argument("--only", choices=sorted(_MILLION_CASES))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        rows = measure(args.steps, args.million, Path(folder), args.only)
    text = "\n".join(rows) + "\n"
    print(text, end="")
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
