"""The slug and page-URL rules the site's scripts copy from Python, checked against it.

The widget validates slugs (it links only what the contract allows) and builds page
URLs (its module ``widget/urls.js``; the shipped ``widget.js`` is their join, checked by
test_widget_build); ``site.js`` builds them for the sidebar and search results. Each is its
own copy of a rule in ``shared/text/slugs.py`` / ``shared/site/paths.py`` (and the search
box's fold, of ``shared/text/fold.py``): node runs the JavaScript's own definitions (cut
from those files) on the same samples, and the answers must agree.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from shared.site.paths import INDEX, page_href, page_url
from shared.text.fold import fold
from shared.text.slugs import SLUG_RE
from tests.conftest import skip_or_fail

SITE = Path(__file__).resolve().parents[2] / "shared" / "site"
STATIC = SITE / "static"
WIDGET_URLS = SITE / "widget" / "urls.js"
SAMPLES = [
    "concept—hola",
    "guide—tutorial—first-steps",
    "a",
    "a_b-c",
    "tutorial—sql-databases",
    "Mayúscula",
    "-leading",
    "trailing-",
    "has space",
    "ñandú",
    "a/b",
    "",
    "x" * 5,
    "reference—a—b—c",
    "con—",
    "9lives",
]


def _function(source: str, name: str, indent: str = "  ") -> str:
    """The text of ``function name(...) { ... }`` in ``source``, declared at ``indent``
    (inside site.js's closure; at the top of a widget module, "")."""
    match = re.search(rf"function {name}\([^)]*\) \{{.*?\n{indent}\}}", source, re.S)
    assert match, f"{name} is no longer defined as the test expects"
    return match.group(0)


def node_json(script: str) -> object:
    """What ``script``, run by node, prints as JSON (skips, or fails under CI=true, when
    node is missing)."""
    node = shutil.which("node")
    if node is None:
        skip_or_fail("node is not on PATH (the site scripts' rules are checked with it)")
    done = subprocess.run(
        [node, "-e", script], capture_output=True, text=True, timeout=30, check=True
    )
    return json.loads(done.stdout)


def test_the_widgets_slug_rule_and_page_urls_are_pythons() -> None:
    widget = WIDGET_URLS.read_text(encoding="utf-8")
    slug_literal = re.search(r"export const SLUG = (/.*?/);", widget)
    assert slug_literal, "widget/urls.js no longer defines SLUG as the test expects"
    script = (
        f"var SLUG = {slug_literal.group(1)};\n{_function(widget, 'pageUrl', '')}\n"
        f"var samples = {json.dumps(SAMPLES)};\n"
        "console.log(JSON.stringify(samples.map(function (s) {"
        " return [SLUG.test(s), pageUrl('/root/', s)]; })));"
    )
    answers = node_json(script)
    expected = [
        [
            bool(SLUG_RE.fullmatch(s)),
            page_href("/root/", s).removesuffix(INDEX) if SLUG_RE.fullmatch(s) else None,
        ]
        for s in SAMPLES
    ]
    assert answers == expected


def test_the_sites_page_links_are_pythons() -> None:
    site = (STATIC / "site.js").read_text(encoding="utf-8")
    script = (
        f"var root = '../';\n{_function(site, 'pageHref')}\n"
        f"var samples = {json.dumps([s for s in SAMPLES if SLUG_RE.fullmatch(s)])};\n"
        "console.log(JSON.stringify(samples.map(pageHref)));"
    )
    valid = [s for s in SAMPLES if SLUG_RE.fullmatch(s)]
    assert node_json(script) == [page_href("../", s) for s in valid]


@pytest.mark.parametrize("name", ["pageUrl", "pageHref"])
def test_the_cut_finds_only_whole_functions(name: str) -> None:
    """The cut itself: it returns a definition that ends with its own closing brace."""
    widget = name == "pageUrl"
    source = (WIDGET_URLS if widget else STATIC / "site.js").read_text(encoding="utf-8")
    text = _function(source, name, "" if widget else "  ")
    assert text.count("{") == text.count("}")


FOLD_SAMPLES = [
    "Straße",
    "STRAẞE",
    "Canción Ñandú",
    "Ærøskøbing Œuvre",
    "Łódź Đakovo Þórr ðæ",
    "naïve café ﬁle x²",
    "İstanbul ıi",
    "Ελληνικά Йогурт",
    "Parámetros de configuración",
]


def test_the_search_boxs_fold_is_pythons() -> None:
    """site.js folds a typed word as shared.text.fold folds the indexed one: ``Straße`` is
    ``strasse`` on both sides (the box used to keep ``ß``, finding ``stra``)."""
    site = (STATIC / "site.js").read_text(encoding="utf-8")
    spelled = re.search(r"var SPELLED = \{.*?\};", site, re.S)
    assert spelled, "site.js no longer defines SPELLED as the test expects"
    script = (
        f"{spelled.group(0)}\n{_function(site, 'fold')}\n"
        f"var samples = {json.dumps(FOLD_SAMPLES)};\n"
        "console.log(JSON.stringify(samples.map(fold)));"
    )
    assert node_json(script) == [fold(s) for s in FOLD_SAMPLES]
    assert fold("Straße") == "strasse"


def test_the_widgets_wiki_links_to_headings_are_pythons() -> None:
    """``[[slug#anchor|text]]`` in an answer opens the page at that heading, at the address
    ``page_url`` gives the same page and anchor (sources' ``url``)."""
    widget = WIDGET_URLS.read_text(encoding="utf-8")
    slug_literal = re.search(r"export const SLUG = (/.*?/);", widget)
    assert slug_literal, "widget/urls.js no longer defines SLUG as the test expects"
    targets = [
        ("guides—styling", "agregar-tailwind-4"),
        ("tutorial—cors", "páginas-de-astro"),
        ("api—app", "textual.app.App.run"),
        ("index", ""),
    ]
    script = (
        f"var SLUG = {slug_literal.group(1)};\n{_function(widget, 'pageUrl', '')}\n"
        f"{_function(widget, 'wikiUrl', '')}\n"
        f"var targets = {json.dumps([f'{s}#{a}' if a else s for s, a in targets])};\n"
        "console.log(JSON.stringify(targets.map(function (t) { return wikiUrl('/root/', t); })));"
    )
    expected = [page_url("/root", s, a).replace(INDEX, "") for s, a in targets]
    assert node_json(script) == expected
