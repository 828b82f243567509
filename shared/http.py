"""The HTTP edge every function shares: checks in the contract's order, errors as its body.

``handle`` runs, for one request: method, credentials, size, media type, body;
then the function's service; then maps any ``BibliotecaError`` (or a bug) to the
contract's error body and writes one structured request log line.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import flask
from pydantic import ValidationError

from shared.api.models import ResponseBody
from shared.config import Role, Settings, get_settings
from shared.errors import (
    BibliotecaError,
    InvalidInput,
    InvalidJson,
    MethodNotAllowed,
    RateLimited,
    Unauthorized,
    UnsupportedMediaType,
)
from shared.json_value import JsonObject, JsonValue
from shared.logs import (
    PieceScrubber,
    configure_logging,
    get_logger,
    request_trace,
    scrub,
    trace_fields,
)
from shared.providers import sse
from shared.request_body import MAX_BODY_BYTES, guard_body
from shared.schema import invalid_input
from shared.services.roles import check_function

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")  # \ud800 … \udfff
_log = get_logger("http")
# The actor of an IAM caller whose identity the platform did not pass on.
IAM_ACTOR = "iam"


@dataclass(frozen=True, slots=True)
class RequestContext:
    """What a service may know about the request besides its body."""

    settings: Settings
    authorized: bool  # the caller presented valid write credentials
    client_id: str  # for rate limiting: see _client_id
    origin: str | None
    # The request's headers, names lower-cased (a protocol's own, such as MCP's version).
    headers: Mapping[str, str] = field(default_factory=dict)
    # Who writes, when ``authorized``: the credential's name (``BIBLIOTECA_API_TOKENS``;
    # ``default`` for ``BIBLIOTECA_API_TOKEN``), or under IAM the caller's identity.
    actor: str | None = None
    # What that credential may do (``BIBLIOTECA_API_TOKENS``' ``name:token:role``).
    role: Role = "writer"

    def writer(self) -> str:
        """The actor of a write this request makes (only called once authorized)."""
        return self.actor or IAM_ACTOR


@dataclass(frozen=True, slots=True)
class EventStream:
    """An answer sent as server-sent events, each ``(name, JSON data)``, as they come.

    Whatever could fail before the first event has failed already (the handler returns
    one only once the stream is sure to start); a failure later is an event of its own.
    """

    events: Iterable[tuple[str, Any]]


# Response headers of an event stream: no proxy or CDN in between (Cloud Run's front end,
# nginx, a corporate proxy) may hold the events back to buffer or compress the answer.
STREAM_HEADERS = {
    "Cache-Control": "no-cache, no-transform",
    "X-Accel-Buffering": "no",
}

# The status and JSON body of the answer; a body of None is an empty answer (a 202), an
# ``EventStream`` an answer in events (``text/event-stream``).
Handler = Callable[[JsonObject, RequestContext], tuple[int, JsonObject | EventStream | None]]


def handle(
    request: flask.Request,
    name: str,
    handler: Handler,
    *,
    write: bool | Callable[[Settings], bool],
    cors: bool = False,
    private: bool = False,
    limit: Callable[[Settings, str], None] | None = None,
) -> flask.Response:
    """Serve one request of the function ``name`` (see the module docstring).

    ``write``: credentials are required before the body is read (a callable decides from
    the settings: ``feedback`` is open unless ``BIBLIOTECA_FEEDBACK_FROM_WIDGET=0``).
    ``private``: the function is deployed private, so under ``BIBLIOTECA_AUTH=iam`` every
    caller passed the platform's check and may write (``mcp``, whose reading tools need
    no credentials). ``limit``: the per-client rate limit, checked once the body is
    read (a body that is not JSON counts as well). Every line logged while serving
    carries the request's Cloud trace.
    """
    configure_logging(stream=sys.stdout)  # functions log to stdout: Cloud Logging reads it
    trace = trace_fields(dict(request.headers), os.environ.get("GOOGLE_CLOUD_PROJECT"))
    served = _Function(name, handler, write, cors, private, limit)
    with request_trace(trace):
        return _handle(request, served)


@dataclass(frozen=True)
class _Function:
    """What ``handle`` was told of the function it serves (its parameters, kept together)."""

    name: str
    handler: Handler
    write: bool | Callable[[Settings], bool]
    cors: bool
    private: bool
    limit: Callable[[Settings, str], None] | None


def _handle(request: flask.Request, served: _Function) -> flask.Response:
    started = time.perf_counter()
    guard_body(request)  # from here on nothing reads the body past its limits, or at all
    origin = request.headers.get("Origin")
    settings: Settings | None = None
    try:
        # The method is checked before anything else, even the settings: a GET is a 405
        # whatever the state of the environment.
        if request.method != "POST" and not (served.cors and request.method == "OPTIONS"):
            raise MethodNotAllowed(f"{request.method} is not allowed here; use POST")
        settings = get_settings()  # registers its secrets with the log scrubber
        if served.cors and request.method == "OPTIONS":
            response = flask.Response(status=204)
        else:
            status, payload = _serve(request, served, settings, origin=origin)
            if isinstance(payload, EventStream):
                return _streamed(request, served, settings, (status, payload), started)
            response = (
                flask.Response(status=status) if payload is None else json_response(status, payload)
            )
    except BibliotecaError as exc:
        if exc.quoted:  # the provider's own words: always in the log, to callers with a token
            _log.warning(
                "%s: %s", served.name, scrub(exc.full_message), extra={"function": served.name}
            )
        response = error_response(exc, quoting=request.environ.get(_ACTOR_KEY) is not None)
    except ValidationError as exc:
        response = error_response(invalid_input(exc))
    except Exception:
        _log.exception("unhandled error in %s", served.name, extra={"function": served.name})
        response = json_response(
            500, {"error": "internal error: the failure was logged", "code": "internal_error"}
        )
    if served.cors and settings is not None:
        _cors_headers(response, origin, settings)
    _log_request(request, response, served.name, started, settings)
    return response


def _streamed(
    request: flask.Request,
    served: _Function,
    settings: Settings,
    answer: tuple[int, EventStream],
    started: float,
) -> flask.Response:
    """The event stream's response; its request line is logged when it ends, with how
    it ended (a status line says nothing of a stream that fails after 190 s)."""
    status, stream = answer
    facts = _request_facts(request, settings)
    response = event_stream_response(
        status,
        stream,
        served.name,
        on_end=lambda code: _log_line(served.name, status, code, started, facts),
    )
    if served.cors:
        _cors_headers(response, request.headers.get("Origin"), settings)
    return response


def _serve(
    request: flask.Request, served: _Function, settings: Settings, *, origin: str | None
) -> tuple[int, JsonObject | EventStream | None]:
    write = served.write
    required = write(settings) if callable(write) else write
    actor = _check_credentials(request, settings, required=required, private=served.private)
    request.environ[_ACTOR_KEY] = actor  # for the request's log line
    role = settings.role_of(actor) if actor is not None else "writer"
    check_function(role, served.name)  # before the body: a refused role costs none of it
    client_id = _client_id(request, settings.trusted_proxies)
    body = _counted_body(request, served, settings, client_id)
    context = RequestContext(
        settings=settings,
        authorized=actor is not None,
        client_id=client_id,
        origin=origin,
        headers={name.lower(): value for name, value in request.headers.items()},
        actor=actor,
        role=role,
    )
    return served.handler(body, context)


def _counted_body(
    request: flask.Request, served: _Function, settings: Settings, client_id: str
) -> JsonObject:
    """The JSON body, then the function's rate limit. The contract's checks come first
    (size, media type: a 413 or 415 is never hidden behind a 429); a body that is not
    JSON counts against the limit as any question does, so a flood of them meets it."""
    try:
        body = read_json_body(request)
    except InvalidJson:
        if served.limit is not None:
            served.limit(settings, client_id)
        raise
    if served.limit is not None:
        served.limit(settings, client_id)
    return body


_ACTOR_KEY = "biblioteca.actor"


def _check_credentials(
    request: flask.Request, settings: Settings, *, required: bool, private: bool = False
) -> str | None:
    """The actor when the caller may write (None: it may not); raises when ``required``
    and it may not."""
    if settings.auth == "iam":
        # Deployed private: Cloud Functions verified the caller's token before this code ran.
        # A public function (ask) in IAM mode still needs a token of its own to archive.
        if required or private:
            return iam_identity(dict(request.headers.items()))
        return _bearer_actor(request, settings.credentials())
    if not required:
        return _bearer_actor(request, settings.credentials())
    actor = _bearer_actor(request, settings.require_credentials())
    if actor is None:
        raise Unauthorized("missing or wrong bearer token (Authorization: Bearer <token>)")
    return actor


def _bearer_actor(request: flask.Request, credentials: list[tuple[str, str]]) -> str | None:
    """The name of the credential the bearer token is, or None.

    Every credential is compared, in constant time, whether or not an earlier one
    matched: how long the check takes says nothing about which token came close."""
    header = request.headers.get("Authorization", "")
    scheme, _, presented = header.partition(" ")
    if scheme.lower() != "bearer" or not presented.strip():
        return None
    offered = presented.strip().encode()
    found: str | None = None
    for name, token in credentials:
        if hmac.compare_digest(offered, token.encode()) and found is None:
            found = name
    return found


def iam_identity(headers: Mapping[str, str]) -> str:
    """The actor of a caller the platform let in under IAM: ``iam:<email>`` from the
    Google-signed ID token it verified, else ``iam``.

    Cloud Run (which serves gen2 functions) checks ``X-Serverless-Authorization`` when
    present, else ``Authorization``, before the code runs, and forwards the header. The
    claims are read without checking the signature again: a request that reaches this
    code under IAM carried a token the platform verified (the signature part may even be
    stripped). Only the ``email`` claim is used, and only if it looks like one.
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    for name in ("x-serverless-authorization", "authorization"):
        scheme, _, token = lowered.get(name, "").partition(" ")
        if scheme.lower() != "bearer":
            continue
        parts = token.strip().split(".")
        if len(parts) < 2:
            continue
        try:
            padded = parts[1] + "=" * (-len(parts[1]) % 4)
            claims = json.loads(base64.urlsafe_b64decode(padded.encode()))
        except (ValueError, binascii.Error):
            continue
        email = claims.get("email") if isinstance(claims, dict) else None
        if isinstance(email, str) and re.fullmatch(r"[^@\s]{1,64}@[^@\s]{1,190}", email):
            return f"{IAM_ACTOR}:{email}"
    return IAM_ACTOR


