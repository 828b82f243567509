"""`biblioteca serve` at its edge: what the server itself refuses is the contract's JSON too."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.cli import serve as serve_module
from shared.cli.serve import function_names
from tests.fixtures.rawhttp import assert_raw_error, exchange
from tests.fixtures.secrets import TOKEN
from tests.fixtures.server import ServerFactory

GEMINI_KEY = "AIzaFAKE-query-string-0123456789"


@pytest.fixture
def url(env: dict[str, str], serve: ServerFactory) -> str:
    return serve()


def test_a_url_over_the_limit_is_a_json_414(url: str) -> None:
    """A request line over 8190 bytes: 414 with the JSON error body (not HTML)."""
    reply = exchange(url, "GET /ask?q=" + "a" * 9000)
    assert_raw_error(reply, 414, "payload_too_large")


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Large": "a" * 9000},
        {f"X-Many-{i}": "1" for i in range(150)},
    ],
    ids=["one-large-header", "too-many-headers"],
)
def test_headers_over_the_limit_are_a_json_431(url: str, headers: dict[str, str]) -> None:
    """A header over 8190 bytes, or more than 100 headers: 431 with the JSON error body."""
    reply = exchange(url, "POST /ask", {"Content-Type": "application/json", **headers})
    assert_raw_error(reply, 431, "payload_too_large")


def test_a_request_that_is_not_http_is_a_json_400(url: str) -> None:
    """A malformed request line: 400 invalid_body in JSON."""
    reply = exchange(url, "NOT AN HTTP REQUEST")
    assert_raw_error(reply, 400, "invalid_body")


@pytest.mark.parametrize("method", ["POST", "PUT", "GET"])
def test_an_unknown_path_is_a_json_404_naming_the_functions(url: str, method: str) -> None:
    """/wiki_creat (a typo) is a 404 not_found whose message lists every function."""
    reply = httpx.request(method, f"{url}/wiki_creat", json={})
    assert reply.status_code == 404
    assert reply.headers["content-type"] == "application/json"
    body = reply.json()
    assert body["code"] == "not_found"
    for name in function_names():
        assert f"/{name}" in body["error"]


def test_the_site_is_served_and_its_missing_pages_are_json_404s(
    env: dict[str, str], serve: ServerFactory, tmp_path: Path
) -> None:
    """The built site still answers at / and under it; a page it lacks is the JSON 404."""
    site = tmp_path / "site"
    (site / "static").mkdir(parents=True)
    (site / "index.html").write_text("<h1>Índice</h1>", encoding="utf-8")
    (site / "static" / "widget.js").write_text("// widget", encoding="utf-8")
    url = serve({"BIBLIOTECA_SITE_DIR": str(site)})
    assert "Índice" in httpx.get(f"{url}/").text
    assert httpx.get(f"{url}/static/widget.js").text == "// widget"
    missing = httpx.get(f"{url}/no-such-page/")
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")


def test_a_token_in_the_query_string_reaches_no_log_of_serve(
    env: dict[str, str], serve: ServerFactory
) -> None:
    """Secrets a client put in a URL are in neither the request lines nor the server's output."""
    url = serve({"GOOGLE_AI_API_KEY": GEMINI_KEY})
    query = f"?token={TOKEN}&key={GEMINI_KEY}"
    with httpx.Client(base_url=url) as http:
        http.post(f"/ask{query}", json={"question": "hola", "mode": "tutor"})
        http.post(f"/wiki_create{query}", json={})
        http.post(f"/wiki_creat{query}", json={})
        http.get(f"/{query}")
    exchange(url, f"GET /ask{query}&q=" + "a" * 9000)  # refused by the server itself
    exchange(url, f"GET /ask{query} EXTRA")
    stdout, stderr = serve.output(url)
    assert "/ask" not in stderr  # no access log at all: the JSON lines are the request log
    for text in (stdout, stderr):
        assert TOKEN not in text
        assert GEMINI_KEY not in text


