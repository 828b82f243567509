"""Through real HTTP: index_code makes a page stale and the next (incremental) rebuild
publishes its notice; indexing the file again takes the notice away."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
