"""Streamed model replies against a real hostile local server: bounded whatever their shape.

The server sends one line that never ends, fast or throttled; both vendors' streams
(OpenAI-compatible and Gemini) read through the same reader, and each must stop at its
byte bound or its deadline, not when the server gives up.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from shared.errors import Unavailable, UpstreamError
from shared.ports import StreamingGenerator
from shared.providers.gemini_client import GeminiClient
from shared.providers.gemini_generator import GeminiGenerator
from shared.providers.model_http import MAX_LINE_BYTES, ModelHttp
from shared.providers.openai_generator import OpenAIDialect, OpenAIGenerator

MIB = 1024 * 1024
SERVER_LIMIT_S = 6.0  # the hostile server stops by itself after this long
SERVER_LIMIT_BYTES = 64 * MIB  # ... or after this much


@dataclass
class Hostile:
    url: str
    piece: bytes = b"a" * 65536
    pause_s: float = 0.0
    sent: int = 0  # bytes the server managed to write before the client hung up


def _handler(state: Hostile) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            del format, args

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            stop = time.monotonic() + SERVER_LIMIT_S
            try:
                self.wfile.write(b'data: {"choices": [{"delta": {"content": "')
                while time.monotonic() < stop and state.sent < SERVER_LIMIT_BYTES:
                    self.wfile.write(state.piece)
                    self.wfile.flush()
                    state.sent += len(state.piece)
                    if state.pause_s:
                        time.sleep(state.pause_s)
            except (BrokenPipeError, ConnectionResetError):
                return

    return Handler


@pytest.fixture
def hostile() -> Iterator[Hostile]:
    state = Hostile("")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield state
    server.shutdown()
    server.server_close()


def _openai(url: str, http: httpx.Client, deadline_s: float) -> StreamingGenerator:
    return OpenAIGenerator(ModelHttp(OpenAIDialect(None), url, http, deadline_s=deadline_s), "m")


def _gemini(url: str, http: httpx.Client, deadline_s: float) -> StreamingGenerator:
    client = GeminiClient(
        api_key="AIzaFAKE-hostile-0123456789", base_url=url, http=http, deadline_s=deadline_s
    )
    return GeminiGenerator(client, "gemini-2.5-flash")


VENDORS: dict[str, Callable[[str, httpx.Client, float], StreamingGenerator]] = {
    "openai": _openai,
    "gemini": _gemini,
}


def _drain(generator: StreamingGenerator) -> None:
    for _ in generator.stream("s", "p"):
        pass


@pytest.mark.parametrize("vendor", VENDORS)
def test_one_endless_line_is_cut_at_the_line_bound(hostile: Hostile, vendor: str) -> None:
    """A line that never ends, sent as fast as it goes: a 502 after about MAX_LINE_BYTES
    read, not after whatever the server cares to send (64 MiB here)."""
    with httpx.Client() as http:
        generator = VENDORS[vendor](hostile.url, http, 20.0)
        with pytest.raises(UpstreamError, match="line over"):
            _drain(generator)
    # What sits in the sockets' buffers was written but never read: a few MiB at most.
    assert hostile.sent < MAX_LINE_BYTES + 16 * MIB


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_throttled_endless_line_is_cut_at_the_deadline(hostile: Hostile, vendor: str) -> None:
    """1 KB every 50 ms with no line break: a 503 at the 0.5 s deadline, not when the
    server stops (6 s)."""
    hostile.piece, hostile.pause_s = b"a" * 1024, 0.05
    started = time.monotonic()
    with httpx.Client() as http:
        generator = VENDORS[vendor](hostile.url, http, 0.5)
        with pytest.raises(Unavailable, match="in time"):
            _drain(generator)
    assert time.monotonic() - started < SERVER_LIMIT_S / 2