def test_a_token_in_the_query_string_reaches_no_request_log(
    env: dict[str, str], client: Callable[[str], Any], capfd: pytest.CaptureFixture[str]
) -> None:
    """Through functions-framework too, the request line logs the path, never the query."""
    client("ask").post(f"/?token={TOKEN}", json={"question": "hola", "mode": "tutor"})
    out, err = capfd.readouterr()
    assert '"httpRequest"' in out
    assert TOKEN not in out + err


def test_a_failure_while_serving_the_site_is_a_json_500(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug behind the site's route answers the contract's 500 (trace in the log only)."""

    def broken() -> None:
        raise RuntimeError("the disk went away")

    monkeypatch.setattr(serve_module, "get_settings", broken)
    reply = serve_module.site_app().test_client().get("/")
    assert reply.status_code == 500
    assert reply.get_json() == {
        "error": "internal error: the failure was logged",
        "code": "internal_error",
    }
    assert "the disk went away" in caplog.text


# -- idle and half-open sockets ---------------------------------------------------------------

THREADS = 4
CLIENT_HELLO = bytes.fromhex("16030100a5010000a10303") + b"\x00" * 40  # a TLS record's start


def _read_all(sock: socket.socket, limit_s: float) -> bytes:
    sock.settimeout(limit_s)
    got = b""
    with contextlib.suppress(OSError):
        while piece := sock.recv(65536):
            got += piece
    return got


def test_idle_and_half_open_sockets_hold_no_thread_and_get_a_408(
    env: dict[str, str], serve: ServerFactory
) -> None:
    """3 × threads sockets that send nothing, 8 bytes of a request line, or a TLS
    ClientHello: real requests are still answered within a second; the half-open ones
    get a JSON 408 at the header deadline, the silent ones are closed."""
    url = serve({"THREADS": str(THREADS), "BIBLIOTECA_HEADER_TIMEOUT": "3"})
    address = ("127.0.0.1", int(url.rsplit(":", 1)[1]))
    silent, partial, hello = [], [], []
    for i in range(3 * THREADS):
        sock = socket.create_connection(address, timeout=5)
        if i % 3 == 1:
            sock.sendall(b"POST /as")
            partial.append(sock)
        elif i % 3 == 2:
            sock.sendall(CLIENT_HELLO)
            hello.append(sock)
        else:
            silent.append(sock)
    try:
        time.sleep(0.3)  # every idle socket has reached the server
        for _ in range(5):
            started = time.monotonic()
            reply = httpx.get(f"{url}/openapi.json", timeout=5)
            assert reply.status_code == 200
            assert time.monotonic() - started < 1.0
        for sock in hello:  # not HTTP: refused at once, not held
            assert _read_all(sock, 2).startswith(b"HTTP/1.1 400")
        for sock in partial:
            answer = _read_all(sock, 6)
            assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
            assert b'"code": "request_timeout"' in answer
        for sock in silent:
            assert _read_all(sock, 6) == b""  # closed without an answer
    finally:
        for sock in silent + partial + hello:
            sock.close()


def test_the_access_log_names_the_path_under_serve(url: str, serve: ServerFactory) -> None:
    """Each function's request line under serve logs /<name>, not the mount's "/"."""
    httpx.post(f"{url}/ask?x=1", json={"question": "hola", "mode": "tutor"}, timeout=30)
    httpx.post(f"{url}/feedback", json={}, timeout=30)
    out, _ = serve.output(url)
    urls = {
        line.split('"requestUrl": "')[1].split('"')[0]
        for line in out.splitlines()
        if '"requestUrl"' in line
    }
    assert {"/ask", "/feedback"} <= urls


# -- slow bodies and many peers ----------------------------------------------------------------


def _slow_body(sock: socket.socket, stop: float) -> None:
    """A whole head declaring 1,000 bytes, then one byte every 2 s until ``stop``."""
    with contextlib.suppress(OSError):
        sock.sendall(
            b"POST /wiki_create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000\r\n\r\n{"
        )
        while time.monotonic() < stop:
            time.sleep(0.5)
            sock.sendall(b" ")
            time.sleep(1.5)


def test_bodies_sent_a_byte_at_a_time_hold_no_thread_and_get_a_408(
    env: dict[str, str], serve: ServerFactory
) -> None:
    """2 × threads sockets sending a 1,000-byte body a byte every 2 s: other clients are
    answered within a second meanwhile, and each slow body gets a JSON 408 at its deadline."""
    url = serve({"THREADS": str(THREADS), "BIBLIOTECA_BODY_TIMEOUT": "2"})
    address = ("127.0.0.1", int(url.rsplit(":", 1)[1]))
    socks = [socket.create_connection(address, timeout=5) for _ in range(2 * THREADS)]
    stop = time.monotonic() + 4.0
    senders = [threading.Thread(target=_slow_body, args=(s, stop), daemon=True) for s in socks]
    try:
        for sender in senders:
            sender.start()
        time.sleep(0.5)  # every slow head is in and its body has begun
        for _ in range(5):
            started = time.monotonic()
            reply = httpx.post(f"{url}/ask", json={"question": "x", "mode": "tutor"}, timeout=5)
            assert reply.status_code < 500
            assert time.monotonic() - started < 1.0
        for sock in socks:
            answer = _read_all(sock, 6)
            assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
            assert b"request_timeout" in answer
            assert b"KiB/s" in answer
    finally:
        for sock in socks:
            sock.close()
        for sender in senders:
            sender.join(timeout=5)


def test_idle_sockets_of_many_peers_do_not_lock_out_a_new_client(
    env: dict[str, str], serve: ServerFactory
) -> None:
    """16 peer addresses × 64 half-sent heads (more than the worker's 1,000 connection
    slots): a new client is still answered, and the heaviest peers' oldest give way."""
    url = serve({"THREADS": str(THREADS)})
    port = int(url.rsplit(":", 1)[1])
    held: list[socket.socket] = []
    try:
        for peer in range(2, 18):
            for _ in range(64):
                sock = socket.socket()
                sock.settimeout(5)
                sock.bind((f"127.0.0.{peer}", 0))
                sock.connect(("127.0.0.1", port))
                sock.sendall(b"POST /as")
                held.append(sock)
        time.sleep(0.5)  # the worker has accepted what it will
        reply = httpx.get(f"{url}/openapi.json", timeout=5)
        assert reply.status_code == 200
    finally:
        for sock in held:
            sock.close()


def test_imported_assets_are_served_unable_to_script(
    env: dict[str, str], serve: ServerFactory, tmp_path: Path
) -> None:
    """Under /_assets/ every file carries a sandboxing CSP and nosniff; an HTML asset is a
    plain-text attachment, never a page of the site's origin."""
    site = tmp_path / "site"
    (site / "_assets" / "ab12").mkdir(parents=True)
    (site / "index.html").write_text("<!doctype html><title>x</title>", encoding="utf-8")
    (site / "_assets" / "ab12" / "page.html").write_text(
        "<script>window.__xss=1</script>", encoding="utf-8"
    )
    (site / "_assets" / "ab12" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    url = serve({"BIBLIOTECA_SITE_DIR": str(site)})
    html = httpx.get(f"{url}/_assets/ab12/page.html", timeout=10)
    assert html.status_code == 200
    assert html.headers["content-disposition"] == "attachment"
    assert html.headers["content-type"].startswith("text/plain")
    assert "sandbox" in html.headers["content-security-policy"]
    png = httpx.get(f"{url}/_assets/ab12/logo.png", timeout=10)
    assert png.headers["content-type"] == "image/png"
    assert png.headers["x-content-type-options"] == "nosniff"
    assert not png.headers.get("content-disposition", "").startswith("attachment")
    assert "content-security-policy" not in httpx.get(f"{url}/", timeout=10).headers
