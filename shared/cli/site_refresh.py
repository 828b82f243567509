"""``biblioteca serve`` keeps its local site up to date: a write it served is on the site
seconds later, without a manual ``biblioteca rebuild``.

After a successful ``wiki_create`` or ``wiki_update`` the server waits ``delay`` seconds
(a burst of writes gives one build), then runs one incremental build; a write during a
build asks for one more after it. One build at a time in this process; the store's lease
keeps it from racing a ``biblioteca rebuild`` run elsewhere (that build then answers
``rebuild_in_progress`` and the next write tries again). Production keeps its scheduler:
this is only the local server, and only for a local site folder.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from shared.logs import get_logger

WRITES = frozenset({"wiki_create", "wiki_update"})  # the functions that can publish a page
DELAY_SECONDS = 2.0
_log = get_logger("serve")


class Refresher:
    """Debounced, single-flight calls of ``build`` (see the module docstring)."""

    def __init__(self, build: Callable[[], None], delay: float = DELAY_SECONDS) -> None:
        self.build = build
        self.delay = delay
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._running = False
        self._again = False

    def poke(self) -> None:
        """A write happened: build ``delay`` seconds after the last one."""
        with self._lock:
            if self._running:
                self._again = True
                return
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.delay, self._run)
            self._timer.daemon = True
            self._timer.start()

    def _run(self) -> None:
        with self._lock:
            self._timer = None
            self._running = True
        try:
            self.build()
        except Exception:  # a failed build is logged; the server keeps serving
            _log.exception("the site could not be rebuilt after a write")
        finally:
            with self._lock:
                self._running = False
                again, self._again = self._again, False
            if again:
                self.poke()

    def cancel(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None


def after_writes(app: Any, refresher: Refresher) -> Any:
    """WSGI middleware: ``refresher.poke()`` after a 2xx answer of a write function."""

    def middleware(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        name = environ.get("PATH_INFO", "").strip("/").split("/", 1)[0]
        if environ.get("REQUEST_METHOD") != "POST" or name not in WRITES:
            return app(environ, start_response)  # type: ignore[no-any-return]

        def start(status: str, headers: Any, *rest: Any) -> Any:
            if status.startswith("2"):
                refresher.poke()
            return start_response(status, headers, *rest)

        return app(environ, start)  # type: ignore[no-any-return]

    return middleware


def site_builder() -> None:
    """One incremental build of the configured site, through the composition root."""
    from shared.bootstrap import wiring

    report = wiring().rebuild()
    _log.info(
        "site rebuilt after a write: %s, built %d",
        report.status,
        report.built,
        extra={"duration_ms": report.duration_ms},
    )
