"""Loading the runs a `RunRef` stands for, inside a worker (local paths and fsspec URLs).

A file holding several traces (JSON Lines, OTLP) with no `trace_id` chosen yields one run per
trace, named `<run_id>#<trace id>`. A URL is read with fsspec (installed with
`agentdiff[dask]`) into a temporary file of the same name, so detection and error messages work
as for a local file; errors name the URL.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agentdiff.errors import AgentDiffError, ConfigError
from agentdiff.limits import Limits
from agentdiff.loader import load_traces
from agentdiff.models.trace import AgentTrace
from agentdiff.reading import too_big
from agentdiff.suite.refs import RunRef, is_url, join_source

__all__ = ["LoadedRun", "fsspec_module", "load_runs", "local_copy", "open_url"]

LoadedRun = tuple[str, str | None, AgentTrace]
"""(run id, trace id picked from the file or None, the trace)."""


def load_runs(ref: RunRef, root: str, limits: Limits | None = None) -> list[LoadedRun]:
    """Every run `ref` stands for; an `AgentDiffError` names the file (or URL).

    `limits` bounds each input (default: `Limits.resolve()`, this process's environment; a
    suite's tasks pass the limits the client resolved, so a worker's own environment never
    changes a verdict).
    """
    limits = limits or Limits.resolve()
    location = join_source(root, ref.source)
    try:
        with local_copy(location, limits) as path:
            loaded = load_traces(path, ref.adapter, trace_id=ref.trace_id, limits=limits)
    except AgentDiffError as exc:
        exc.source = None
        raise exc.with_source(location) from exc.__cause__
    return [(_run_id(ref, tid), tid, trace) for tid, trace in loaded]


def _run_id(ref: RunRef, trace_id: str | None) -> str:
    """`ref`'s run id; one trace of a file holding several (none picked): `<run id>#<trace id>`."""
    return ref.run_id if trace_id in (None, ref.trace_id) else f"{ref.run_id}#{trace_id}"


@contextmanager
def local_copy(location: str, limits: Limits | None = None) -> Iterator[Path]:
    """`location` as a local path: itself, or a temporary copy of a URL's bytes (`open_url`)."""
    if not is_url(location):
        yield Path(location)
        return
    data = open_url(location, limits)
    name = location.rstrip("/").rsplit("/", 1)[-1] or "trace.json"
    with tempfile.TemporaryDirectory(prefix="agentdiff-") as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        yield path


def open_url(location: str, limits: Limits | None = None) -> bytes:
    """The bytes at an fsspec URL; a clear error when fsspec is missing or the read fails.

    At most the input limit is read (`limits`, default `Limits.resolve()`): a larger object is
    an error, never held whole in memory.
    """
    fsspec = fsspec_module()
    limits = limits or Limits.resolve()
    try:
        with fsspec.open(location, "rb") as handle:
            data: bytes = handle.read(limits.max_input_size + 1)
    except FileNotFoundError:
        raise AgentDiffError("file not found", source=location) from None
    except (OSError, ValueError) as exc:
        raise AgentDiffError(f"cannot read: {exc}", source=location) from None
    if len(data) > limits.max_input_size:
        raise too_big(location, "is too large", limits)
    return data


def fsspec_module() -> Any:
    """The fsspec module, or a `ConfigError` saying how to install it."""
    try:
        import fsspec  # noqa: PLC0415 - optional dependency
    except ImportError:
        msg = "URLs need fsspec"
        raise ConfigError(msg, hint="pip install 'agentdiff[dask]' (or fsspec)") from None
    return fsspec
