"""Through real HTTP: index_code makes a page stale and the next (incremental) rebuild
publishes its notice; indexing the file again takes the notice away."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shared.bootstrap import open_store
from shared.config import get_settings
from tests.functions.test_rebuild import rebuild, site

Client = Callable[[str], Any]
PAGE = {
    "slug": "rotar",
    "front_matter": {"title": "Rotar el certificado", "type": "runbook", "status": "active"},
    "content": "# Rotar\n\nEjecuta `deploy/tls/rotate.py` para rotar el certificado TLS.",
}


def _index(client: Client, auth: dict[str, str], paths: list[str]) -> None:
    body = {"repo": "ops", "paths": paths, "replace": True}
    assert client("index_code").post("/", json=body, headers=auth).status_code == 200


def test_the_site_shows_and_then_drops_the_stale_notice(
    store_env: str, client: Client, auth: dict[str, str]
) -> None:
    """Stale after the file moved (with the suggestion), fresh again after it is back."""
    _index(client, auth, ["deploy/tls/rotate.py", "x/y.py"])
    assert client("wiki_create").post("/", json=PAGE, headers=auth).status_code == 201
    assert rebuild(client, auth).status_code == 200
    assert "stale" not in (site() / "rotar" / "index.html").read_text()

    _index(client, auth, ["deploy/certs/rotate.py", "x/y.py"])
    assert rebuild(client, auth).status_code == 200
    html = (site() / "rotar" / "index.html").read_text()
    assert "Puede estar desactualizada" in html
    assert "(¿movido a <code>deploy/certs/rotate.py</code>?)" in html

    _index(client, auth, ["deploy/tls/rotate.py", "x/y.py"])
    assert rebuild(client, auth).status_code == 200
    assert "stale" not in (site() / "rotar" / "index.html").read_text()


def test_the_curator_report_lists_stale_pages_and_gaps(
    store_env: str, client: Client, auth: dict[str, str]
) -> None:
    """report.json and index.html: the stale page with its missing path and suggestion,
    and an open gap grouping a Spanish and an English question, with a wanted page."""
    _index(client, auth, ["deploy/tls/rotate.py", "x/y.py"])
    assert client("wiki_create").post("/", json=PAGE, headers=auth).status_code == 201
    _index(client, auth, ["deploy/certs/rotate.py", "x/y.py"])
    events = open_store(get_settings()).events
    for question in ("¿cómo subo un archivo?", "how do I upload a file?"):
        events.record("utility_hit", {"question": question, "mode": "help", "slugs": []})

    assert rebuild(client, auth).status_code == 200

    folder = Path(get_settings().report_location)
    report = json.loads((folder / "report.json").read_text())
    assert report["stale"] == [
        {
            "slug": "rotar",
            "title": "Rotar el certificado",
            "missing": [{"path": "deploy/tls/rotate.py", "moved_to": "deploy/certs/rotate.py"}],
            "checked_at": report["stale"][0]["checked_at"],
        }
    ]
    [gap] = report["gaps"]["open"]
    assert gap["count"] == 2
    assert report["gaps"]["wanted_pages"][0]["asked"] == 2
    html = (folder / "index.html").read_text()
    assert "Stale pages (1)" in html
    assert "<code>deploy/certs/rotate.py</code>" in html
    assert "Wanted pages" in html


def test_the_report_serve_writes_after_a_write_has_its_gaps_too(
    env: dict[str, str], client: Client, auth: dict[str, str]
) -> None:
    """serve's refresh builds through the same wiring as rebuild: its curator report has
    the gaps section (it was 'unavailable' when the refresh forgot the embedder)."""
    from shared.bootstrap import install, wiring
    from shared.cli.site_refresh import site_builder
    from shared.config import get_settings
    from tests.fixtures.embedder import HashingEmbedder

    install(type(wiring())(get_settings(), embedder=HashingEmbedder()))
    assert client("wiki_create").post("/", json=PAGE, headers=auth).status_code == 201
    for question in ("¿cómo subo un archivo?", "how do I upload a file?"):
        wiring().store.events.record(
            "utility_hit", {"question": question, "mode": "help", "slugs": []}
        )

    site_builder()

    report = json.loads((Path(get_settings().report_location) / "report.json").read_text())
    assert report["gaps"]["available"] is True
    assert report["gaps"]["open"]
