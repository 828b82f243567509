"""A tiny local HTTP server for the widget's edge cases: test pages and a scripted ``/ask``.

It serves the real ``shared/site/static`` files under ``/site/static/``, a test page that
includes them (configured by query parameters), and answers ``POST /ask`` with whatever
response a test queued — the hostile answer, 429, 500 — recording each request body.
"""

from __future__ import annotations

import html
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

STATIC = Path(__file__).resolve().parents[2] / "shared" / "site" / "static"
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


@dataclass
class Reply:
    """One scripted answer of ``/ask``."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


class StubAsk:
    """Owns the server thread, the queue of replies and the requests seen."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def page(self, **params: str) -> str:
        """URL of a test page; params become the script tag's data attributes."""
        query = "&".join(f"{k}={v}" for k, v in params.items())
        return f"{self.base}/site/page/?{query}"

    def queue(self, *replies: Reply) -> None:
        with self.lock:
            self.replies.extend(replies)

    def next_reply(self, body: dict[str, Any]) -> Reply:
        with self.lock:
            self.requests.append(body)
            return self.replies.popleft() if self.replies else Reply(body=default_answer())

    def reset(self) -> None:
        with self.lock:
            self.replies.clear()
            self.requests.clear()

    def start(self) -> StubAsk:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def default_answer(answer: str = "Una respuesta [1].") -> dict[str, Any]:
    return {
        "answer": answer,
        "sources": [
            {
                "slug": "guide—primeros-pasos",
                "title": "Primeros pasos",
                "heading": "Instalación",
                "score": 0.9,
                "snippet": "Instala con pip.",
            }
        ],
        "model": "stub",
        "chunks_used": 1,
        "duration_ms": 12,
        "mode": "help",
        "archive": {"attempted": False, "reason": "not-requested"},
    }


def _test_page(params: dict[str, list[str]]) -> str:
    """A page that includes the widget, once or twice, with data attributes from ``params``."""
    data = {"ask-url": "/ask"} | {
        name: values[0] for name, values in params.items() if name not in {"twice", "html_lang"}
    }
    attrs = " ".join(f'data-{html.escape(k)}="{html.escape(v)}"' for k, v in data.items())
    tag = f'<script src="/site/static/widget.js" defer {attrs}></script>'
    lang = html.escape(params.get("html_lang", ["en"])[0])
    copies = 2 if params.get("twice") else 1
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        "<title>Widget test page</title>"
        '<link rel="stylesheet" href="/site/static/widget.css">'
        + tag * copies
        + "</head><body><main><h1>Test page</h1>"
        + "<p><a href='#top'>a link</a></p></main></body></html>"
    )


def _handler(stub: StubAsk) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

        def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str]) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            if url.path.startswith("/site/static/"):
                target = STATIC / url.path.removeprefix("/site/static/")
                if target.parent == STATIC and target.is_file():
                    ctype = _TYPES.get(target.suffix, "application/octet-stream")
                    self._send(200, target.read_bytes(), ctype, {"Cache-Control": "no-store"})
                    return
            elif url.path == "/site/page/":
                page = _test_page(parse_qs(url.query)).encode()
                self._send(200, page, "text/html; charset=utf-8", {})
                return
            elif url.path.startswith("/site/"):
                self._send(200, b"<!doctype html><title>wiki page</title>", "text/html", {})
                return
            self._send(404, b"not found", "text/plain", {})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                body = {"_unparsed": raw.decode("utf-8", "replace")}
            body = {"_content_type": self.headers.get("Content-Type"), **(body or {})}
            reply = stub.next_reply(body)
            if reply.delay_s:
                time.sleep(reply.delay_s)
            payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body)
            data = payload if isinstance(payload, bytes) else payload.encode()
            self._send(reply.status, data, "application/json", reply.headers)

    return Handler
