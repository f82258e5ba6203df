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
import json, os, subprocess, sys, threading, time
PAGE = os.sysconf("SC_PAGE_SIZE")

def tree_rss(pid):
    total, stack = 0, [pid]
    while stack:
        at = stack.pop()
        try:
            with open(f"/proc/{at}/statm") as statm:
                total += int(statm.read().split()[1]) * PAGE
            for task in os.listdir(f"/proc/{at}/task"):
                with open(f"/proc/{at}/task/{task}/children") as children:
                    stack += map(int, children.read().split())
        except (OSError, ValueError):
            pass
    return total

start = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
ended, together = threading.Event(), [0]

def sample():
    while not ended.wait(0.005):
        together[0] = max(together[0], tree_rss(proc.pid))

sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
_, status, usage = os.wait4(proc.pid, 0)
elapsed = time.perf_counter() - start
ended.set()
sampler.join()
peak = max(usage.ru_maxrss * 1024, together[0]) / 2**20
print(json.dumps([elapsed, peak, os.waitstatus_to_exitcode(status)]))
"""
"""Runs the command (its stderr is the launcher's), prints [wall seconds, peak MiB, exit code].

The peak is the larger of the command's own (`wait4`: its largest process) and the sum over the
command and the processes it started, sampled every 5 ms (`agentdiff compare` prepares a large
candidate in a child process: both hold memory at once; a page they share counts in each)."""


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
