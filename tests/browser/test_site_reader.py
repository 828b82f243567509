"""What a reader expects of the built site, on the three real corpora in a real chromium:
full-text search that opens the passage, highlighted code, phones (no page wider than
390 px, the ask launcher answering a tap, the sections drawer over a backdrop), and the
navigation (sidebar, breadcrumbs, previous/next, TOC; the section's links without
JavaScript).

Each corpus is imported and built once per session (``built_corpus``) and served by a
plain static server that follows the page folders' links, as nginx does. Screenshots go
to /tmp/biblioteca-reader-*.png.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest

from shared.site import search
from tests.browser.helpers import LAUNCHER, PANEL, search_for

pytestmark = pytest.mark.browser

CORPORA = ("fastapi-es", "textual-en", "astro-es")
SHOTS = Path("/tmp")
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}
# Checking every page costs about a tenth of a second each; past this many pages a
# corpus is checked on a deterministic sample that always has its widest pages.
MAX_PAGES_CHECKED = 130
WIDEST_CHECKED = 60

# Per corpus, words that are in a page's body and in none of its titles or headings
# (checked below against the index's own stems), and the page and heading they open.
BODY_QUERIES = {
    "fastapi-es": ("navegador frontend puerto", "tutorial—cors", "steps"),
    "textual-en": ("application in a web browser", "guide—devtools", "serve"),
    "astro-es": (
        "corchetes arbitrarias adelantado",
        "guides—routing",
        "rutas-dinamicas-bajo-demanda",
    ),
}


@pytest.fixture(scope="module")
def serve(
    built_corpus: Callable[[str], Any], static_site: Callable[[Path], str]
) -> Callable[[str], tuple[Any, str]]:
    """``serve(name)``: the built corpus and the URL of its site, served over HTTP."""
    built: dict[str, tuple[Any, str]] = {}

    def get(name: str) -> tuple[Any, str]:
        if name not in built:
            corpus = built_corpus(name)
            if not corpus.import_report.created:
                pytest.skip(f"{name}: the import made no page on this branch (needs .mdx import)")
            built[name] = (corpus, static_site(corpus.site))
        return built[name]

    return get


def page_url(base: str, slug: str) -> str:
    return f"{base}{quote(slug, safe='')}/index.html"


def pages_of(site: Path) -> list[str]:
    """Every published page's slug (its folder has an index.html and a search.js)."""
    return sorted(p.parent.name for p in site.glob("*/search.js"))


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"biblioteca-reader-{name}.png"))


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(**PHONE)
    context.set_default_timeout(10_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield tab
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


# -- search -----------------------------------------------------------------------------


def _heading_stems(site: Path, slug: str, language: str) -> set[str]:
    """The stems of a page's title and headings, read from its built HTML."""
    text = (site / slug / "index.html").read_text(encoding="utf-8")
    parts = re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", text, re.S)
    parts += re.findall(r"<title>(.*?)</title>", text, re.S)
    found = set()
    for part in parts:
        for word in search.words(html.unescape(re.sub(r"<[^>]+>", " ", part))):
            found.add(search.stem(word, language))
    return found


def _query_for(corpus: Any, name: str) -> tuple[str, str, str | None]:
    query, slug, anchor = BODY_QUERIES[name]
    if slug is None:
        pytest.fail(f"write the body-only query of {name} (BODY_QUERIES)")
    return query, slug, anchor


@pytest.mark.parametrize("name", CORPORA)
def test_body_only_words_find_the_page_and_open_the_passage(
    page: Any, serve: Callable[[str], tuple[Any, str]], name: str
) -> None:
    corpus, base = serve(name)
    query, slug, anchor = _query_for(corpus, name)
    language = "en" if name.endswith("-en") else "es"
    in_headings = _heading_stems(corpus.site, slug, language)
    words = search.words(query)
    assert not {search.stem(w, language) for w in words} & in_headings, "not body-only words"
    requests: list[str] = []
    page.on("request", lambda r: requests.append(unquote(r.url)))
    page.goto(base + "index.html")
    assert not [u for u in requests if "search" in u.rsplit("/", 1)[-1]]  # nothing yet
    page.keyboard.press("/")
    search_for(page, query)
    options = page.locator("#search-results li[role=option] a")
    options.first.wait_for()
    hrefs = options.evaluate_all("as => as.map(a => a.getAttribute('href'))")
    wanted = page_url("", slug)
    assert any(h.split("#")[0] == wanted for h in hrefs[:5]), hrefs
    hit = next(i for i, h in enumerate(hrefs) if h.split("#")[0] == wanted)
    result = options.nth(hit)
    marks = result.locator("mark").all_inner_texts()
    assert marks, "the snippet marks the words found"
    assert {search.stem(w, language) for m in marks for w in search.words(m)} & {
        search.stem(w, language) for w in words
    }
    shot(page, f"search-{name}")
    # Only the shards of the query's words and the passages of the results shown loaded.
    loaded = [u.split("/", 3)[-1] for u in requests if u.endswith(".js") and "search" in u]
    assert loaded, "the query loaded its shards"  # all() of nothing would pass
    assert all(u.startswith("search/") or u.endswith("/search.js") for u in loaded), loaded
    for _ in range(hit):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/{quote(slug, safe='')}/index.html*")
    if anchor is not None:
        assert page.url.endswith("#" + anchor)
        heading = page.locator(f"[id='{anchor}']")
        heading.wait_for()
        box = heading.bounding_box()
        header = page.locator("header.site").bounding_box()
        viewport = page.viewport_size
        assert box is not None
        assert header is not None
        assert viewport is not None
        assert header["height"] <= box["y"] < viewport["height"], "the heading is in view"


def test_prefix_search_as_the_reader_types(page: Any, serve: Callable[[str], Any]) -> None:
    """A word being typed matches the words it starts, accents and case folded."""
    _, base = serve("fastapi-es")
    page.goto(base + "index.html")
    page.locator("#search").fill("PARÁMETR")
    first = page.locator("#search-results li[role=option] a").first
    first.wait_for()
    assert "parámetr" in first.inner_text().lower()


# -- highlighted code -------------------------------------------------------------------

# Per corpus, a page with highlighted lines (hl_lines) in a Python or JSON fence.
CODE_PAGES = {
    "fastapi-es": "advanced—additional-responses",
    "textual-en": "guide—actions",
    "astro-es": "guides—routing",
}


@pytest.mark.parametrize("name", CORPORA)
def test_code_is_highlighted_in_both_themes(
    page: Any, serve: Callable[[str], tuple[Any, str]], name: str
) -> None:
    """Tokens are coloured (light, the system's dark, the toggle), the fence's
    highlighted lines have a background, and a fence's title is shown above it."""
    corpus, base = serve(name)
    slug = CODE_PAGES[name]
    if slug is None:
        pytest.fail(f"name a page with highlighted lines of {name} (CODE_PAGES)")
    page.emulate_media(color_scheme="light")
    page.goto(page_url(base, slug))
    marked = page.locator("pre code.hl .hll").first
    marked.wait_for()
    marked.evaluate("e => e.closest('pre').scrollIntoView({block: 'center'})")
    block = page.locator("pre code.hl", has=page.locator(".hll")).first
    # A keyword, a name tag, a string or a number: classes both styles colour.
    token = block.locator("span.k, span.kn, span.nt, span.s2, span.s1, span.mi, span.nf").first

    def style(locator: Any, name: str) -> str:
        return str(locator.evaluate(f"e => getComputedStyle(e).{name}"))

    light = style(token, "color")
    assert light != style(block, "color")
    assert style(marked, "backgroundColor") not in ("rgba(0, 0, 0, 0)", "transparent")
    titles = [
        t for t in corpus.site.glob("*/index.html") if 'class="code-title"' in t.read_text("utf-8")
    ]
    if titles:  # fences with title="…" (the import writes them for included files)
        page.goto(page_url(base, titles[0].parent.name))
        title = page.locator(".code-block > .code-title").first
        title.scroll_into_view_if_needed()
        assert title.bounding_box() is not None  # shown (not only in the HTML)
        assert title.locator("xpath=following-sibling::pre").count() == 1
        page.goto(page_url(base, slug))
        page.locator("pre code.hl .hll").first.evaluate(
            "e => e.closest('pre').scrollIntoView({block: 'center'})"
        )
    shot(page, f"code-{name}")
    page.emulate_media(color_scheme="dark")
    dark = style(token, "color")
    assert dark not in (light, style(block, "color"))
    shot(page, f"code-{name}-dark")
    page.locator("button.theme").click()  # the toggle wins over the system's scheme
    assert style(token, "color") == light


# -- phones -----------------------------------------------------------------------------


def _widest(site: Path, slugs: list[str]) -> list[str]:
    """Pages ordered by a cheap guess of their width: the longest unbroken run of
    characters in their HTML's text (paths, code lines, URLs) and their widest table."""

    def width(slug: str) -> int:
        text = (site / slug / "index.html").read_text(encoding="utf-8")
        body = html.unescape(re.sub(r"<[^>]+>", "", text))
        longest = max((len(w) for w in re.findall(r"\S+", body)), default=0)
        columns = max((row.count("<td") for row in text.split("<tr")), default=0)
        return longest + 10 * columns

    return sorted(slugs, key=lambda s: (-width(s), s))


def checked_pages(site: Path) -> list[str]:
    slugs = pages_of(site)
    if len(slugs) <= MAX_PAGES_CHECKED:
        return slugs
    widest = _widest(site, slugs)[:WIDEST_CHECKED]
    rest = [s for s in slugs if s not in widest]
    step = max(1, len(rest) // (MAX_PAGES_CHECKED - WIDEST_CHECKED))
    return widest + rest[::step][: MAX_PAGES_CHECKED - WIDEST_CHECKED]


@pytest.mark.parametrize("name", CORPORA)
def test_no_page_is_wider_than_a_phone(
    phone: Any, serve: Callable[[str], tuple[Any, str]], name: str
) -> None:
    corpus, base = serve(name)
    slugs = checked_pages(corpus.site)
    started = time.perf_counter()
    too_wide = {}
    for slug in ["", *slugs]:
        phone.goto(
            page_url(base, slug) if slug else base + "index.html", wait_until="domcontentloaded"
        )
        width = phone.evaluate("document.documentElement.scrollWidth")
        if width > PHONE["viewport"]["width"]:
            too_wide[slug] = width
    assert not too_wide, f"{len(too_wide)} of {len(slugs)} pages overflow 390 px: {too_wide}"
    print(f"{name}: {len(slugs)} pages at 390 px in {time.perf_counter() - started:.1f} s")


@pytest.mark.parametrize("name", CORPORA)
def test_the_launcher_answers_a_tap_on_a_phone(
    phone: Any, serve: Callable[[str], tuple[Any, str]], name: str
) -> None:
    """On the longest page, scrolled to the end: the launcher is on screen and a tap (not
    intercepted by anything above it) opens the help panel."""
    corpus, base = serve(name)
    slugs = pages_of(corpus.site)
    longest = max(slugs, key=lambda s: ((corpus.site / s / "index.html").stat().st_size, s))
    phone.goto(page_url(base, longest))
    phone.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    launcher = phone.locator(LAUNCHER)
    launcher.wait_for()
    box = launcher.bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= PHONE["viewport"]["width"]
    assert box["y"] + box["height"] <= PHONE["viewport"]["height"]
    assert min(box["width"], box["height"]) >= 44  # a finger's target
    launcher.tap()  # Playwright refuses a tap another element would receive
    phone.locator(PANEL).wait_for(state="visible")
    assert launcher.get_attribute("aria-expanded") == "true"
    shot(phone, f"phone-launcher-{name}")


def test_the_drawer_opens_over_a_backdrop_that_closes_it(
    phone: Any, serve: Callable[[str], tuple[Any, str]]
) -> None:
    _, base = serve("fastapi-es")
    phone.goto(page_url(base, "tutorial—request-files"))
    shot(phone, "phone-page")
    sidebar = phone.locator("#sidebar")
    backdrop = phone.locator(".drawer-backdrop")
    assert not sidebar.is_visible()
    assert not backdrop.is_visible()
    phone.locator("button.menu").tap()
    assert sidebar.is_visible()
    assert backdrop.is_visible()
    assert phone.locator('#sidebar a[aria-current="page"]').is_visible()
    shot(phone, "phone-drawer")
    backdrop.tap(position={"x": 370, "y": 400})  # beside the drawer
    assert not sidebar.is_visible()
    assert not backdrop.is_visible()
    assert phone.locator("button.menu").get_attribute("aria-expanded") == "false"


# -- navigation -------------------------------------------------------------------------


@pytest.mark.parametrize("name", CORPORA)
def test_a_page_has_its_section_open_crumbs_pager_and_toc(
    page: Any, serve: Callable[[str], tuple[Any, str]], name: str
) -> None:
    """A page inside a section: the sidebar has that section open with the page marked,
    breadcrumbs end with it, previous/next lead to its neighbours, the TOC to its
    headings."""
    corpus, base = serve(name)
    site = corpus.site
    nested = [s for s in pages_of(site) if "—" in s and 'class="toc"' in _html(site, s)]
    slug = nested[len(nested) // 2]
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(page_url(base, slug))
    current = page.locator('#sidebar a[aria-current="page"]')
    assert current.count() == 1
    assert current.is_visible()  # every <details> above it is open
    title = page.locator("h1").inner_text()
    assert page.locator("nav.crumbs li").last.inner_text() == title
    assert page.locator("nav.crumbs li").count() >= 3  # home, a section, the page
    for anchor in page.locator("nav.toc a").evaluate_all("as => as.map(a => a.hash)")[:5]:
        assert page.locator(f"[id='{unquote(anchor[1:])}']").count() == 1
    following = page.locator("a[rel=next]")
    if following.count():
        following.click()
        page.wait_for_load_state()
        assert page.locator("h1").inner_text() != title
        assert page.locator("a[rel=prev] .title").inner_text() == title


def _html(site: Path, slug: str) -> str:
    return (site / slug / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", CORPORA)
def test_without_javascript_a_page_links_its_section(
    browser: Any, serve: Callable[[str], tuple[Any, str]], name: str
) -> None:
    """Script off: the sidebar is a frame of the page's section (the page opens at its
    top), and a link there opens the other page in the whole window."""
    corpus, base = serve(name)
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1400, "height": 900}
    )
    try:
        tab = context.new_page()
        # A page of the biggest section (folders of its slug: tutorial—…).
        nested = [s for s in pages_of(corpus.site) if "—" in s]
        folders = [s.rsplit("—", 1)[0] for s in nested]
        biggest = max(sorted(set(folders)), key=folders.count)
        slug = next(s for s in nested if s.rsplit("—", 1)[0] == biggest)
        tab.goto(page_url(base, slug))
        frame_element = tab.locator("#sidebar iframe.section-frame")
        assert frame_element.is_visible()
        frame = tab.frame_locator("#sidebar iframe.section-frame")
        links = frame.locator("a[target=_top]")
        links.first.wait_for()
        # The section is the nav's when the tree has one (mkdocs.yml may place a page of the
        # folder elsewhere, as textual-en does with one of its 50 guide pages).
        assert links.count() >= 0.9 * folders.count(biggest)
        hrefs = links.evaluate_all("as => as.map(a => a.getAttribute('href'))")
        assert f"../{quote(slug, safe='')}/index.html" in hrefs
        assert tab.evaluate("window.scrollY") == 0
        shot(tab, f"nojs-{name}")
        mine = f"../{quote(slug, safe='')}/index.html"
        other = frame.locator(f"li a[target=_top]:not([href='{mine}'])").first
        title = other.inner_text()
        other.click()
        tab.wait_for_load_state()
        assert tab.locator("h1").inner_text() == title
        tab.set_viewport_size({"width": 390, "height": 844})
        assert tab.evaluate("document.documentElement.scrollWidth") <= 390
        assert frame_element.is_visible()  # below the page on a phone
    finally:
        context.close()