def read_json_body(request: flask.Request) -> JsonObject:
    """The body as a JSON object, after the size and media-type checks.

    The size is checked on the declared length before reading, then while reading (see
    ``shared.request_body``); a body that stalls is a 408, a badly framed one a 400.
    """
    raw = guard_body(request).read_within(MAX_BODY_BYTES, get_settings().body_timeout_s)
    if request.mimetype != "application/json":
        raise UnsupportedMediaType("send the body as JSON with Content-Type: application/json")
    try:
        body = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InvalidJson(f"the body is not valid JSON: {_short(exc)}") from exc
    if _SURROGATE_ESCAPE.search(raw) and has_lone_surrogate(body):
        raise InvalidJson("the body escapes a lone UTF-16 surrogate (\\ud800-\\udfff): not text")
    if not isinstance(body, dict):
        raise InvalidInput(f"the body must be a JSON object, got {_json_type(body)}")
    return body


def has_lone_surrogate(body: object) -> bool:
    """Whether a string in ``body`` holds a surrogate no pair completes.

    JSON lets ``\\ud800`` through although no UTF-8 text can hold it: every later
    encode (the store, the response, the logs) would fail, so it is refused here.
    """
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, RecursionError):
        return True
    return False


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _short(exc: Exception) -> str:
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__


