"""Run an agent callable N times with recording on: the library side of `agentdiff record`.

Each call runs inside `record_run` and, when OpenTelemetry is installed, under a root span
captured by a `FileSpanExporter` (`agentdiff.otel.capture`). Run `n` is written to
`<folder>/<n>.json`: the recorder's trace when the agent recorded steps with `agentdiff.record`,
else the OTLP/JSON file of its spans when it is OpenTelemetry-instrumented, else the recorder's
(empty or errored) trace. An exception from the callable, or its `sys.exit()`, is recorded as an
errored run and the loop goes on (any `BaseException` but Ctrl-C's: an `asyncio.CancelledError`
escaping an async agent too); `async def` callables are awaited.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from agentdiff.baselines import canonical_json
from agentdiff.errors import AgentDiffError
from agentdiff.files import check_output_path, write_output_file
from agentdiff.loader import load_trace
from agentdiff.reading import read_input
from agentdiff.record.run import Run, record_run
from agentdiff.record.step import describe_error

if TYPE_CHECKING:
    from agentdiff.otel.capture import OtelCapture, SpanFile

__all__ = [
    "NO_INPUT",
    "RecordedRun",
    "input_file",
    "load_callable",
    "parse_input",
    "record_repeatedly",
]

NO_INPUT: Any = object()
"""Call the agent with no argument."""


@dataclass(frozen=True)
class RecordedRun:
    """What one call left behind."""

    number: int
    path: Path
    source: str
    """`recorder` or `otel`: which recording was written."""
    steps: int
    error: str | None


def load_callable(target: str) -> Callable[..., Any]:
    """`module:function` (or `path/to/file.py:function`; dotted attributes allowed)."""
    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        msg = f"expected MODULE:FUNCTION, got {target!r}"
        raise AgentDiffError(msg, hint="e.g. agentdiff record my_agent:run")
    module = _import(module_name)
    found: Any = module
    for part in attribute.split("."):
        found = getattr(found, part, None)
        if found is None:
            msg = f"{module_name} has no attribute {attribute!r}"
            raise AgentDiffError(msg)
    if not callable(found):
        raise AgentDiffError(f"{target} is not callable")
    return found  # type: ignore[no-any-return]


def _import(name: str) -> Any:
    """The user's module `name` (a dotted name or a `.py` path), imported.

    Whatever it raises while importing (even `sys.exit(3)`, or another `BaseException`) is an
    `AgentDiffError` naming it: exit 2 with one redacted, escaped line, never the exit code or
    the raw message of the user's code. Ctrl-C still stops the command (130).
    """
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        return _import_file(name) if name.endswith(".py") else importlib.import_module(name)
    except (ImportError, FileNotFoundError) as exc:
        raise AgentDiffError(f"cannot import {name}: {exc}") from None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - the user's module failed while importing
        raise AgentDiffError(f"importing {name} raised {describe_error(exc)}") from None


def _import_file(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(Path(name).stem, name)
    if spec is None or spec.loader is None:
        raise ImportError(f"not a Python file: {name}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def input_file(text: str | None) -> Path | None:
    """The file `--input @FILE` names (an input of the command: never written over)."""
    return Path(text[1:]) if text is not None and text.startswith("@") else None


def parse_input(text: str | None) -> Any:
    """`--input`: JSON text, or `@file` holding JSON; `NO_INPUT` when not given.

    The file is read as a trace is (`read_input`): a FIFO or `/dev/zero` is refused, not read.
    """
    if text is None:
        return NO_INPUT
    path = input_file(text)
    source = "--input" if path is None else str(path)
    raw = text if path is None else read_input(path, "--input")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise AgentDiffError(f"{source} is not valid JSON: {exc}") from None


def _call(fn: Callable[..., Any], task_input: Any) -> Any:
    result = fn() if task_input is NO_INPUT else fn(task_input)
    if inspect.isawaitable(result):
        return asyncio.run(_await(result))
    return result


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _otel_capture(enabled: bool) -> OtelCapture | None:
    if not enabled or importlib.util.find_spec("opentelemetry.sdk") is None:
        return None
    try:
        from agentdiff.otel.capture import OtelCapture  # noqa: PLC0415 - optional extra
    except ImportError:  # the SDK without the OTLP encoder: record without spans
        return None
    return OtelCapture()


def record_repeatedly(
    fn: Callable[..., Any],
    *,
    agent_name: str,
    folder: Path,
    runs: int = 1,
    task_input: Any = NO_INPUT,
    otel: bool = True,
    inputs: Sequence[Path] = (),
    replace: bool = True,
) -> Iterator[RecordedRun]:
    """Call `fn` `runs` times, yielding each run once its file `<folder>/<n>.json` is written.

    Every `<n>.json` is checked here, before the first call (`check_output_path`: never one of
    `inputs`, a directory, a FIFO or a read-only file), so a bad target costs no agent run.
    A run folder is one recording (`suite` and `compare-runs` judge every run in it): the run
    files of an earlier recording there (the numbered files, only they) are removed first, so
    the folder holds this recording alone; `replace=False` refuses such a folder instead.
    """
    paths = [folder / f"{number}.json" for number in range(1, runs + 1)]
    for path in paths:
        check_output_path(path, inputs)
    _clear_earlier(folder, inputs, replace=replace)
    return _recording(fn, agent_name, paths, task_input, otel, inputs)


_RUN_FILE = re.compile(r"[1-9][0-9]*\.json")
"""The name of a file `record` writes: `<n>.json`."""


def _recorded_runs(folder: Path) -> list[Path]:
    """The run files `<n>.json` in `folder` (by number; none when it is no folder)."""
    if not folder.is_dir():
        return []
    found = [
        path
        for path in folder.iterdir()
        if _RUN_FILE.fullmatch(path.name) and (path.is_symlink() or not path.is_dir())
    ]
    return sorted(found, key=lambda path: int(path.stem))


def _clear_earlier(folder: Path, inputs: Sequence[Path], *, replace: bool) -> None:
    """Refuse `folder`'s earlier run files, or (`replace`) remove them; see `record_repeatedly`."""
    earlier = _recorded_runs(folder)
    if not earlier:
        return
    if not replace:
        held = f"{len(earlier)} run file{'s' if len(earlier) > 1 else ''}"
        msg = f"already holds {held} ({earlier[0].name} … {earlier[-1].name}) of a recording"
        hint = "without --no-replace they are removed (only the numbered <n>.json files)"
        raise AgentDiffError(msg, hint=hint, source=folder)
    for path in earlier:  # all checked before any is removed
        check_output_path(path, inputs)
    for path in earlier:
        _remove(path)


