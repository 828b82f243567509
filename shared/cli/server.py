"""The HTTP server under ``biblioteca serve``: gunicorn's threaded worker, as in production.

Its own refusals (URL or headers too long, broken HTTP) answer the contract's JSON, not HTML.
A connection gets a worker thread only once its request line, headers and body are in:
until then the worker's event loop reads them without blocking, under deadlines (408; a
body must also keep a minimum rate, ``shared/cli/body_wait.py``), so idle or half-open
sockets (a few bytes of a request line, a TLS ClientHello on the plain port, a body sent a
byte at a time) hold no thread at all. One peer address may keep only so many connections
waiting, and when the worker's connection slots are full the heaviest peer's oldest
waiting connection gives way to the newcomer.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import selectors
import time
from collections import deque
from functools import partial
from typing import Any

import gunicorn.app.base
from gunicorn import util
from gunicorn.http import errors as http_errors
from gunicorn.workers.gthread import TConn, ThreadWorker

from shared.cli.body_wait import (
    BODY_GRACE_S,
    MIN_BODY_BYTES_PER_S,
    BodyWait,
    body_deadline,
    expect_body,
    expects_continue,
    split_head,
)
from shared.config import get_settings
from shared.errors import (
    BibliotecaError,
    HeadersTooLarge,
    InvalidBody,
    RequestTimeout,
    UriTooLong,
)
from shared.logs import get_logger, scrub
from shared.request_body import left_unread

# gunicorn's largest request line, and its default header limits: 100 fields of 8190 bytes.
MAX_REQUEST_LINE = 8190
MAX_HEADER_FIELDS = 100
MAX_HEADER_FIELD_BYTES = 8190
# Connections of one peer address still sending their head or body: past this many, its
# oldest is dropped, so one peer cannot fill the worker's connection slots (1,000) with
# them; many peers together cannot either (see ``JsonErrorWorker.accept``).
MAX_WAITING_PER_PEER = 64
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
_READ_BYTES = 65_536
NOT_HTTP = "the request is not well-formed HTTP/1.1 (it does not begin with a method)"
_REASONS = {
    400: "Bad Request",
    408: "Request Timeout",
    414: "URI Too Long",
    431: "Request Header Fields Too Large",
}
_SERVER_FAULTS = (
    http_errors.ConfigurationProblem,
    http_errors.InvalidResponseHeader,
    http_errors.InvalidResponseHeaderName,
)
_log = get_logger("serve")


def options(host: str, port: int) -> dict[str, Any]:
    """gunicorn's settings for ``serve``: functions-framework's, plus the limits above."""
    bind_host = f"[{host}]" if ":" in host else host
    return {
        "bind": f"{bind_host}:{port}",
        # One process, like one function instance: the rate limiter and the caches are
        # per process. Threads as functions-framework sizes them in production.
        "workers": 1,
        "threads": int(os.environ.get("THREADS", (os.cpu_count() or 1) * 4)),
        "worker_class": f"{__name__}.JsonErrorWorker",
        "limit_request_line": MAX_REQUEST_LINE,
        "limit_request_fields": MAX_HEADER_FIELDS,
        "limit_request_field_size": MAX_HEADER_FIELD_BYTES,
        "graceful_timeout": 5,  # Ctrl-C or a test's teardown must not wait 30 s
        # No access log: each function writes its own JSON request line, with the path only
        # (an access log would print query strings, and whatever token a client put there).
        "accesslog": None,
        "errorlog": "-",
        "loglevel": "warning",
    }


class Server(gunicorn.app.base.BaseApplication):  # type: ignore[misc]
    """gunicorn serving one WSGI app built beforehand (as functions-framework does)."""

    def __init__(self, app: Any, settings: dict[str, Any]) -> None:
        self._app = app
        self._settings = settings
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._settings.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        return closing_after_unread_bodies(self._app)


def closing_after_unread_bodies(app: Any) -> Any:
    """Say ``Connection: close`` on an answer that left its request's body unread.

    A refused body (413, 408, 401…) is not read, and its connection is closed after the
    answer (the rest of the body is never drained). gunicorn decides the header before
    the app returns: told here, at ``start_response``, it says so to the client, which
    then opens a new connection instead of reusing a closed one.
    """

    def wrapped(environ: dict[str, Any], start_response: Any) -> Any:
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            # gunicorn's ``start_response`` is a method of its response object.
            force_close = getattr(getattr(start_response, "__self__", None), "force_close", None)
            if force_close is not None and left_unread(environ):
                force_close()
            return start_response(status, headers, exc_info)

        return app(environ, start)

    return wrapped


class HeadReader:
    """Bytes of a request until its head (request line and headers) is in, read linearly.

    ``feed`` says whether gunicorn's parser can now decide without another read: the empty
    line that ends the headers has arrived, or enough to refuse the request (a line past
    gunicorn's limit, more lines than its header limit, a first byte that cannot begin a
    method, as in a TLS ClientHello). Each byte is looked at once, whatever the pieces.
    """

    __slots__ = ("_line", "_lines", "data", "not_http")

    def __init__(self) -> None:
        self.data = bytearray()
        self.not_http = False  # refused here: gunicorn's parser would wait for a line end
        self._line = 0  # bytes of the current line so far, its CR included
        self._lines = 0  # lines ended so far

    def feed(self, piece: bytes) -> bool:
        start = len(self.data)
        self.data += piece
        if start == 0 and piece and not piece[:1].isalpha():
            self.not_http = True  # cannot begin a method (a TLS ClientHello begins 0x16)
            return True
        for byte in piece:
            if byte != 0x0A:  # "\n"
                self._line += 1
                if self._line > MAX_HEADER_FIELD_BYTES + 1:
                    return True
                continue
            if self._line <= 1:  # an empty line ("\r\n" or "\n"): the head is whole
                return True
            self._lines += 1
            self._line = 0
            if self._lines > MAX_HEADER_FIELDS + 1:
                return True
        return False


class JsonErrorWorker(ThreadWorker):  # type: ignore[misc]
    """gunicorn's threaded worker whose own error answers are the contract's JSON body, and
    which reads each request's head in its event loop before a thread takes it (see the
    module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.head_timeout = get_settings().header_timeout_s
        self.body_timeout = get_settings().body_timeout_s
        self.heads: deque[TConn] = deque()  # oldest deadline first
        self.bodies: set[TConn] = set()  # heads in, bodies still arriving (own deadlines)
        self.heads_by_peer: dict[str, deque[TConn]] = {}  # head or body waiting, oldest first

    # -- the head, read in the event loop ------------------------------------------------

    def accept(self, listener: Any) -> None:
        try:
            sock, client = listener.accept()
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        if self.nr_conns >= self.worker_connections and self.heads_by_peer:
            # Every slot taken: the peer holding the most waiting connections loses its
            # oldest, so a new client is still accepted however many peers hold sockets.
            heaviest = max(self.heads_by_peer.values(), key=len)
            self.drop_head(heaviest[0], answer=self.late(heaviest[0]))
        self.await_head(TConn(self.cfg, sock, client, listener.getsockname()), HeadReader())

    def on_client_socket_readable(self, conn: TConn, client: Any) -> None:
        """A kept-alive connection's next request begins: its head is read the same way."""
        self.poller.unregister(client)
        self.keepalived_conns.remove(conn)
        self.await_head(conn, HeadReader())

    def enqueue_req(self, conn: TConn) -> None:
        if getattr(conn, "biblioteca_ready", False):
            conn.biblioteca_ready = False
            super().enqueue_req(conn)
            return
        # gunicorn hands over a kept-alive connection whose last body's drain read ahead
        # into the next request: those bytes begin the next head, whole or not.
        reader = HeadReader()
        unreader = conn.parser.unreader
        ahead = unreader.buf.getvalue()
        unreader.buf = io.BytesIO()
        whole = reader.feed(ahead)
        self.await_head(conn, reader)
        if whole:
            self.head_in(conn)

    def hand_over(self, conn: TConn, reader: HeadReader) -> None:
        conn.biblioteca_head = reader
        conn.biblioteca_body = None
        conn.biblioteca_ready = True
        conn.data_ready = True
        self.enqueue_req(conn)

    def await_head(self, conn: TConn, reader: HeadReader) -> None:
        conn.sock.setblocking(False)
        conn.biblioteca_head = reader
        conn.biblioteca_body = None
        conn.timeout = time.monotonic() + self.head_timeout
        peer = _peer(conn.client)
        waiting = self.heads_by_peer.setdefault(peer, deque())
        if len(waiting) >= MAX_WAITING_PER_PEER:
            self.drop_head(waiting[0], answer=self.late(waiting[0]))
        waiting.append(conn)
        self.heads.append(conn)
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_head_readable, conn))

    def on_head_readable(self, conn: TConn, client: Any) -> None:
        try:
            piece = conn.sock.recv(_READ_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            piece = b""
        reader: HeadReader = conn.biblioteca_head
        body: BodyWait | None = getattr(conn, "biblioteca_body", None)
        if body is not None:
            self.on_body_piece(conn, reader, body, piece)
            return
        if not piece:  # closed before a whole request: nothing to answer
            self.drop_head(conn, answer=None)
            return
        if reader.feed(piece):
            self.head_in(conn)

    def head_in(self, conn: TConn) -> None:
        """The head is whole: refuse it, hand it over, or keep reading its body here."""
        reader: HeadReader = conn.biblioteca_head
        if reader.not_http:
            self.drop_head(conn, answer=InvalidBody(NOT_HTTP))
            return
        parts = split_head(bytes(reader.data))
        body = expect_body(parts[0]) if parts is not None else None
        if parts is None or body is None or body.feed(parts[1]):
            self.forget_head(conn)
            self.hand_over(conn, reader)
            return
        with contextlib.suppress(ValueError):
            self.heads.remove(conn)
        conn.biblioteca_body = body
        conn.biblioteca_body_started = time.monotonic()
        conn.timeout = self.body_due(conn, body)
        self.bodies.add(conn)
        if expects_continue(parts[0]):
            # The client waits for this before its body. gunicorn's parser says it again
            # later: a client reads any number of 1xx answers before the final one.
            with contextlib.suppress(OSError):
                conn.sock.send(_CONTINUE)

    def on_body_piece(self, conn: TConn, reader: HeadReader, body: BodyWait, piece: bytes) -> None:
        if not piece:
            # Closed (or half-closed) mid-body: the application answers what it got
            # (400 for a body shorter than declared), as before bodies were read here.
            self.forget_head(conn)
            self.hand_over(conn, reader)
            return
        reader.data += piece
        if body.feed(piece):
            self.forget_head(conn)
            self.hand_over(conn, reader)
            return
        conn.timeout = self.body_due(conn, body)

    def body_due(self, conn: TConn, body: BodyWait) -> float:
        started: float = conn.biblioteca_body_started
        return body_deadline(started, max(body.expected, body.received), self.body_timeout)

    def murder_pending(self) -> None:
        super().murder_pending()
        now = time.monotonic()
        while self.heads and self.heads[0].timeout <= now:
            self.drop_head(self.heads[0], answer=self.late(self.heads[0]))
        for conn in [c for c in self.bodies if c.timeout <= now]:
            self.drop_head(conn, answer=self.late(conn))

    def late(self, conn: TConn) -> BibliotecaError:
        if getattr(conn, "biblioteca_body", None) is None:
            return RequestTimeout(
                f"the request line and headers did not arrive within {self.head_timeout:g} s"
            )
        return RequestTimeout(
            "the request body did not arrive in time: it must be whole within "
            f"{self.body_timeout:g} s and, after the first {BODY_GRACE_S:g} s, keep "
            f"arriving at {MIN_BODY_BYTES_PER_S // 1024} KiB/s on average"
        )

    def forget_head(self, conn: TConn) -> None:
        with contextlib.suppress(OSError, KeyError, ValueError):
            self.poller.unregister(conn.sock)
        with contextlib.suppress(ValueError):
            self.heads.remove(conn)
        self.bodies.discard(conn)
        peer = _peer(conn.client)
        waiting = self.heads_by_peer.get(peer)
        if waiting is not None:
            with contextlib.suppress(ValueError):
                waiting.remove(conn)
            if not waiting:
                del self.heads_by_peer[peer]

    def drop_head(self, conn: TConn, *, answer: BibliotecaError | None) -> None:
        """Close a connection whose head or body never came whole, with ``answer`` if it had
        begun one (a connection that never sent a byte is closed without a word)."""
        self.forget_head(conn)
        if answer is not None and conn.biblioteca_head.data:
            _log.warning("serve refused a request: %d (%s)", answer.status, answer.code)
            with contextlib.suppress(OSError):
                conn.sock.send(wire(answer))
        self.nr_conns -= 1
        conn.close()

    def handle(self, conn: TConn) -> Any:
        """In a worker thread: the parser reads the head this worker already read first."""
        head = getattr(conn, "biblioteca_head", None)
        if head is not None:
            conn.biblioteca_head = None
            conn.biblioteca_body = None
            conn.sock.setblocking(True)
            conn.init()
            conn.parser.unreader.unread(bytes(head.data))
        return super().handle(conn)

    # -- answers -------------------------------------------------------------------------

    def handle_request(self, req: Any, conn: Any) -> bool:
        keep_alive = bool(super().handle_request(req, conn))
        req.biblioteca_answered = True
        return keep_alive

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        if getattr(req, "biblioteca_answered", False):
            # The answer is out; what failed is discarding the rest of a body nobody read
            # (say a broken chunked body after a 401). A second answer would corrupt the
            # connection: gunicorn closes it, and that is all.
            return
        error = refusal(exc)
        if error.status >= 500:
            _log.error("serve failed on a request", exc_info=exc)
        else:
            # The exception's name only: its text may quote the request line (and a token).
            _log.warning("serve refused a request: %d (%s)", error.status, type(exc).__name__)
        with contextlib.suppress(OSError):  # the client is gone: nothing to answer
            util.write_nonblock(client, wire(error))


def _peer(client: Any) -> str:
    """The peer's address without its port (a unix socket has none)."""
    return str(client[0]) if isinstance(client, tuple) and client else str(client)


def refusal(exc: BaseException) -> BibliotecaError:
    """The contract's error for what gunicorn refused before the app saw the request."""
    if isinstance(exc, http_errors.LimitRequestLine):
        return UriTooLong(
            f"the request line (method, URL, version) is longer than {MAX_REQUEST_LINE} bytes"
        )
    if isinstance(exc, http_errors.LimitRequestHeaders):
        return HeadersTooLarge(
            f"the request headers are over the limit: at most {MAX_HEADER_FIELDS} headers "
            f"of {MAX_HEADER_FIELD_BYTES} bytes each"
        )
    if isinstance(exc, http_errors.ParseException) and not isinstance(exc, _SERVER_FAULTS):
        return InvalidBody(f"the request is not well-formed HTTP/1.1 ({type(exc).__name__})")
    return BibliotecaError("internal error: the failure was logged")


def wire(error: BibliotecaError) -> bytes:
    """A whole HTTP/1.1 answer carrying ``error``'s body; the connection closes after it."""
    body = scrub(json.dumps(error.body(), ensure_ascii=False)).encode()
    reason = _REASONS.get(error.status, "Internal Server Error")
    head = (
        f"HTTP/1.1 {error.status} {reason}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body


def run(app: Any, host: str, port: int, *, ready: Any = None, worker_started: Any = None) -> int:
    """Serve ``app`` until stopped (SIGTERM, Ctrl-C); the exit status. ``worker_started``
    runs in the worker process once it is forked (threads of its own start there)."""
    settings = options(host, port)
    if ready is not None:
        settings["when_ready"] = ready
    if worker_started is not None:
        settings["post_worker_init"] = worker_started
    try:
        Server(app, settings).run()
    except SystemExit as stop:  # gunicorn's arbiter leaves through sys.exit
        return stop.code if isinstance(stop.code, int) else 1
    return 0
