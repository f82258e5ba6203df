"""One command run in a subprocess: its wall time, its peak RSS and its exit code.

The peak RSS is the command's own. Read off the benchmark's own `wait4`, it was not: Linux
starts a child by `vfork` (or `fork`) and then `exec`, and the child's `ru_maxrss` keeps the
peak of the memory it was started from. A benchmark holding a 100,000-step pair (~800 MB) read
every CLI run it started as ~800 MB, whatever the run used (measured: 842 MiB for a run of 529
MiB). So a tiny launcher interpreter (`-I -S`: no site packages, a few MB) starts the command and
times it; the command inherits the launcher's peak, not the benchmark's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

LAUNCHER = """\
import json, os, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
elapsed = time.perf_counter() - start
print(json.dumps([elapsed, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)]))
"""
"""Runs the command (its stderr is the launcher's), prints [wall seconds, peak MiB, exit code]."""


def run_measured(
    command: Sequence[str], cwd: Path | None = None, stderr: IO[bytes] | int | None = None
) -> tuple[float, float, int]:
    """Wall seconds, peak RSS in MiB and exit code of `command` (its stdout discarded)."""
    launched = subprocess.run(
        [sys.executable, "-I", "-S", "-c", LAUNCHER, *command],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=stderr,
        check=True,
    )
    elapsed, rss, code = json.loads(launched.stdout)
    return float(elapsed), float(rss), int(code)