def _remove(path: Path) -> None:
    """Remove the file (or link) `path`, or an `AgentDiffError` saying why it cannot be."""
    try:
        path.unlink()
    except OSError as exc:
        raise AgentDiffError(f"cannot remove: {exc.strerror or exc}", source=path) from None


def _recording(
    fn: Callable[..., Any],
    agent_name: str,
    paths: list[Path],
    task_input: Any,
    otel: bool,
    inputs: Sequence[Path],
) -> Iterator[RecordedRun]:
    capture = _otel_capture(otel)
    try:
        for number, path in enumerate(paths, start=1):
            yield _record_one(fn, agent_name, path, number, task_input, capture, inputs)
    finally:
        if capture is not None:
            capture.close()


def _record_one(
    fn: Callable[..., Any],
    agent_name: str,
    path: Path,
    number: int,
    task_input: Any,
    capture: OtelCapture | None,
    inputs: Sequence[Path],
) -> RecordedRun:
    given = None if task_input is NO_INPUT else task_input
    run = record_run(agent_name, task_input=given, metadata={"run": number})
    with ExitStack() as stack:
        spans = stack.enter_context(_span_scope(capture, agent_name, given))
        try:
            with run:
                run.final_output = _call(fn, task_input)
        except KeyboardInterrupt:
            raise  # Ctrl-C stops the command (130), keeping the runs already written
        except BaseException as exc:  # noqa: BLE001 - recorded (CancelledError too); go on
            if run.trace is None:  # the recording itself failed (a step set to a wrong value)
                msg = f"run {number} could not be recorded: {describe_error(exc)}"
                raise AgentDiffError(msg) from None
            if spans is not None:
                spans.fail(exc)
        else:
            if spans is not None:
                spans.set_output(run.final_output)
    return _write(run, spans, path, number, inputs)


def _span_scope(
    capture: OtelCapture | None, name: str, task_input: Any
) -> AbstractContextManager[SpanFile | None]:
    return capture.call(name, task_input) if capture is not None else nullcontext()


def _write(
    run: Run, spans: SpanFile | None, path: Path, number: int, inputs: Sequence[Path]
) -> RecordedRun:
    trace = run.trace
    assert trace is not None  # noqa: S101 - set when the run's block ended
    error = trace.metadata.get("error") if trace.metadata else None
    own_steps = len(trace.steps) - (1 if run.error_step is not None else 0)
    span_count = spans.span_count() if spans is not None else 0
    if own_steps == 0 and span_count > 1 and spans is not None and spans.path is not None:
        write_output_file(path, spans.path.read_bytes(), inputs, durable=True)
        return RecordedRun(number, path, "otel", len(load_trace(path).steps), error)

    write_output_file(path, canonical_json(trace), inputs, durable=True)
    return RecordedRun(number, path, "recorder", len(trace.steps), error)
