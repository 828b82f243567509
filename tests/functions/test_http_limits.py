"""Request bodies read within their limits (size, time, framing), by both routes, on every function.

The test client route hands each function a body stream that counts what is read from it:
a refused request must not read its body at all (functions-framework drains every body
after the answer).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import httpx
import pytest

from shared.cli.serve import function_names
from tests.fixtures.contract import assert_error
from tests.fixtures.rawhttp import MIB, RawReply, drip, zeros
from tests.fixtures.secrets import TOKEN
from tests.fixtures.server import Reply

Client = Callable[[str], Any]
NAMES = function_names()
WRITES = [n for n in NAMES if n != "ask"]
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


def raw_error(reply: RawReply, status: int, code: str) -> None:
    """A raw answer that is the contract's error body."""
    assert reply.status == status, reply
    assert reply.headers["content-type"] == "application/json", reply
    assert_error(Reply(reply.status, httpx.Headers(reply.headers), reply.body.decode(), reply.json),
                 status, code)  # fmt: skip


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
    body = b'{"question": "' + b"x" * 44 + b'"}'  # 60 bytes, one every 50 ms: 3 s in all
    feed = Feed(drip(body, 0.05))
    started = time.monotonic()
    reply = post(client(name), feed, length=len(body), headers=BEARER)
    elapsed = time.monotonic() - started
    assert_error(reply, 408, "request_timeout")
    assert 1.0 <= elapsed < 0.8 * len(body) * 0.05  # at the deadline, not when the body ends
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
