"""The results tables as JSON Lines: written in parts by the tasks, joined in key order at the end.

Each task writes `DIR/.parts/<table>-<batch>.jsonl` itself (a local folder or an fsspec URL), so
step rows never travel to the client. Batches hold consecutive scenarios in key order, so
joining the parts in batch order gives each table in scenario order whatever the backend.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import orjson

from agentdiff.files import Data, write_atomically
from agentdiff.models.report import DiffReport, Summary
from agentdiff.models.trace import AgentTrace, TraceStep
from agentdiff.suite.columns import TABLES
from agentdiff.suite.load import fsspec_module
from agentdiff.suite.refs import is_url
from agentdiff.suite.report import PairSummary, RunError, RunLocation

__all__ = ["PARTS", "TableWriter", "join_parts", "open_binary", "write_binary"]

PARTS = ".parts"
_NAMES = {table: tuple(name for name, _ in columns) for table, columns in TABLES.items()}
"""Each table's column names, in order (a row is `dict(zip(names, values))`)."""


@contextmanager
def open_binary(location: str, mode: str) -> Iterator[IO[bytes]]:
    """A local file or an fsspec URL, opened in binary `mode` (parents created for writing)."""
    if is_url(location):
        fs, path = fsspec_module().core.url_to_fs(location)
        if "w" in mode:
            fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        with fs.open(path, mode) as handle:
            yield handle
        return
    if "w" in mode:
        Path(location).parent.mkdir(parents=True, exist_ok=True)
    with Path(location).open(mode) as handle:
        yield handle


def write_binary(location: str, data: Data, *, durable: bool = True) -> None:
    """Write `data` to a local file or an fsspec URL; a local file is replaced, never written into.

    Locally `write_atomically`: a symlink (or FIFO) at `location` is replaced by the new file,
    so a link planted in a results folder can never redirect a table onto another file.
    """
    if not is_url(location):
        target = Path(location)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, data, durable=durable)
        return
    with open_binary(location, "wb") as handle:
        if isinstance(data, str):
            data = data.encode()
        for chunk in [data] if isinstance(data, bytes) else data:
            handle.write(chunk)


def _part(folder: str, table: str, index: int) -> str:
    return f"{folder.rstrip('/')}/{PARTS}/{table}-{index:06d}.jsonl"


class TableWriter:
    """A task's rows of every table, buffered and written as its part files on `close()`."""

    def __init__(self, folder: str, index: int) -> None:
        self._folder, self._index = folder, index
        self._rows: dict[str, list[bytes]] = {table: [] for table in TABLES}

    def _add(self, table: str, values: tuple[Any, ...]) -> None:
        self._rows[table].append(orjson.dumps(dict(zip(_NAMES[table], values, strict=True))))

    def run(
        self,
        side: str,
        scenario: str,
        where: RunLocation,
        summary: Summary,
        route: list[str],
        route_id: str,
    ) -> None:
        """One row of `runs`."""
        s = summary
        self._add(
            "runs",
            (
                side,
                scenario,
                where.run,
                s.trace_id,
                where.source,
                s.source_format,
                s.agent_name,
                s.steps,
                s.tool_calls,
                s.llm_calls,
                s.model_turns,
                s.errors,
                s.retries,
                s.prompt_tokens,
                s.completion_tokens,
                s.total_tokens,
                s.cost_usd,
                s.cost_estimated,
                s.latency_ms,
                route_id,
                len(route),
                None,
                s.folded_framework_steps,
            ),
        )

    def lost_run(self, scenario: str, error: RunError, trace_id: str | None) -> None:
        """The `runs` row of a run that could not be loaded: what is known of it, and why."""
        known = {
            "side": error.side,
            "scenario": scenario,
            "run_id": error.run,
            "trace_id": trace_id,
            "source": error.source,
            "load_error": error.message,
        }
        self._add("runs", tuple(map(known.get, _NAMES["runs"])))  # nothing was read from it

    def pair(self, scenario: str, pair: PairSummary, report: DiffReport) -> None:
        """One row of `pairs` and the pair's alignment rows in `steps`."""
        first = pair.first_divergence
        named = first and (first.candidate or first.baseline)
        d, ops = pair.deltas, pair.ops
        self._add(
            "pairs",
            (
                scenario,
                pair.baseline.run,
                pair.candidate.run,
                pair.route_distance,
                pair.divergence,
                first and first.position,
                first and first.op,
                named.name if named else None,
                ops.match,
                ops.change,
                ops.insert,
                ops.delete,
                ops.reorder,
                len(pair.new_loops),
                d["steps"].pct,
                d["tool_calls"].pct,
                d["errors"].delta,
                d["total_tokens"].pct,
                d["cost_usd"].pct,
                d["latency_ms"].pct,
                pair.passed,
                sorted({v.rule for v in pair.violations}),
            ),
        )
        self._steps(scenario, pair.candidate.run, report)

    def _steps(self, scenario: str, run: str, report: DiffReport) -> None:
        # The hot part of a results folder (one row per aligned step): enum values read with
        # `_value_` (the `value` property runs Python code) and rows built without `_add`.
        b_steps = _by_id(report.baseline_trace)
        c_steps = _by_id(report.candidate_trace)
        names, rows, dumps = _NAMES["steps"], self._rows["steps"], orjson.dumps
        for position, entry in enumerate(report.alignment):
            b, c = entry.baseline, entry.candidate
            b_step = None if b is None else b_steps.get(b.step_id)
            c_step = None if c is None else c_steps.get(c.step_id)
            either = c or b
            values = (
                scenario,
                run,
                position,
                entry.op._value_,
                either.step_type._value_ if either else "",
                b.name if b else None,
                c.name if c else None,
                b.status._value_ if b else None,
                c.status._value_ if c else None,
                [change.path for change in entry.changes],
                _latency(b_step),
                _latency(c_step),
                _tokens(b_step),
                _tokens(c_step),
            )
            rows.append(dumps(dict(zip(names, values, strict=True))))

    def close(self) -> None:
        """Write this task's part of every table."""
        for table, rows in self._rows.items():
            data = b"\n".join(rows) + (b"\n" if rows else b"")
            write_binary(_part(self._folder, table, self._index), data, durable=False)
            rows.clear()


def _by_id(trace: AgentTrace | None) -> dict[str, Any]:
    return {} if trace is None else {step.step_id: step for step in trace.steps}


def _latency(step: Any) -> float | None:
    return None if step is None else step.latency_ms


def _tokens(step: TraceStep | None) -> int | None:
    if step is None or step.tokens is None:
        return None
    return step.tokens.known_total  # a step may give prompt and completion tokens only


def join_parts(folder: str, indexes: list[int]) -> dict[str, str]:
    """Join the parts of every table into `<table>.jsonl` in batch order; remove the parts."""
    written = {}
    for table in TABLES:
        target = f"{folder.rstrip('/')}/{table}.jsonl"
        write_binary(target, _chunks([_part(folder, table, i) for i in sorted(indexes)]))
        written[table] = target
    _remove_parts(folder)
    return written


def _chunks(locations: list[str]) -> Iterator[bytes]:
    """The bytes of each file in turn, 1 MiB at a time."""
    for location in locations:
        with open_binary(location, "rb") as part:
            while chunk := part.read(1 << 20):
                yield chunk


def _remove_parts(folder: str) -> None:
    parts = f"{folder.rstrip('/')}/{PARTS}"
    if is_url(parts):
        fs, path = fsspec_module().core.url_to_fs(parts)
        fs.rm(path, recursive=True)
    else:
        shutil.rmtree(parts, ignore_errors=True)
