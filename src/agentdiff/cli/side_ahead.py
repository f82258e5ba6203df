"""A large candidate prepared in a child process while `agentdiff compare` loads the baseline.

On Linux with a second core, for a candidate of at least `MIN_BYTES` in one JSON file, the
command reads the candidate's bytes, forks, and the child loads those bytes and prepares them
for the comparison (`diff.portable.portable_side`: order, signatures, call keys; about a sixth
of a 100,000-step comparison) while the parent loads and prepares the baseline and loads the
same bytes. The parent adopts the child's side (`compare_adopting`); the report is the one a
single process makes (tests compare them byte for byte). Anything unusual (no fork, one core,
threads running, JSON Lines, sub-agent transcripts, folded framework steps, a child that fails
or sends nothing usable) means no child, or a side prepared by the parent itself.
`AGENTDIFF_SINGLE_PROCESS=1` turns it off. The child holds a second copy of the candidate
while it works (~2.5 KB a step).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from agentdiff.diff.portable import PortableSide, portable_side
from agentdiff.errors import AgentDiffError
from agentdiff.loader import is_json_lines, load_trace
from agentdiff.reading import hold, read_file

if TYPE_CHECKING:
    from agentdiff.diff.options import CompareOptions
    from agentdiff.limits import Limits

__all__ = ["MIN_BYTES", "SideAhead", "side_ahead"]

MIN_BYTES = 8 * 2**20
"""Candidates smaller than this are prepared by the command itself (a child costs more)."""
_OFF = "AGENTDIFF_SINGLE_PROCESS"


class SideAhead:
    """The child preparing the candidate: `side()` waits for its side, `close()` ends it."""

    def __init__(self, pid: int, pipe: int) -> None:
        self.pid, self.pipe = pid, pipe
        self.done = False

    def side(self) -> PortableSide | None:
        """The child's side of the candidate (None: it sent nothing usable); ends the child."""
        try:
            with open(self.pipe, "rb", closefd=False) as pipe:
                data = pipe.read()
            found = pickle.loads(data)  # noqa: S301 - written by our own child, over our own pipe
        except Exception:  # noqa: BLE001 - a child that failed: the parent prepares the side
            found = None
        finally:
            self.close()
        return found if isinstance(found, PortableSide) else None

    def close(self) -> None:
        """End the child (at once, if its side was not taken) and reap it."""
        if self.done:
            return
        self.done = True
        os.close(self.pipe)
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)  # done already, or no longer wanted
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


def side_ahead(
    path: Path,
    adapter: str | None,
    trace_id: str | None,
    limits: Limits,
    options: CompareOptions,
) -> SideAhead | None:
    """A child preparing the candidate at `path` (None: not worth one, or not possible here).

    The candidate's bytes are read first and held for this process's own `load_trace` (within
    a `reading_ahead` block of it), so both processes load the same bytes. An error reading
    them is left for that load to report, in its turn.
    """
    if not _worth_a_child(path, options):
        return None
    try:
        data = read_file(path, limits)
    except (AgentDiffError, OSError):
        return None
    hold(path, limits, data)
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(reader)
        _prepare_in_child(writer, path, adapter, trace_id, limits, options)
    os.close(writer)
    return SideAhead(pid, reader)


def _worth_a_child(path: Path, options: CompareOptions) -> bool:
    """A large candidate in one JSON file, a second core, and a process safe to fork."""
    if os.environ.get(_OFF, "").strip() not in ("", "0") or options.fold_framework_steps:
        return False
    if sys.platform != "linux" or not hasattr(os, "fork") or threading.active_count() > 1:
        return False
    if len(os.sched_getaffinity(0)) < 2:  # noqa: PLR2004 - a second core does the work
        return False
    if is_json_lines(path):
        return False  # streamed from the file, not from bytes held
    try:
        return path.stat().st_size >= MIN_BYTES
    except OSError:
        return False


def _prepare_in_child(
    pipe: int,
    path: Path,
    adapter: str | None,
    trace_id: str | None,
    limits: Limits,
    options: CompareOptions,
) -> None:
    """Load and prepare the candidate, send the side, and end without a word on any output."""
    try:
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        warnings.simplefilter("ignore")
        trace = load_trace(path, adapter, trace_id=trace_id, limits=limits)
        data = pickle.dumps(portable_side(trace, options), protocol=pickle.HIGHEST_PROTOCOL)
        with open(pipe, "wb") as out:
            out.write(data)
    finally:
        os._exit(0)
