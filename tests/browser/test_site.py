"""The built FastAPI corpus site in a real chromium: sidebar, TOC, breadcrumbs, pager,
search, dark mode and the mobile layout. Screenshots go to /tmp/biblioteca-site-*.png.

The site is served over HTTP by a plain static server (page folders are symbolic links
into the pool: it follows them like nginx does); skipped when the corpus is absent.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import search_for
from tests.functions.test_import_mkdocs import corpus_site  # noqa: F401 - the fixture

SHOTS = Path("/tmp")
BODY = "tutorial%E2%80%94body/index.html"


@pytest.fixture(scope="module")
def site_url(
    corpus_site: tuple[Any, Path],  # noqa: F811
    static_site: Callable[[Path], str],
) -> str:
    _, folder = corpus_site
    return static_site(folder)


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"biblioteca-site-{name}.png"))


def test_a_page_has_sidebar_toc_breadcrumbs_and_pager(page: Any, site_url: str) -> None:
    page.goto(site_url + BODY)
    page.set_viewport_size({"width": 1400, "height": 900})
    current = page.locator('#sidebar a[aria-current="page"]')
    assert current.inner_text() == "Request Body"
    assert current.is_visible()  # its section is open
    assert page.locator("#sidebar details").count() >= 7
    toc = page.locator("nav.toc a")
    assert toc.count() >= 5
    assert toc.first.get_attribute("href") == "#import-pydantics-basemodel"
    crumbs = page.locator("nav.crumbs li").all_inner_texts()
    assert crumbs == ["Inicio", "Tutorial - Guía del Usuario", "Request Body"]
    shot(page, "page")
    page.locator("a[rel=next]").click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text() != "Request Body"
    page.go_back()
    assert page.locator("h1").inner_text() == "Request Body"


def test_search_finds_a_page_for_a_spanish_query_and_navigates(page: Any, site_url: str) -> None:
    """'/' focuses the box; 'parametros de query' (no accent) finds the page; Enter goes."""
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(site_url + "index.html")
    assert not [u for u in requests if "/search/" in u]  # nothing loaded before a search
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search"
    search_for(page, "parametros de query")
    options = page.locator("#search-results li[role=option]")
    options.first.wait_for()
    titles = options.all_inner_texts()
    assert any(t.startswith("Parámetros de Query") for t in titles), titles
    # each word's shard as it was typed ("pa", then "par"; "qu", then "que"), once each,
    # and the passages of the pages shown on the way (at most 10 per list shown)
    shards = [u.rsplit("/", 1)[1] for u in requests if "/search/" in u]
    assert shards == ["pa.js", "par.js", "qu.js", "que.js"]
    passages = [u for u in requests if u.endswith("/search.js")]
    assert passages
    assert len(passages) == len(set(passages))  # each loaded once
    assert not [u for u in requests if "search-index.json" in u]
    shot(page, "search")
    index = next(i for i, t in enumerate(titles) if t.startswith("Parámetros de Query"))
    for _ in range(index):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url("**/tutorial%E2%80%94query-params*/index.html*")
    assert page.locator("h1").inner_text().startswith("Parámetros de Query")


def test_search_finds_a_heading_inside_a_page(page: Any, site_url: str) -> None:
    page.goto(site_url + "index.html")
    page.locator("#search").fill("swagger")
    page.locator("#search-results li[role=option]").first.wait_for()
    assert page.locator("#search-results a").count() >= 2


def test_dark_mode_follows_the_toggle_and_persists(page: Any, site_url: str) -> None:
    page.emulate_media(color_scheme="light")
    page.goto(site_url + BODY)
    background = "getComputedStyle(document.body).backgroundColor"
    assert page.evaluate(background) == "rgb(255, 255, 255)"
    page.locator("button.theme").click()
    assert page.evaluate(background) == "rgb(22, 24, 28)"
    page.reload()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate(background) == "rgb(22, 24, 28)"
    shot(page, "dark")


def test_dark_mode_follows_the_system(page: Any, site_url: str) -> None:
    page.emulate_media(color_scheme="dark")
    page.goto(site_url + "index.html")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(22, 24, 28)"


def test_mobile_hides_the_sidebar_behind_a_button(page: Any, site_url: str) -> None:
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto(site_url + BODY)
    sidebar = page.locator("#sidebar")
    assert not sidebar.is_visible()
    shot(page, "mobile")
    page.locator("button.menu").click()
    assert sidebar.is_visible()
    assert page.locator("button.menu").get_attribute("aria-expanded") == "true"
    shot(page, "mobile-menu")
    page.keyboard.press("Escape")
    assert not sidebar.is_visible()


def test_the_skip_link_is_the_first_tab_stop(page: Any, site_url: str) -> None:
    page.goto(site_url + BODY)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"
    assert page.locator("a.skip").is_visible()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "content"


def test_on_a_narrow_screen_the_toc_folds_behind_its_title(page: Any, site_url: str) -> None:
    page.set_viewport_size({"width": 900, "height": 800})
    page.goto(site_url + BODY)
    links = page.locator("nav.toc a")
    assert not links.first.is_visible()
    page.locator("nav.toc .toc-title").click()
    assert links.first.is_visible()
    shot(page, "narrow-toc")
