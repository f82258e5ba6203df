"""A large candidate prepared in a child process while `agentdiff compare` loads the baseline.

On Linux, with a second core idle, for a candidate of at least `MIN_BYTES` in one JSON file,
the command reads the candidate's bytes and forks. The child loads those bytes and prepares them
for the comparison (`diff.portable.portable_side`: order, signatures, call keys, totals; about a
sixth of a 100,000-step comparison) while the parent loads and prepares the baseline and loads
the same bytes, which it holds for its own load (`reading.hold`: the caller loads the candidate
within a `reading_ahead` block of it, which drops them after). The parent adopts the child's
side (`compare_adopting`); the report is the one a single process makes (tests compare them
byte for byte). Anything unusual (no fork, no idle core, threads running, JSON Lines, sub-agent
transcripts, folded framework steps, a child that fails or sends nothing usable) means no
child, or a side prepared by the parent itself. `AGENTDIFF_SINGLE_PROCESS=1` turns it off. The
child holds a second copy of the candidate while it works (~3.5 KB a step), and the kernel ends
it when the parent ends, however the parent ends.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import signal
import sys
import threading
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from agentdiff.config_kinds import FLAG
from agentdiff.diff.portable import PortableSide, portable_side
from agentdiff.errors import AgentDiffError, ConfigError
from agentdiff.gcpause import no_gc_pauses
from agentdiff.loader import is_json_lines, load_trace
from agentdiff.reading import hold, read_file

if TYPE_CHECKING:
    from agentdiff.diff.options import CompareOptions
    from agentdiff.limits import Limits

__all__ = ["MIN_BYTES", "SINGLE_PROCESS", "SideAhead", "side_ahead"]

MIN_BYTES = 8 * 2**20
"""Candidates smaller than this are prepared by the command itself (a child costs more)."""
SINGLE_PROCESS = "AGENTDIFF_SINGLE_PROCESS"
"""The variable that, true, keeps the command in one process."""
_PR_SET_PDEATHSIG = 1


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

    An error reading the candidate is left for the command's own load to report, in its turn;
    a process that cannot be started (a limit on processes, on memory) leaves the preparation
    to the command.
    """
    if not _worth_a_child(path, options):
        return None
    try:
        data = read_file(path, limits)
        reader, writer = os.pipe()
    except (AgentDiffError, OSError):
        return None
    parent = os.getpid()
    interrupts = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # none in between
    try:
        pid = os.fork()
    except OSError:
        os.close(reader)
        os.close(writer)
        return None
    finally:
        if os.getpid() == parent:
            signal.pthread_sigmask(signal.SIG_SETMASK, interrupts)
    if pid == 0:  # the child (its Ctrl-C blocked: the parent ends it): never returns
        _prepare_in_child(
            (reader, writer), parent, (path, adapter, trace_id, limits), options, data
        )
    os.close(writer)
    hold(path, limits, data)  # the command's own load takes the bytes the child loads
    return SideAhead(pid, reader)


def _worth_a_child(path: Path, options: CompareOptions) -> bool:
    """A large candidate in one JSON file, an idle core, and a process safe to fork."""
    if _single_process() or options.fold_framework_steps:
        return False
    if sys.platform != "linux" or not hasattr(os, "fork") or threading.active_count() > 1:
        return False
    if not _idle_core():
        return False
    if is_json_lines(path):
        return False  # streamed from the file, not from bytes held
    try:
        return path.stat().st_size >= MIN_BYTES
    except OSError:
        return False


def _single_process() -> bool:
    """`AGENTDIFF_SINGLE_PROCESS` is true (`ConfigError` when it is no true or false)."""
    text = os.environ.get(SINGLE_PROCESS, "")
    if not text.strip():
        return False
    try:
        return bool(FLAG.from_text(text))
    except ValueError:
        msg = f"must be {FLAG.expected}, got {text!r}"
        raise ConfigError(msg, source=f"env {SINGLE_PROCESS}") from None


def _idle_core() -> bool:
    """Some core this process may run on has nothing to run but this process.

    Read off the kernel's count of tasks running now (`/proc/loadavg`), this one included; on a
    busy machine a child would only compete with the parent for the cores.
    """
    cores = len(os.sched_getaffinity(0))
    try:
        running = int(Path("/proc/loadavg").read_text(encoding="ascii").split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return False
    return cores >= 2 and running < cores  # noqa: PLR2004 - a second core does the work


def _prepare_in_child(
    pipe: tuple[int, int],
    parent: int,
    load: tuple[Path, str | None, str | None, Limits],
    options: CompareOptions,
    data: bytes,
) -> None:
    """Load and prepare the candidate, send the side, and end without a word on any output."""
    try:
        reader, writer = pipe
        os.close(reader)
        _ends_with(parent)
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        warnings.simplefilter("ignore")
        path, adapter, trace_id, limits = load
        hold(path, limits, data)
        with no_gc_pauses():
            trace = load_trace(path, adapter, trace_id=trace_id, limits=limits)
            side = portable_side(trace, options)
        with os.fdopen(writer, "wb") as out:
            out.write(pickle.dumps(side, protocol=pickle.HIGHEST_PROTOCOL))
    finally:
        os._exit(0)


def _ends_with(parent: int) -> None:
    """Have the kernel end this process when `parent` ends (killed, or out of memory)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it ended before that was asked
        os._exit(0)
