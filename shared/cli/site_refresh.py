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

import hmac
import json
import threading
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any

from shared.cli.serve_state import KEY_HEADER, REBUILD_PATH, STATE
from shared.errors import BibliotecaError, MethodNotAllowed, Unauthorized
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


def after_writes(app: Any, refresher: Refresher, key: str = "") -> Any:
    """WSGI middleware: ``refresher.poke()`` after a 2xx answer of a write function, and
    at a ``POST`` to the rebuild hook carrying ``key`` (a command line write to this
    store: ``shared/cli/store_choice.py``)."""

    def middleware(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if key and environ.get("PATH_INFO") == REBUILD_PATH:
            return _hook(environ, start_response)
        name = environ.get("PATH_INFO", "").strip("/").split("/", 1)[0]
        if environ.get("REQUEST_METHOD") != "POST" or name not in WRITES:
            return app(environ, start_response)  # type: ignore[no-any-return]

        def start(status: str, headers: Any, *rest: Any) -> Any:
            if status.startswith("2"):
                refresher.poke()
            return start_response(status, headers, *rest)

        return app(environ, start)  # type: ignore[no-any-return]

    def _hook(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        given = environ.get("HTTP_" + KEY_HEADER.upper().replace("-", "_"), "")
        if environ.get("REQUEST_METHOD") != "POST":
            error: BibliotecaError = MethodNotAllowed("the rebuild hook takes POST")
        elif not hmac.compare_digest(str(given).encode(), key.encode()):
            error = Unauthorized(f"the rebuild hook needs the key of this serve's {STATE}")
        else:
            refresher.poke()
            return _json(start_response, "202 Accepted", {"rebuilding": True})
        status = f"{error.status} {HTTPStatus(error.status).phrase}"
        return _json(start_response, status, error.body())

    return middleware


def _json(start_response: Callable[..., Any], status: str, body: dict[str, Any]) -> list[bytes]:
    data = json.dumps(body).encode()
    start_response(
        status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
    )
    return [data]


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
