"""RequestBody on its own: read once, within its limits, and woken at its deadline."""

from __future__ import annotations

import io
import socket
import time
from collections.abc import Iterator

import pytest

from shared.errors import InvalidBody, PayloadTooLarge, RequestTimeout
from shared.request_body import RequestBody


def body(data: bytes, **environ: object) -> RequestBody:
    return RequestBody({"wsgi.input": io.BytesIO(data), "CONTENT_LENGTH": str(len(data))} | environ)


def test_the_body_is_read_once_and_later_readers_get_it_once() -> None:
    """A second read_within gives the same bytes; request.stream readers get them once."""
    found = body(b'{"a": 1}')
    assert found.read_within(100, 1) == b'{"a": 1}'
    assert found.read_within(100, 1) == b'{"a": 1}'
    assert found.read() == b'{"a": 1}'
    assert found.read() == b""


def test_a_refused_body_stays_refused_and_gives_later_readers_nothing() -> None:
    """Over the limit: the same 413 on every call, and nothing for a later drain."""
    found = body(b"x" * 101)
    for _ in range(2):
        with pytest.raises(PayloadTooLarge):
            found.read_within(100, 1)
    assert found.read() == b""


def test_a_body_never_read_gives_later_readers_nothing() -> None:
    """A request answered before its body (a 401) costs nothing when the server drains it."""
    stream = io.BytesIO(b"x" * 1000)
    found = RequestBody({"wsgi.input": stream, "CONTENT_LENGTH": "1000"})
    assert found.read() == b""
    assert stream.tell() == 0


@pytest.mark.parametrize("length", ["abc", "-1", "1e3"])
def test_a_content_length_that_is_not_a_number_is_invalid_body(length: str) -> None:
    """Content-Length must be a number of bytes: 400 invalid_body otherwise."""
    with pytest.raises(InvalidBody):
        RequestBody({"wsgi.input": io.BytesIO(b"{}"), "CONTENT_LENGTH": length}).read_within(9, 1)


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    server, client = socket.socketpair()
    yield server, client
    server.close()
    client.close()


def test_the_watchdog_wakes_a_read_blocked_on_the_socket(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    """A client that sends 2 of 10 declared bytes and waits: 408 at the deadline, not never."""
    server, client = pair
    client.sendall(b"{}")
    found = RequestBody(
        {"wsgi.input": server.makefile("rb"), "CONTENT_LENGTH": "10", "gunicorn.socket": server}
    )
    started = time.monotonic()
    with pytest.raises(RequestTimeout):
        found.read_within(100, 0.3)
    assert 0.3 <= time.monotonic() - started < 3.0