def _json_type(value: object) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def _client_id(request: flask.Request, trusted_proxies: int) -> str:
    """The caller's address, as ``BIBLIOTECA_TRUSTED_PROXIES`` says to find it.

    Each proxy in front of the function appends the address it received the request
    from to ``X-Forwarded-For``; what comes before was written by the client and proves
    nothing. So with ``n`` trusted proxies the client is the ``n``-th address from the
    right, and with 0 (or a header shorter than ``n``: not from our proxies) it is the
    connection's peer address (werkzeug's ProxyFix reads the header the same way).
    """
    if trusted_proxies > 0:
        hops = [h.strip() for h in request.headers.get("X-Forwarded-For", "").split(",")]
        if len(hops) >= trusted_proxies and hops[-trusted_proxies]:
            return hops[-trusted_proxies]
    return request.remote_addr or "unknown"


def json_response(status: int, payload: Mapping[str, JsonValue]) -> flask.Response:
    """``payload`` as the JSON body; no registered secret survives in it (see ``logs.scrub``)."""
    return flask.Response(
        scrub(json.dumps(payload, ensure_ascii=False)),
        status=status,
        mimetype="application/json",
    )


def event_stream_response(
    status: int,
    stream: EventStream,
    name: str,
    *,
    on_end: Callable[[str | None], None] | None = None,
) -> flask.Response:
    """``stream`` as ``text/event-stream``, each event written as soon as it is made
    (gunicorn sends each piece a WSGI app yields at once); no registered secret survives
    in it, and a bug mid-stream ends it with an ``error`` event, logged in full.

    ``on_end`` is called once the stream is over with how it ended: ``None`` when it
    finished, the ``error`` event's code, or ``client_closed`` when the caller left."""

    body = _stream_body(stream, name, on_end)
    response = flask.Response(body, status=status, mimetype="text/event-stream")
    response.headers.update(STREAM_HEADERS)
    return response


