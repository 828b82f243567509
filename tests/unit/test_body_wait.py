"""What `serve`'s event loop waits for after a head: declared bytes, or the last chunk."""

from __future__ import annotations

import pytest

from shared.cli.body_wait import body_deadline, expect_body, split_head
from shared.request_body import MAX_BODY_BYTES

HEAD = b"POST /ask HTTP/1.1\r\nHost: x\r\n"


def test_a_declared_body_is_whole_at_its_length_in_any_pieces() -> None:
    """Content-Length: 10 is waited for until the tenth byte, however it is split."""
    wait = expect_body(HEAD + b"Content-Length: 10\r\n\r\n")
    assert wait is not None
    assert not wait.feed(b"12345")
    assert not wait.feed(b"6789")
    assert wait.feed(b"0")


def test_a_chunked_body_is_whole_after_its_last_chunk_and_trailers() -> None:
    """Chunks split anywhere, a chunk extension and a trailer: whole at the final empty line."""
    wire = b"4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Trailer: 1\r\n\r\n"
    for cut in range(1, len(wire)):
        wait = expect_body(HEAD + b"Transfer-Encoding: chunked\r\n\r\n")
        assert wait is not None
        assert not wait.feed(wire[:cut]), cut
        assert wait.feed(wire[cut:]), cut


@pytest.mark.parametrize(
    "headers",
    [
        b"",
        b"Content-Length: 0\r\n",
        f"Content-Length: {MAX_BODY_BYTES + 1}\r\n".encode(),
        b"Content-Length: 5\r\nContent-Length: 6\r\n",
        b"Content-Length: five\r\n",
        b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
        b"Transfer-Encoding: gzip\r\n",
    ],
    ids=["none", "zero", "over-limit", "two-lengths", "not-a-number", "length-and-chunks", "gzip"],
)
def test_what_the_loop_will_not_frame_is_handed_on_at_once(headers: bytes) -> None:
    """No body, or a framing gunicorn's parser must judge (and refuse): nothing to wait for."""
    assert expect_body(HEAD + headers + b"\r\n") is None


def test_broken_chunk_framing_stops_the_wait() -> None:
    """A chunk size that is not hexadecimal ends the wait (the parser then answers 400)."""
    wait = expect_body(HEAD + b"Transfer-Encoding: chunked\r\n\r\n")
    assert wait is not None
    assert wait.feed(b"zz\r\n")


def test_a_body_deadline_is_a_grace_plus_a_minimum_rate_within_the_cap() -> None:
    """1,000 bytes: about 5 s; 1 MiB: the 30 s cap."""
    assert 5.0 < body_deadline(0.0, 1000, 30.0) < 5.2
    assert body_deadline(0.0, MAX_BODY_BYTES, 30.0) == 30.0


def test_the_head_is_split_from_the_body_bytes_after_it() -> None:
    """The bytes read past the empty line are the body's first."""
    assert split_head(HEAD + b"\r\n{}") == (HEAD + b"\r\n", b"{}")
    assert split_head(HEAD) is None
