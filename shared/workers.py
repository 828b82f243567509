"""Worker processes for pure CPU work over many items: the import's fidelity measure and
the duplicates run's signatures, each a pure function of what it is sent.

The workers are forked, not spawned: a spawned one imports the whole project again
(about a second of CPU), a forked one shares the parent's modules. They are forked on
entering ``forked``, all at once, and only from a process with no other thread (one
could hold a lock the fork would copy held: a threaded server works in line) that has
not loaded gRPC (the Firestore client's threads and channels are invisible to
``threading`` and do not survive a fork). Where no pool can be had, ``forked`` yields
None and the caller does the work itself: the outcome is the same, only slower.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager


def cpus() -> int:
    """The CPUs this process may run on."""
    count = getattr(os, "process_cpu_count", None)  # Python 3.13+
    return (count() if count is not None else len(os.sched_getaffinity(0))) or 1


def can_fork() -> bool:
    """Whether this process may fork its workers now (see the module)."""
    return (
        "fork" in multiprocessing.get_all_start_methods()
        and threading.active_count() == 1
        and "grpc" not in sys.modules
    )


@contextmanager
def forked(processes: int) -> Iterator[ProcessPoolExecutor | None]:
    """A pool of ``processes`` forked workers for the block, or None (see the module).
    Leaving the block ends them; leaving it on an error drops the work not started."""
    if processes < 1 or not can_fork():
        yield None
        return
    try:
        pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork"))
        pool.submit(int).result()  # forks every worker now, before any thread starts
    except OSError:  # no processes here (a sandbox)
        yield None
        return
    failed = True
    try:
        yield pool
        failed = False
    finally:
        pool.shutdown(cancel_futures=failed)