def _stream_body(
    stream: EventStream, name: str, on_end: Callable[[str | None], None] | None
) -> Iterator[bytes]:
    """The stream's bytes; ``on_end`` told how it ended once it is over."""
    ended: str | None = "client_closed"
    try:
        for event, payload in _whole_secrets(stream.events):
            if event == "error":
                ended = str(payload.get("code")) if isinstance(payload, dict) else "error"
            yield scrub(sse.encode(event, payload)).encode("utf-8")
        if ended == "client_closed":
            ended = None
    except Exception:
        _log.exception("unhandled error in %s's stream", name, extra={"function": name})
        failed = {"error": "internal error: the failure was logged", "code": "internal_error"}
        ended = "internal_error"
        yield sse.encode("error", failed).encode("utf-8")
    finally:
        if on_end is not None:
            on_end(ended)


def _whole_secrets(events: Iterable[tuple[str, Any]]) -> Iterator[tuple[str, Any]]:
    """The events with their bodies; the ``delta`` texts through one ``PieceScrubber``,
    so a secret the model spells across two deltas is redacted too (an end that could
    begin one waits for the next delta, and is sent before any other event)."""
    pieces = PieceScrubber()
    for event, data in events:
        if event == "delta" and isinstance(data, dict) and isinstance(data.get("text"), str):
            if text := pieces.feed(data["text"]):
                yield event, {**data, "text": text}
            continue
        if held := pieces.flush():
            yield "delta", {"text": held}
        yield event, data.body() if isinstance(data, ResponseBody) else data
    if held := pieces.flush():
        yield "delta", {"text": held}


def error_response(exc: BibliotecaError, *, quoting: bool = False) -> flask.Response:
    """The contract's error body; ``quoting``: with a provider's own words (``quoted``),
    which only a caller with credentials is shown."""
    response = json_response(exc.status, exc.body(quoting=quoting))
    if isinstance(exc, RateLimited):
        response.headers["Retry-After"] = str(exc.retry_after)
    if isinstance(exc, MethodNotAllowed):
        response.headers["Allow"] = ", ".join(exc.allowed)
    if isinstance(exc, Unauthorized) and exc.status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="biblioteca"'
    return response


def _cors_headers(response: flask.Response, origin: str | None, settings: Settings) -> None:
    response.headers.add("Vary", "Origin")
    if origin is None or origin.rstrip("/") not in settings.allowed_origins:
        return
    response.headers["Access-Control-Allow-Origin"] = origin
    response.headers["Access-Control-Allow-Methods"] = "POST, OPTIONS"
    response.headers["Access-Control-Allow-Headers"] = "Content-Type, Authorization"
    response.headers["Access-Control-Expose-Headers"] = "Retry-After"
    response.headers["Access-Control-Max-Age"] = "3600"


def _log_request(
    request: flask.Request,
    response: flask.Response,
    name: str,
    started: float,
    settings: Settings | None,
) -> None:
    code = None
    if response.status_code >= 400 and response.mimetype == "application/json":
        try:
            code = json.loads(response.get_data()).get("code")
        except ValueError:
            code = None
    _log_line(name, response.status_code, code, started, _request_facts(request, settings))


def _request_facts(request: flask.Request, settings: Settings | None) -> dict[str, Any]:
    """What the request's log line says of the request, read while it is at hand (a
    stream's line is written after the handler returned)."""
    return {
        "actor": request.environ.get(_ACTOR_KEY),
        "requestMethod": request.method,
        "requestUrl": _logged_path(request),
        "userAgent": request.headers.get("User-Agent", "")[:200],
        "remoteIp": _client_id(request, settings.trusted_proxies if settings else 0),
    }


def _log_line(
    name: str, status: int, code: str | None, started: float, facts: dict[str, Any]
) -> None:
    """One line per request: a stream's when it ended, with the code it ended with."""
    elapsed = time.perf_counter() - started
    if status >= 500 or (status < 400 and code not in (None, "client_closed")):
        severity = 40  # a server-side failure, or a stream that failed after its 200
    else:
        severity = 30 if status >= 400 else 20
    request_fields = {key: facts[key] for key in ("requestMethod", "requestUrl")}
    _log.log(
        severity,
        "%s %s %d%s",
        name,
        facts["requestMethod"],
        status,
        f" ({code})" if code is not None and status < 400 else "",
        extra={
            "function": name,
            "code": code,
            "actor": facts["actor"],
            "duration_ms": round(elapsed * 1000, 1),
            "httpRequest": {
                **request_fields,
                "status": status,
                "latency": f"{elapsed:.6f}s",
                "userAgent": facts["userAgent"],
                "remoteIp": facts["remoteIp"],
            },
        },
    )


def _logged_path(request: Any) -> str:
    """The path the client asked for, without its query string (a token a client put there
    reaches no log). ``biblioteca serve`` mounts each function under ``/<name>``, where the
    function itself sees ``/``: the mount point is the path."""
    root, path = str(request.script_root), str(request.path)
    return root if root and path == "/" else root + path
