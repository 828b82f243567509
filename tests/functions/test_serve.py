"""`biblioteca serve` as a real process: functions at /<name>, the site at /, logs on stdout."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from shared.bootstrap import open_store
from shared.config import get_settings
from tests.fixtures.secrets import TOKEN
from tests.fixtures.server import ServerFactory

AUTH = {"Authorization": f"Bearer {TOKEN}"}
# The first write loads the embedding model inside the server (seconds on a busy machine):
# httpx's default 5 s would make the test's outcome depend on the machine's load.
TIMEOUT = httpx.Timeout(60)


def test_every_write_function_answers_at_its_bare_path(
    env: dict[str, str], serve: ServerFactory
) -> None:
    """POST /wiki_create and /wiki_update reach the functions (no redirect), with or without '/'."""
    url = serve()
    with httpx.Client(base_url=url, follow_redirects=False, timeout=TIMEOUT) as http:
        created = http.post(
            "/wiki_create",
            json={
                "content": "# Hola\n\nServido.",
                "front_matter": {"title": "Servida", "type": "guide"},
            },
            headers=AUTH,
        )
        assert created.status_code == 201, created.text
        slug = created.json()["slug"]
        updated = http.post(
            "/wiki_update/", json={"slug": slug, "content": "# Hola\n\nOtra vez."}, headers=AUTH
        )
        assert updated.status_code == 200, updated.text
        assert updated.json()["version"] == 2
        anonymous = http.post("/wiki_update", json={"slug": slug})
        assert anonymous.status_code == 401
        assert anonymous.json()["code"] == "unauthorized"
    # the server and this process share one store: what it wrote is read here at once
    record = open_store(get_settings()).pages.get(slug)
    assert record is not None
    assert (record.version, record.content) == (2, "# Hola\n\nOtra vez.")


def test_the_built_site_is_served_at_the_root(
    env: dict[str, str], serve: ServerFactory, tmp_path: Path
) -> None:
    """With a site folder, / is its index.html and /<slug>/ the page's; nothing outside it."""
    site = tmp_path / "site"
    (site / "concept—hola").mkdir(parents=True)
    (site / "index.html").write_text("<h1>Índice del sitio</h1>", encoding="utf-8")
    (site / "concept—hola" / "index.html").write_text("<h1>Hola</h1>", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("no", encoding="utf-8")
    url = serve({"BIBLIOTECA_SITE_DIR": str(site)})
    with httpx.Client(base_url=url, timeout=TIMEOUT) as http:
        assert "Índice del sitio" in http.get("/").text
        page = http.get("/concept%E2%80%94hola/")
        assert page.status_code == 200
        assert "<h1>Hola</h1>" in page.text
        assert http.get("/concept%E2%80%94hola").status_code == 200
        assert http.get("/no-such-page/").status_code == 404
        for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt"):
            reply = http.get(path)
            assert reply.status_code in (400, 404), path
            assert reply.text != "no"


def test_requests_log_json_lines_on_stdout_and_never_the_token(
    env: dict[str, str], serve: ServerFactory
) -> None:
    """The process's stdout carries one JSON request line per call; no output holds the token."""
    url = serve()
    with httpx.Client(base_url=url, timeout=TIMEOUT) as http:
        http.post(
            "/wiki_create",
            json={"content": "x", "front_matter": {"title": "L", "type": "guide"}},
            headers=AUTH,
        )
        http.post("/wiki_create", json={}, headers={"Authorization": "Bearer wrong-token-123456"})
        http.get("/wiki_update", headers=AUTH)
    stdout, stderr = serve.output(url)
    lines = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    requests = [line for line in lines if "httpRequest" in line]
    assert [(r["function"], r["httpRequest"]["status"]) for r in requests] == [
        ("wiki_create", 201),
        ("wiki_create", 401),
        ("wiki_update", 405),
    ]
    assert all(r["severity"] in ("INFO", "WARNING") for r in requests)
    for text in (stdout, stderr):
        assert TOKEN not in text
        assert "wrong-token-123456" not in text


def test_without_a_token_writes_are_503_naming_the_variable(
    env: dict[str, str], serve: ServerFactory
) -> None:
    """A server started without BIBLIOTECA_API_TOKEN refuses writes with 503 not_configured."""
    url = serve({"BIBLIOTECA_API_TOKEN": None})
    reply = httpx.post(f"{url}/wiki_create", json={"content": "x"}, headers=AUTH, timeout=TIMEOUT)
    assert reply.status_code == 503
    assert reply.json()["code"] == "not_configured"
    assert "BIBLIOTECA_API_TOKEN" in reply.json()["error"]


def test_the_openapi_document_is_served(env: dict[str, str], serve: ServerFactory) -> None:
    """GET /openapi.json answers the document of the running code, the one in the repository."""
    from shared.api.openapi import FILE

    reply = httpx.get(f"{serve()}/openapi.json")
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("application/json")
    assert reply.json() == json.loads(FILE.read_text(encoding="utf-8"))
