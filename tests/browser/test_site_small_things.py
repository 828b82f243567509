"""The small things a reader sees (issue 32 item 7), on a small site built from pages
written here in each dialect's own syntax, in a real chromium: a favicon on every page, table
cells that never break a word midway, no page wider than a phone, task lists as
checkboxes, a title with angle brackets escaped once. Screenshots go to
/tmp/biblioteca-small-*.png."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

PAGES = {
    "tareas.md": (
        "# Lista de tareas\n\n- [x] Hecho\n- [ ] Pendiente\n- Sin casilla\n\n"
        "| Name | Type | Default | Description |\n|---|---|---|---|\n"
        '| `variant` | `str` | `"default"` | Styling variant. One of `default`, `size`, '
        "`text`, or a long `--option-that-is-longer-than-a-phone-column-by-far`. |\n"
    ),
    "pointer.md": "# &lt;pointer&gt;\n\nThe `<pointer>` CSS type names cursor shapes.\n",
    "config.md": (
        "# Config\n\nRewrites:\n\n```ts\nexport default {\n"
        "  rewrites: (id) => id.replace(/\\.md$/, '.html').replace(/^guide\\//, ''),\n}\n```\n"
    ),
}


@pytest.fixture(scope="module")
def small_site(tmp_path_factory: pytest.TempPathFactory, static_site: Callable[[Path], str]) -> str:
    """The pages above imported and built (deterministic embedder), served over HTTP."""
    from shared.config import Settings
    from shared.publish.local import LocalPublisher
    from shared.publish.report import CuratorReport
    from shared.services.importer import import_directory
    from shared.services.site_build import build_site
    from shared.store.sqlite import SqliteStore
    from tests.fixtures.embedder import HashingEmbedder

    work = tmp_path_factory.mktemp("small-site")
    docs = work / "docs"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(text, encoding="utf-8")
    store = SqliteStore(work / "data")
    import_directory(docs, store, HashingEmbedder(), default_type="reference")
    settings = Settings(
        data_dir=work / "data", site_dir=str(work / "site"), report_dir=str(work / "report")
    )
    build_site(
        settings,
        True,
        store=store,
        publisher=LocalPublisher(str(work / "site")),
        curator_report=CuratorReport(str(work / "report"), str(work / "site")),
    )
    return static_site(work / "site")


def _failed_requests(page: Any) -> list[str]:
    failed: list[str] = []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    return failed


def test_every_page_links_a_favicon_that_exists_and_favicon_ico_is_served(
    page: Any, small_site: str
) -> None:
    """The page's icon links answer 200, so does /favicon.ico; nothing on the page 404s."""
    failed = _failed_requests(page)
    for slug in ("", "tareas/", "pointer/"):
        page.goto(f"{small_site}{slug}index.html")
        icons = page.eval_on_selector_all("link[rel=icon]", "ls => ls.map(l => l.href)")
        assert len(icons) == 2
        for icon in icons:
            assert page.request.get(icon).status == 200, icon
    assert page.request.get(f"{small_site}favicon.ico").status == 200
    assert failed == []


def test_table_cells_never_break_a_word_midway_on_a_phone(page: Any, small_site: str) -> None:
    """At 390 px each code cell's word stays on one line; the table scrolls inside itself."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{small_site}tareas/index.html")
    lines = page.eval_on_selector_all(
        ".content td > code",
        "cs => cs.map(c => [c.textContent, c.getClientRects().length])",
    )
    assert lines, "the table's code cells were not found"
    assert [text for text, rects in lines if rects != 1] == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path="/tmp/biblioteca-small-table-390.png", full_page=True)


def test_code_with_a_regular_expression_keeps_the_page_within_a_phone(
    page: Any, small_site: str
) -> None:
    """Pygments' class of a regex token (``sr``) is no site class: the regex is shown in
    its block, and the page does not scroll sideways at 390 px."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{small_site}config/index.html")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    regex = page.locator("pre .sr").first
    assert regex.inner_text() == "/\\.md$/"
    assert regex.evaluate("e => getComputedStyle(e).position") == "static"
    page.screenshot(path="/tmp/biblioteca-small-code-390.png", full_page=True)


def test_a_task_list_shows_checkboxes_not_brackets(page: Any, small_site: str) -> None:
    """[x] and [ ] items are disabled checkboxes (checked, unchecked); no bracket text."""
    page.goto(f"{small_site}tareas/index.html")
    boxes = page.locator(".content li input[type=checkbox]")
    assert boxes.count() == 2
    assert [boxes.nth(i).is_checked() for i in range(2)] == [True, False]
    assert all(boxes.nth(i).is_disabled() for i in range(2))
    text = page.inner_text(".content")
    assert "[x]" not in text
    assert "[ ]" not in text
    assert "Hecho" in text


def test_a_title_with_angle_brackets_is_escaped_once(page: Any, small_site: str) -> None:
    """``# &lt;pointer&gt;`` is the title <pointer> in the heading, the tab and the index."""
    page.goto(f"{small_site}pointer/index.html")
    assert page.inner_text("main h1").strip() == "<pointer>"
    assert page.title().startswith("<pointer>")
    page.goto(f"{small_site}index.html")
    assert page.locator("main a", has_text="<pointer>").count() >= 1
    assert "&lt;" not in page.inner_text("main")


def test_the_404_page_has_the_sites_search_and_it_finds_a_page(page: Any, small_site: str) -> None:
    """404.html (what serve answers for a missing address) shows the header's search,
    which finds a page; its styles load from the site's root."""
    failed = _failed_requests(page)
    page.goto(f"{small_site}404.html")
    assert page.inner_text("main h1").strip() in ("Page not found", "Página no encontrada")
    search = page.locator("#search")
    search.wait_for(state="visible")
    search.fill("tareas")
    page.wait_for_selector("#search-results li a")
    assert "Lista de tareas" in page.inner_text("#search-results")
    assert failed == []
    page.screenshot(path="/tmp/biblioteca-small-404.png")
