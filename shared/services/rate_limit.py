"""A per-client sliding-window rate limit, in memory: each instance counts on its own.

With N instances behind a load balancer a client may get up to N times the limit; the
limit guards the model's quota against one noisy client, not against a determined one.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable

from shared.errors import RateLimited

_PRUNE_EVERY = 1024  # calls between sweeps of clients that went quiet
# Archiving from the widget (anonymous, BIBLIOTECA_ARCHIVE_FROM_WIDGET=1) writes drafts a
# curator has to read, and runs the triage model: per client, far fewer than questions.
WIDGET_ARCHIVE_WINDOW = (5, 3600)


class SlidingWindow:
    """At most ``requests`` per ``seconds`` per client id."""

    def __init__(
        self, requests: int, seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.requests = requests
        self.seconds = seconds
        self._clock = clock
        self._hits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()
        self._calls = 0

    def check(self, client: str) -> None:
        """Count one request of ``client``; ``RateLimited`` (with Retry-After) when over."""
        now = self._clock()
        with self._lock:
            self._calls += 1
            if self._calls % _PRUNE_EVERY == 0:
                self._prune(now)
            hits = self._hits.setdefault(client, deque())
            while hits and hits[0] <= now - self.seconds:
                hits.popleft()
            if len(hits) >= self.requests:
                retry_after = math.ceil(hits[0] + self.seconds - now)
                raise RateLimited(
                    f"too many questions: at most {self.requests} per "
                    f"{_period(self.seconds)}; retry in {max(1, retry_after)} s",
                    retry_after=retry_after,
                )
            hits.append(now)

    def allow(self, client: str) -> bool:
        """``check`` as a yes or no: counts the request when it is allowed."""
        try:
            self.check(client)
        except RateLimited:
            return False
        return True

    def _prune(self, now: float) -> None:
        for client in [c for c, h in self._hits.items() if not h or h[-1] <= now - self.seconds]:
            del self._hits[client]


def _period(seconds: float) -> str:
    names = {1: "second", 60: "minute", 3600: "hour", 86400: "day"}
    return names.get(int(seconds), f"{seconds:g} s")


class Limiters:
    """A process's limiters, one per purpose and window (each counts apart); the
    composition root holds them (``Wiring.limits``), so a new wiring starts uncounted."""

    def __init__(self) -> None:
        self._windows: dict[tuple[str, int, int], SlidingWindow] = {}
        self._lock = threading.Lock()

    def get(self, window: tuple[int, int], purpose: str = "ask") -> SlidingWindow:
        """The limiter for ``(requests, seconds)`` of ``purpose``, made on first use."""
        key = (purpose, *window)
        with self._lock:
            found = self._windows.get(key)
            if found is None:
                found = self._windows[key] = SlidingWindow(*window)
            return found

    def widget_may_archive(self, client: str) -> bool:
        """Whether an anonymous ``client`` may send one more answer to the archive gates now."""
        return self.get(WIDGET_ARCHIVE_WINDOW, purpose="widget-archive").allow(client)

    def clear(self) -> None:
        """Forget every count (tests that change the window)."""
        with self._lock:
            self._windows.clear()
