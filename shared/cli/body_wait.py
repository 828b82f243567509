"""How much of a request's body is still to come, read from its head and the bytes so far.

``biblioteca serve`` reads a body in its event loop, before a worker thread takes the
request, so a body sent one byte at a time holds no thread (``shared/cli/server.py``).
This module only counts: whatever it cannot frame (two lengths, a broken chunk) is handed
on at once, and gunicorn's parser, which owns the framing rules, refuses it.
"""

from __future__ import annotations

import re

from shared.request_body import MAX_BODY_BYTES

# A body must keep coming at this average rate once a short grace has passed (a phone on a
# bad network still sends a 1 MiB page in well under the 30 s cap; one byte every 2 s of
# a 1,000-byte body is refused after ~5 s instead of holding a connection for 30 s).
BODY_GRACE_S = 5.0
MIN_BODY_BYTES_PER_S = 8 * 1024
# Chunk-size lines and trailer lines: gunicorn's own header field limit.
_MAX_LINE = 8192
# Chunked framing costs a few bytes per chunk: past this much on the wire the body is over
# its limit whatever its chunks, and the application's reader refuses it (413).
_MAX_CHUNKED_WIRE = MAX_BODY_BYTES + 64 * 1024
_HEX = re.compile(rb"^[0-9A-Fa-f]{1,16}$")


def body_deadline(started: float, expected_bytes: int, timeout_s: float) -> float:
    """When a body of ``expected_bytes`` begun at ``started`` must be whole."""
    return started + min(timeout_s, BODY_GRACE_S + expected_bytes / MIN_BODY_BYTES_PER_S)


def split_head(data: bytes) -> tuple[bytes, bytes] | None:
    """The head (through its empty line) and the bytes after it; None while incomplete."""
    ends = [(i, len(sep)) for sep in (b"\r\n\r\n", b"\n\n") if (i := data.find(sep)) >= 0]
    if not ends:
        return None
    at, width = min(ends)
    return data[: at + width], data[at + width :]


class BodyWait:
    """The rest of a body, counted as its bytes arrive; ``feed`` says when to stop waiting.

    ``length`` bodies wait for their declared bytes; ``chunked`` ones for the last chunk
    and its trailers. Built only by ``expect_body``.
    """

    __slots__ = ("_chunk_left", "_line", "_state", "chunked", "expected", "received")

    def __init__(self, *, expected: int, chunked: bool) -> None:
        self.expected = expected  # declared bytes (0 for chunked: not known)
        self.chunked = chunked
        self.received = 0
        self._state = "size"  # chunked: size, data, data_end, trailer
        self._line = bytearray()
        self._chunk_left = 0

    def feed(self, piece: bytes) -> bool:
        """Count ``piece``; True once the body is whole, or cannot be framed here."""
        self.received += len(piece)
        if not self.chunked:
            return self.received >= self.expected
        if self.received > _MAX_CHUNKED_WIRE:
            return True
        return self._scan(piece)

    def _scan(self, piece: bytes) -> bool:
        at = 0
        while at < len(piece):
            if self._state == "data":
                step = min(self._chunk_left, len(piece) - at)
                self._chunk_left -= step
                at += step
                if self._chunk_left == 0:
                    self._state = "data_end"
                continue
            end = piece.find(b"\n", at)
            if end < 0:
                self._line += piece[at:]
                return len(self._line) > _MAX_LINE
            self._line += piece[at:end]
            at = end + 1
            line = bytes(self._line).rstrip(b"\r")
            self._line.clear()
            if self._state == "size":
                size = line.split(b";", 1)[0].strip()
                if not _HEX.match(size):
                    return True  # broken framing: gunicorn's parser says so
                self._chunk_left = int(size, 16)
                self._state = "data" if self._chunk_left else "trailer"
            elif self._state == "data_end":
                if line:
                    return True
                self._state = "size"
            elif not line:  # the empty line after the trailers: the body is whole
                return True
        return False


def expect_body(head: bytes) -> BodyWait | None:
    """What to wait for after ``head``; None when there is nothing to wait for here.

    Nothing to wait for: no body, or a framing this module will not judge (a length over
    the limit, two lengths, a length with chunks, a coding it does not know): the
    application refuses those at once, without reading.
    """
    lengths: list[bytes] = []
    codings: list[bytes] = []
    for line in head.split(b"\n")[1:]:
        name, colon, value = line.partition(b":")
        if not colon:
            continue
        key = name.strip().lower()
        if key == b"content-length":
            lengths.append(value.strip())
        elif key == b"transfer-encoding":
            codings.extend(c.strip().lower() for c in value.split(b","))
    if codings:
        if lengths or codings[-1] != b"chunked":
            return None
        return BodyWait(expected=0, chunked=True)
    if len(lengths) != 1 or not lengths[0].isdigit():
        return None
    declared = int(lengths[0])
    if declared == 0 or declared > MAX_BODY_BYTES:
        return None
    return BodyWait(expected=declared, chunked=False)


def expects_continue(head: bytes) -> bool:
    """Whether the client waits for ``100 Continue`` before it sends its body."""
    for line in head.split(b"\n")[1:]:
        name, colon, value = line.partition(b":")
        if colon and name.strip().lower() == b"expect":
            return value.strip().lower() == b"100-continue"
    return False
