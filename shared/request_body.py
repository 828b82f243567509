"""A request body read once, within its limits: at most 1 MiB, within its deadline, well framed.

Later readers (functions-framework drains every body) get only that: a refusal costs no body.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import os
import socket
import threading
import time
from typing import IO, Any, cast

import flask

from shared.errors import BibliotecaError, InvalidBody, PayloadTooLarge, RequestTimeout
from shared.logs import get_logger

MAX_BODY_BYTES = 1024 * 1024
_PIECE = 64 * 1024  # one read of the server's stream: small enough to stop soon after the limit
_ENVIRON_KEY = "biblioteca.body"
# The client socket of the servers we run on: gunicorn (functions-framework in production,
# `biblioteca serve`) and werkzeug's development server.
_SOCKET_KEYS = ("gunicorn.socket", "werkzeug.socket")
_log = get_logger("http")


class RequestBody:
    """The body of one request, as its server hands it over; read with ``read_within``.

    It stands in for ``request.stream``: what any later reader gets is what
    ``read_within`` accepted (or nothing), never more bytes from the client.
    """

    def __init__(self, environ: dict[str, Any]) -> None:
        self._environ = environ
        self._outcome: bytes | BibliotecaError | None = None  # the one reading's result
        self._handed = False

    def read_within(self, limit: int, timeout_s: float) -> bytes:
        """The whole body; 413 past ``limit``, 408 past ``timeout_s``, 400 when badly framed.

        A declared length over the limit is refused before a byte is read. Otherwise the
        body is read in pieces, counting, and reading stops at ``limit + 1`` bytes. The
        body is read once: a second call gives the first one's body or error.
        """
        if self._outcome is None:
            try:
                self._outcome = self._read_all(limit, timeout_s)
            except BibliotecaError as exc:
                self._outcome = exc
        if isinstance(self._outcome, BibliotecaError):
            raise self._outcome
        return self._outcome

    def _read_all(self, limit: int, timeout_s: float) -> bytes:
        declared = _declared_length(self._environ)
        if declared is not None and declared > limit:
            raise _too_large(limit)
        if declared is None and not self._environ.get("wsgi.input_terminated"):
            # Neither a length nor a server that ends the stream (chunked): no body. Reading
            # would wait for bytes that may never come (werkzeug's own rule, get_input_stream).
            return b""
        wanted = limit + 1 if declared is None else declared
        data = self._read(wanted, time.monotonic() + timeout_s)
        if declared is not None and len(data) < declared:
            raise InvalidBody(f"the body ended after {len(data)} of its {declared} declared bytes")
        if len(data) > limit:
            raise _too_large(limit)
        return data

    def _read(self, wanted: int, deadline: float) -> bytes:
        stream = self._environ["wsgi.input"]
        sock = next((s for k in _SOCKET_KEYS if (s := self._environ.get(k)) is not None), None)
        # A blocked read cannot see the clock: the watchdog wakes it at the deadline by
        # shutting the socket's read side, and the read then ends as if the body had.
        alarm = _watchdog.arm(deadline, sock) if isinstance(sock, socket.socket) else None
        parts: list[bytes] = []
        got = 0
        try:
            while got < wanted:
                if time.monotonic() >= deadline:
                    raise _timed_out()
                try:
                    piece = stream.read(min(_PIECE, wanted - got))
                except Exception as exc:  # the server's reader refused the framing
                    if isinstance(exc, TimeoutError) or time.monotonic() >= deadline:
                        raise _timed_out() from exc
                    _log.warning("unreadable request body: %s", type(exc).__name__)
                    raise InvalidBody(
                        "the request body is malformed (broken chunked encoding "
                        "or a connection closed mid-body)"
                    ) from exc
                if not piece:
                    if time.monotonic() >= deadline:
                        raise _timed_out()
                    break
                parts.append(piece)
                got += len(piece)
        finally:
            if alarm is not None:
                _watchdog.disarm(alarm)
        return b"".join(parts)

    # -- what later readers of ``request.stream`` see (functions-framework's drain) -------

    def read(self, size: int = -1) -> bytes:
        """What ``read_within`` accepted, once; never a byte more from the client."""
        if self._handed or not isinstance(self._outcome, bytes):
            return b""
        self._handed = True
        return self._outcome


def left_unread(environ: dict[str, Any]) -> bool:
    """Whether the request carried a body that was not read to its end (refused, or never
    read: a 401 or 405). The connection cannot carry another request after it."""
    declared = str(environ.get("CONTENT_LENGTH") or "").strip()
    chunked = "chunked" in str(environ.get("HTTP_TRANSFER_ENCODING") or "").lower()
    has_body = declared not in ("", "0") or chunked
    body = environ.get(_ENVIRON_KEY)
    return has_body and not (isinstance(body, RequestBody) and isinstance(body._outcome, bytes))


def guard_body(request: flask.Request) -> RequestBody:
    """The request's ``RequestBody``, put in place of ``request.stream`` on first call."""
    found = request.environ.get(_ENVIRON_KEY)
    if isinstance(found, RequestBody):
        return found
    body = RequestBody(request.environ)
    request.environ[_ENVIRON_KEY] = body
    # werkzeug's cached property: whatever reads the request from now on reads this.
    request.stream = cast(IO[bytes], body)
    return body


def _declared_length(environ: dict[str, Any]) -> int | None:
    raw = str(environ.get("CONTENT_LENGTH") or "").strip()
    if not raw:
        return None
    if not raw.isdigit():
        raise InvalidBody("Content-Length is not a number of bytes")
    return int(raw)


def _too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(f"request body is larger than {limit // 1024} KiB")


def _timed_out() -> RequestTimeout:
    return RequestTimeout("the request body stopped arriving before its deadline")


class _Watchdog:
    """One thread that shuts the read side of a socket whose body deadline has passed.

    Lazily started, one per process (gunicorn forks after import); idle when nothing is
    armed. Disarming drops the socket at once; the heap keeps only a number until then.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._armed: dict[int, socket.socket] = {}
        self._ids = itertools.count()
        self._pid = 0

    def arm(self, deadline: float, sock: socket.socket) -> int:
        with self._cond:
            if self._pid != os.getpid():
                self._pid = os.getpid()
                self._heap.clear()
                self._armed.clear()
                threading.Thread(target=self._run, name="body-watchdog", daemon=True).start()
            alarm = next(self._ids)
            self._armed[alarm] = sock
            heapq.heappush(self._heap, (deadline, alarm))
            self._cond.notify()
            return alarm

    def disarm(self, alarm: int) -> None:
        with self._cond:
            self._armed.pop(alarm, None)

    def _run(self) -> None:
        with self._cond:
            while True:
                while self._heap and self._heap[0][1] not in self._armed:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._cond.wait()
                    continue
                wait = self._heap[0][0] - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                _, alarm = heapq.heappop(self._heap)
                sock = self._armed.pop(alarm)
                with contextlib.suppress(OSError):  # already closed: nothing left to wake
                    sock.shutdown(socket.SHUT_RD)


_watchdog = _Watchdog()
