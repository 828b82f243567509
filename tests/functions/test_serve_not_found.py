"""``serve`` answers an address the built site lacks with the site's own 404 page for a
browser, and with the contract's JSON 404 for an API client or a function's mistyped URL
(issue 32 item 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.cli import main

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.fixture
def url(env: dict[str, str], serve: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """A store with one Spanish page, imported, then a plain serve (it builds the site)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pool.md").write_text("# Pool de conexiones\n\nSe dimensiona al arrancar.\n")
    assert main(["import", str(docs), "--type", "guide"]) == 0
    capsys.readouterr()
    return str(serve())


def test_a_browser_gets_the_sites_404_page_at_any_depth(url: str) -> None:
    """GET of a missing page, shallow or deep: status 404, the site's HTML with its search,
    and links from the site's root (they work at any depth)."""
    for path in ("/no-such-page/", "/a/b/c/index.html", "/pool/missing.png"):
        reply = httpx.get(f"{url}{path}", headers=BROWSER)
        assert reply.status_code == 404, path
        assert reply.headers["content-type"].startswith("text/html")
        assert "Página no encontrada" in reply.text
        assert 'id="search"' in reply.text
        assert 'href="/static/site.css"' in reply.text
        assert 'href="/index.html"' in reply.text
    assert httpx.get(f"{url}/static/site.css").status_code == 200


def test_an_api_client_and_a_mistyped_function_keep_the_json_404(url: str) -> None:
    """Accept */* or JSON, or a POST: the contract's body naming the functions."""
    for reply in (
        httpx.get(f"{url}/no-such-page/"),
        httpx.get(f"{url}/no-such-page/", headers={"Accept": "application/json"}),
        httpx.post(f"{url}/wiki_creat", json={}, headers=BROWSER),
    ):
        assert reply.status_code == 404
        assert reply.headers["content-type"] == "application/json"
        assert reply.json()["code"] == "not_found"
        assert "/wiki_create" in reply.json()["error"]
