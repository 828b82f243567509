"""A merged page's address in chromium: it lands on the page that kept its text, with
the anchor the reader came with (``shared.services.site_build.merged``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from shared.bootstrap import open_store
from shared.config import get_settings
from shared.schema import parse_front_matter
from shared.services import merge, review
from shared.services.wiki import create_validated
from tests.fixtures.embedder import HashingEmbedder
from tests.fixtures.wiring import rebuild

EMBEDDER = HashingEmbedder()


def test_a_merged_pages_address_redirects_to_the_kept_page_with_its_anchor(
    page: Any,
    static_site: Callable[[Path], str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Built, merged, built again incrementally: despliegue/#revertir opens
    desplegar/#revertir, the section the merge brought over; a page whose wiki link and
    related page named despliegue now links desplegar, by its title, never broken."""
    for name in ("BIBLIOTECA_STORE", "BIBLIOTECA_SITE_DIR", "BIBLIOTECA_REPORT_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BIBLIOTECA_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    store = open_store(get_settings())
    for slug, body in (
        ("desplegar", "# Desplegar\n\nCrea la imagen y arranca el servicio.\n"),
        ("despliegue", "# Despliegue\n\nCrea la imagen.\n\n## Revertir\n\nVuelve atrás.\n"),
    ):
        fm = parse_front_matter({"title": slug.title(), "type": "guide"})
        create_validated(slug, fm, body, store, EMBEDDER, actor="ana")
    fm = parse_front_matter({"title": "Índice", "type": "guide", "related": ["despliegue"]})
    create_validated("indice", fm, "# Índice\n\nLee [[despliegue]].\n", store, EMBEDDER, actor="a")
    assert rebuild(get_settings()).status == "ok"
    proposed = merge.propose("desplegar", "despliegue", store, actor="cli:ana")
    review.accept(proposed["proposal"], store, EMBEDDER, actor="cli:curator")
    assert rebuild(get_settings()).status == "ok"
    url = static_site(Path(get_settings().site_location))

    page.goto(f"{url}/despliegue/index.html#revertir")
    page.wait_for_url("**/desplegar/#revertir")

    assert page.locator("h2#revertir").inner_text().strip().startswith("Revertir")
    page.goto(f"{url}/indice/index.html")
    links = page.locator("main a[href*='despl']")
    hrefs = {links.nth(i).get_attribute("href") for i in range(links.count())}
    assert hrefs == {"../desplegar/index.html"}
    assert page.locator("a.broken, .wikilink.broken").count() == 0
    get_settings.cache_clear()
