"""Request bodies read within their limits (size, time, framing), by both routes, on every function.

The test client route hands each function a body stream that counts what is read from it:
a refused request must not read its body at all (functions-framework drains every body
after the answer). The server route sends real hostile requests to ``biblioteca serve``
and watches the server's memory.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import httpx
import pytest

from shared.cli.serve import function_names
from shared.config import get_settings
from tests.fixtures.contract import assert_error
from tests.fixtures.rawhttp import (
    MIB,
    Memory,
    assert_raw_error,
    chunked,
    drip,
    exchange,
    stall,
    zeros,
)
from tests.fixtures.secrets import TOKEN
from tests.fixtures.server import Reply, ServerFactory

Client = Callable[[str], Any]
NAMES = function_names()
# ask and mcp read without credentials (mcp asks for them per tool, after the body);
# feedback too, unless BIBLIOTECA_FEEDBACK_FROM_WIDGET=0 (tested below).
WRITES = [n for n in NAMES if n not in ("ask", "mcp", "feedback")]
LIMIT = 1024 * 1024
BEARER = {"Authorization": f"Bearer {TOKEN}"}
JSON = {"Content-Type": "application/json"}


class Feed(io.RawIOBase):
    """A request body as a server hands it to the app, counting the bytes the app reads."""

    def __init__(self, pieces: Iterable[bytes]) -> None:
        self._pieces = iter(pieces)
        self._pending = b""
        self.taken = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if not self._pending:
            self._pending = next(self._pieces, b"")
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        self.taken += n
        return n


def post(app: Any, feed: Feed, *, length: int | None, headers: dict[str, str]) -> Reply:
    """POST ``feed`` through functions-framework's test client, declared or chunked."""
    environ: dict[str, Any] = {"wsgi.input": feed}
    if length is None:  # what a server that de-chunks a body tells the app
        environ |= {"CONTENT_LENGTH": "", "wsgi.input_terminated": True}
    else:
        environ["CONTENT_LENGTH"] = str(length)
    result = app.post("/", headers={**JSON, **headers}, environ_overrides=environ)
    text = result.get_data(as_text=True)
    return Reply(result.status_code, httpx.Headers(list(result.headers.items())), text, result.json)


def broken_after(data: bytes) -> Iterator[bytes]:
    """What a server's de-chunking reader does on a broken chunk: raise mid-body."""
    yield data
    raise OSError("Invalid chunk header")


# -- the test client route: what each function reads ---------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_a_declared_body_over_1_mib_is_refused_without_reading_it(
    env: dict[str, str], client: Client, name: str
) -> None:
    """Content-Length over 1 MiB: 413 payload_too_large, and not one byte of the body read."""
    feed = Feed(zeros(8 * MIB))
    reply = post(client(name), feed, length=8 * MIB, headers=BEARER)
    assert_error(reply, 413, "payload_too_large")
    assert feed.taken == 0


