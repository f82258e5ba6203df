"""`no_gc_pauses()`: pause Python's cyclic garbage collector around bulk, acyclic allocation.

Loading a 100,000-step trace or comparing two allocates hundreds of thousands of small records
that hold no reference cycles; a collection in the middle only rescans them (on 100k steps it
costs a third of the time, or more). Reference counting still frees everything as usual, and
the caller's setting is restored afterwards.
"""

from __future__ import annotations

import gc
import threading

__all__ = ["no_gc_pauses"]


class _Pauses:
    """How many blocks run paused, in every thread, and the collector's setting before them."""

    __slots__ = ("depth", "enabled", "lock")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.enabled = False


_PAUSES = _Pauses()


class no_gc_pauses:  # noqa: N801 - used as a function: `with no_gc_pauses():`
    """Disable the cyclic collector for the block; the last block out restores its setting.

    One count for the process: a block in one thread must not read the setting another
    thread's block left (read "disabled" while that block ends and re-enables, then disable it
    for good). A class rather than a generator under `contextlib.contextmanager`: it is entered
    once per loaded file and up to three times per comparison, and contextlib's machinery cost
    about as much as reading a small file's bytes.
    """

    __slots__ = ()

    def __enter__(self) -> None:
        pauses = _PAUSES
        with pauses.lock:
            if pauses.depth == 0:
                pauses.enabled = gc.isenabled()
                gc.disable()
            pauses.depth += 1

    def __exit__(self, *exc: object) -> None:
        pauses = _PAUSES
        with pauses.lock:
            pauses.depth -= 1
            if pauses.depth == 0 and pauses.enabled:
                gc.enable()
