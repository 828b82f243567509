"""Freshness shown: ask's sources and the agents' tools carry the page's real freshness."""

from __future__ import annotations

from typing import Any

from tests.service.conftest import Call
from tests.service.test_mcp_tools import tool

PAGE = {
    "slug": "rotar-certificado",
    "front_matter": {
        "title": "Rotar el certificado TLS",
        "type": "runbook",
        "status": "active",
        "sources": [{"type": "code", "ref": "deploy/tls/rotate.py"}],
    },
    "content": "# Rotar el certificado\n\nEjecuta `deploy/tls/rotate.py` para rotarlo.",
}


def _sources(call: Call) -> list[dict[str, Any]]:
    status, reply = call("ask", {"question": "¿cómo roto el certificado TLS?"})
    assert status == 200, reply
    return list(reply["sources"])


def test_ask_sources_say_unknown_fresh_then_stale(call: Call) -> None:
    """No index: unknown; indexed: fresh; the cited file gone from the index: stale."""
    assert call("wiki_create", PAGE)[0] == 201
    assert {s["freshness"] for s in _sources(call)} == {"unknown"}

    call("index_code", {"repo": "ops", "paths": ["deploy/tls/rotate.py", "deploy/ca/issue.py"]})
    assert {s["freshness"] for s in _sources(call)} == {"fresh"}

    call("index_code", {"repo": "ops", "paths": ["deploy/ca/issue.py"], "replace": True})
    assert {s["freshness"] for s in _sources(call)} == {"stale"}


def test_mcp_reads_report_the_stored_freshness(call: Call) -> None:
    """get_page, search and pages_citing report the page's freshness, not a placeholder
    (stale: the index once held the file the page cites, and holds it no more)."""
    call("index_code", {"repo": "ops", "paths": ["deploy/tls/rotate.py", "deploy/ca/issue.py"]})
    call("index_code", {"repo": "ops", "paths": ["deploy/ca/issue.py"], "replace": True})
    assert call("wiki_create", PAGE)[0] == 201
    _, page = tool("get_page", {"slug": "rotar-certificado"})
    _, found = tool("search", {"query": "rotar el certificado"})
    _, citing = tool("pages_citing", {"path": "tls/rotate.py"})
    assert page["freshness"] == "stale"
    assert {h["freshness"] for h in found["results"]} == {"stale"}
    assert [p["freshness"] for p in citing["pages"]] == ["stale"]


def test_pages_citing_sees_a_recheck_that_wrote_no_page(call: Call) -> None:
    """The citations cache is keyed by page writes; freshness moved by index_code is
    read fresh, so pages_citing says stale right after the file is gone."""
    call("index_code", {"repo": "ops", "paths": ["deploy/tls/rotate.py", "deploy/ca/issue.py"]})
    assert call("wiki_create", PAGE)[0] == 201
    _, before = tool("pages_citing", {"path": "tls/rotate.py"})
    call("index_code", {"repo": "ops", "paths": ["deploy/ca/issue.py"], "replace": True})
    _, after = tool("pages_citing", {"path": "tls/rotate.py"})
    _, page = tool("get_page", {"slug": "rotar-certificado"})

    assert [p["freshness"] for p in before["pages"]] == ["fresh"]
    assert [p["freshness"] for p in after["pages"]] == ["stale"]
    assert page["freshness"] == "stale"