@pytest.mark.parametrize("name", WRITES)
def test_a_refused_caller_costs_no_body(env: dict[str, str], client: Client, name: str) -> None:
    """A 401 (no token) reads nothing of a body, even a large one: credentials come first."""
    feed = Feed(zeros(LIMIT // 2))
    reply = post(client(name), feed, length=LIMIT // 2, headers={})
    assert_error(reply, 401, "unauthorized")
    assert feed.taken == 0


def test_feedback_closed_to_the_widget_refuses_before_the_body(
    env: dict[str, str], client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BIBLIOTECA_FEEDBACK_FROM_WIDGET=0 makes feedback a write: its 401 reads nothing."""
    monkeypatch.setenv("BIBLIOTECA_FEEDBACK_FROM_WIDGET", "0")
    get_settings.cache_clear()
    feed = Feed(zeros(LIMIT // 2))
    reply = post(client("feedback"), feed, length=LIMIT // 2, headers={})
    assert_error(reply, 401, "unauthorized")
    assert feed.taken == 0


@pytest.mark.parametrize("name", NAMES)
def test_an_undeclared_body_is_read_only_up_to_the_limit(
    env: dict[str, str], client: Client, name: str
) -> None:
    """A body without Content-Length (chunked) is read until 1 MiB + 1 byte, then 413."""
    feed = Feed(zeros(8 * MIB))
    reply = post(client(name), feed, length=None, headers=BEARER)
    assert_error(reply, 413, "payload_too_large")
    assert LIMIT < feed.taken <= LIMIT + 64 * 1024


@pytest.mark.parametrize("name", ["ask", "wiki_create"])
def test_a_dripping_body_is_a_408_at_its_deadline(
    env: dict[str, str], client: Client, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """A body that keeps not arriving is a 408 request_timeout once its deadline passes."""
    monkeypatch.setenv("BIBLIOTECA_BODY_TIMEOUT", "1")
    app = client(name)
    body = b'{"question": "' + b"x" * 184 + b'"}'  # 200 bytes, one every 50 ms: 10 s in all
    feed = Feed(drip(body, 0.05))
    started = time.monotonic()
    reply = post(app, feed, length=len(body), headers=BEARER)
    elapsed = time.monotonic() - started
    assert_error(reply, 408, "request_timeout")
    assert 1.0 <= elapsed < 5.0  # at the deadline, not when the body would have ended
    assert feed.taken < len(body)


@pytest.mark.parametrize("name", NAMES)
def test_a_body_shorter_than_declared_is_a_400_invalid_body(
    env: dict[str, str], client: Client, name: str
) -> None:
    """The connection ends before the declared length: 400 invalid_body, not a 500."""
    reply = post(client(name), Feed([b'{"a": 1}']), length=100, headers=BEARER)
    assert_error(reply, 400, "invalid_body")


@pytest.mark.parametrize("name", NAMES)
def test_a_body_the_server_cannot_unframe_is_a_400_invalid_body(
    env: dict[str, str], client: Client, name: str
) -> None:
    """The server's reader fails mid-body (a broken chunk): 400 invalid_body, not a 500."""
    reply = post(client(name), Feed(broken_after(b'{"a": ')), length=None, headers=BEARER)
    assert_error(reply, 400, "invalid_body")


# -- the server route: biblioteca serve under hostile bodies ----------------------------------


def test_serve_holds_no_large_body_in_memory_whatever_the_answer(
    env: dict[str, str], serve: ServerFactory
) -> None:
    """200 MiB bodies (401, declared 413, chunked 413): the server grows by under 1/10 of that."""
    url = serve()
    memory = Memory(serve.pid(url))
    size = 200 * MIB
    cases: list[tuple[dict[str, str], Iterable[bytes], int, str]] = [
        ({"Content-Length": str(size)}, zeros(size), 401, "unauthorized"),
        ({**BEARER, "Content-Length": str(size)}, zeros(size), 413, "payload_too_large"),
        ({**BEARER, "Transfer-Encoding": "chunked"}, chunked(zeros(size)), 413,
         "payload_too_large"),
    ]  # fmt: skip
    for headers, body, status, code in cases:
        memory.reset_peak()
        reply = exchange(url, "POST /wiki_create", {**JSON, **headers}, body, timeout_s=30)
        assert_raw_error(reply, status, code)
        assert memory.growth_kib() * 1024 < size / 10, (status, memory.growth_kib())


def test_serve_answers_a_stalled_body_with_a_408(env: dict[str, str], serve: ServerFactory) -> None:
    """A body that stops (or drips) past BIBLIOTECA_BODY_TIMEOUT: 408 soon after the deadline."""
    url = serve({"BIBLIOTECA_BODY_TIMEOUT": "1"})
    headers = {**JSON, **BEARER, "Content-Length": "100"}
    for body in (stall(b'{"content": "', 25), drip(b"x" * 100, 0.25)):
        reply = exchange(url, "POST /wiki_create", headers, body, timeout_s=30)
        assert_raw_error(reply, 408, "request_timeout")
        assert 1.0 <= reply.elapsed_s < 10.0  # the deadline, not the 25 s body


def test_serve_answers_a_malformed_chunked_body_with_a_400(
    env: dict[str, str], serve: ServerFactory
) -> None:
    """A chunk size that is not hexadecimal: 400 invalid_body in JSON (not an HTML 500)."""
    url = serve()
    headers = {**JSON, **BEARER, "Transfer-Encoding": "chunked"}
    reply = exchange(url, "POST /wiki_create", headers, [b"zz\r\n{}\r\n0\r\n\r\n"])
    assert_raw_error(reply, 400, "invalid_body")


def test_serve_survives_an_endless_chunk_on_a_closed_connection(
    env: dict[str, str], serve: ServerFactory
) -> None:
    """Chunk size ffffffffffffffff, a few bytes, then EOF: no allocation, still serving."""
    url = serve()
    memory = Memory(serve.pid(url))
    before = memory.reset_peak()
    headers = {**JSON, **BEARER, "Transfer-Encoding": "chunked"}
    reply = exchange(
        url,
        "POST /wiki_create",
        headers,
        [b"ffffffffffffffff\r\n{}"],
        close_write=True,
        timeout_s=3,
    )
    time.sleep(1)  # an unbounded reader would be allocating all along
    assert reply.status in (0, 400), reply
    assert memory.growth_kib() < before / 4, (memory.growth_kib(), before)
    assert httpx.get(f"{url}/").status_code == 200


def test_serve_says_connection_close_after_a_body_it_did_not_read(
    env: dict[str, str], serve: ServerFactory
) -> None:
    """A keep-alive client is told to reconnect after a refused body, so its next request on
    the same client succeeds (the connection of an unread body cannot be reused)."""
    url = serve()
    with httpx.Client(base_url=url, timeout=60) as http:
        refused = http.post(
            "/ask", content=b'{"question": "' + b"a" * (2 * MIB) + b'"}', headers=JSON
        )
        assert (refused.status_code, refused.headers["connection"]) == (413, "close")
        unauthorized = http.post("/wiki_create", content=b"{}", headers=JSON)
        assert (unauthorized.status_code, unauthorized.headers["connection"]) == (401, "close")
        answered = http.post("/ask", content=b'{"question": "hola"}', headers=JSON)
        assert (answered.status_code, answered.headers["connection"]) == (200, "keep-alive")
        assert http.get("/ask").status_code == 405
