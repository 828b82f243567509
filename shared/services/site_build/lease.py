"""The rebuild's lease: one run at a time, renewed while it runs, given back at the end.

The lease lives in the store (``SiteState``); a run that stopped without giving it back
is waited out and taken over, never raced.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from shared.errors import BibliotecaError
from shared.logs import get_logger
from shared.ports import Store
from shared.records import Lease

# The lease lives LEASE_SECONDS past its holder's last renewal, and a running build renews
# it every RENEW_SECONDS. A build that stopped, or that could not write to give it back (a
# full disk, a dead store), leaves a lease that expires within LEASE_SECONDS: the next build
# waits that long at most for it, takes it over and says so in its report. A holder that
# renews while the next one waits is alive: that one answers 409 at once. The renewal
# interval is well past one store call's retry deadline (5 s), so a slow renewal does not
# lose the lease; losing it anyway is caught before publishing.
LEASE_SECONDS = 15.0
RENEW_SECONDS = 3.0
LEASE_POLL_SECONDS = 0.5
_log = get_logger("rebuild")


def take_lease(store: Store, owner: str, ttl: float) -> tuple[bool, Lease | None]:
    """Take the lease, waiting up to ``ttl`` for one whose holder stopped renewing it.

    Returns whether it was taken and, when it was an expired lease nobody gave back, that
    lease (the report names it). A lease that changes while we wait (renewed, or taken by
    another run) has a live holder, and one that outlives the wait was not ours to wait
    for: both are ``rebuild_in_progress`` at once.
    """
    deadline = time.monotonic() + ttl
    first: Lease | None = None
    while True:
        seen = store.site.read_lease()
        if store.site.acquire_lease(owner, ttl):
            if seen is not None and seen.owner != owner and seen.expires_at <= time.time():
                _log.warning(
                    "the rebuild lease of %s expired without being given back (its build "
                    "stopped, or could not write to the store): this run took it over",
                    seen.owner,
                )
                return True, seen
            return True, None
        if seen is None or (first is not None and seen != first):
            return False, None
        first = seen
        left = time.monotonic() + (seen.expires_at - time.time())
        if left > deadline:
            return False, None
        time.sleep(LEASE_POLL_SECONDS)


@contextmanager
def renewing(store: Store, owner: str, ttl: float) -> Iterator[None]:
    """Renew the lease every ``RENEW_SECONDS`` while the build runs (see ``LEASE_SECONDS``).

    A renewal that fails is logged once; the lease then expires on its own, and a build
    that lost it to another run finds out before publishing (``Build``).
    """
    stop = threading.Event()

    def beat() -> None:
        failing = False
        while not stop.wait(RENEW_SECONDS):
            try:
                store.site.acquire_lease(owner, ttl)
                failing = False
            except BibliotecaError as exc:
                if not failing:
                    _log.error("the rebuild lease could not be renewed: %s", exc.message)
                failing = True

    thread = threading.Thread(target=beat, name="rebuild-lease", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def release(store: Store, owner: str) -> None:
    """Give the lease back; failing to is logged, not the build's answer (it expires anyway)."""
    try:
        store.site.release_lease(owner)
    except BibliotecaError as exc:
        _log.error(
            "the rebuild lease could not be released (it expires on its own): %s",
            exc.message,
            extra={"code": exc.code},
        )
