"""The HTTP server under ``biblioteca serve``: gunicorn's threaded worker, as in production.

Its own refusals (URL or headers too long, broken HTTP) answer the contract's JSON, not HTML.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any

import gunicorn.app.base
from gunicorn import util
from gunicorn.http import errors as http_errors
from gunicorn.workers.gthread import ThreadWorker

from shared.errors import BibliotecaError, HeadersTooLarge, InvalidBody, UriTooLong
from shared.logs import get_logger, scrub
from shared.request_body import left_unread

# gunicorn's largest request line, and its default header limits: 100 fields of 8190 bytes.
MAX_REQUEST_LINE = 8190
MAX_HEADER_FIELDS = 100
MAX_HEADER_FIELD_BYTES = 8190
_REASONS = {400: "Bad Request", 414: "URI Too Long", 431: "Request Header Fields Too Large"}
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


class JsonErrorWorker(ThreadWorker):  # type: ignore[misc]
    """gunicorn's threaded worker whose own error answers are the contract's JSON body."""

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


def run(app: Any, host: str, port: int, *, ready: Any = None) -> int:
    """Serve ``app`` until stopped (SIGTERM, Ctrl-C); the exit status."""
    settings = options(host, port)
    if ready is not None:
        settings["when_ready"] = ready
    try:
        Server(app, settings).run()
    except SystemExit as stop:  # gunicorn's arbiter leaves through sys.exit
        return stop.code if isinstance(stop.code, int) else 1
    return 0
