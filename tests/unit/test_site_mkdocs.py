"""MkDocs-flavoured bodies on the site: blocks, tabs, includes, allowlisted HTML, .md links."""

from __future__ import annotations

import re

import pytest

from shared import mkdocs
from shared.site.markdown import WikiLink, render_body
from tests.unit.test_site_markdown import browser_scheme

RAW = ("///", "!!!", "???", '=== "', "{*", "--8<--", "{!")


def visible(html: str) -> str:
    """The text a reader sees outside code (tags and code blocks removed)."""
    html = re.sub(r"<pre>.*?</pre>", "", html, flags=re.S)
    return re.sub(r"<[^>]+>", "", html)


def test_slash_blocks_are_admonitions_with_their_title_and_kind() -> None:
    """'/// tip | Consejo' … '///' is a tip admonition titled with inline Markdown."""
    html = render_body("/// tip | Consejo **útil**\n\nUsa `x`.\n\n///\n\nDespués.").html
    assert '<div class="admonition tip">' in html
    assert '<p class="admonition-title">Consejo <strong>útil</strong></p>' in html
    assert "<p>Usa <code>x</code>.</p>" in html
    assert html.index("</div>") < html.index("Después")


def test_nested_blocks_close_by_their_own_fence() -> None:
    """'////' outside, '///' inside (and same-length nesting) close where they should."""
    source = "//// note | Fuera\n\n/// warning | Dentro\n\nA\n\n///\n\nB\n\n////\n\nC\n"
    html = render_body(source).html
    assert html.count('<div class="admonition') == 2
    assert html.index("A") < html.index("</div>") < html.index("B") < html.rindex("</div>")
    assert html.rindex("</div>") < html.index("C")
    same = render_body("/// note\n\n/// tip\n\nA\n\n///\n\nB\n\n///\n\nC\n").html
    assert re.search(r"A</p>\n</div>\n<p>B</p>\n</div>\n<p>C", same)


def test_a_fenced_slash_line_does_not_close_a_block() -> None:
    """'///' inside a code fence within a block is code, not the block's end."""
    html = render_body("/// note\n\n```\n///\n```\n\nDentro\n\n///\n\nFuera\n").html
    assert html.index("Dentro") < html.index("</div>") < html.index("Fuera")
    assert "<code>///\n</code>" in html


def test_blocks_inside_list_items() -> None:
    """An indented block inside a list item stays in the item."""
    html = render_body("1. Paso\n\n    /// note | Nota\n\n    Texto\n\n    ///\n\n2. Otro\n").html
    assert re.search(r"<li>.*admonition note.*Texto.*</div>\s*</li>", html, re.S)
    assert not any(raw in visible(html) for raw in RAW)


def test_details_blocks_collapse_and_keep_their_kind() -> None:
    """'/// details' is a <details>; its options give the kind and whether it is open."""
    html = render_body(
        "/// details | Ver más\n    type: warning\n    open: true\n\nOculto\n\n///"
    ).html
    assert '<details class="admonition warning" open=""><summary>Ver más</summary>' in html
    assert "Oculto" in html
    assert "type:" not in html


def test_consecutive_tabs_are_one_tab_set_with_the_first_checked() -> None:
    """'//// tab | …' blocks side by side are one set of radio tabs; 'new: true' starts one."""
    source = (
        "//// tab | Python 3.10+\n\n```python\na = 1\n```\n\n////\n\n"
        "//// tab | Python 3.8\n\nb\n\n////\n\n"
        "/// tab | Otro\n    new: true\n\nc\n\n///\n"
    )
    html = render_body(source).html
    assert html.count('<div class="tabbed-set">') == 2
    assert html.count('type="radio"') == 3
    assert 'name="tabs-1" id="tabs-1-1" checked' in html
    assert '<label for="tabs-1-2">Python 3.8</label>' in html
    assert 'id="tabs-2-1" checked' in html


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('!!! note "Nota"\n    Texto\n', '<div class="admonition note">'),
        ("??? tip\n    Texto\n", '<details class="admonition tip">'),
        ('???+ danger "Ojo"\n    Texto\n', '<details class="admonition danger" open="">'),
        ('=== "Uno"\n    a\n\n=== "Dos"\n    b\n', '<div class="tabbed-set">'),
    ],
)
def test_indented_mkdocs_spellings_render_like_the_stored_form(source: str, expected: str) -> None:
    """A page written through the API with '!!!', '???' or '===' renders as blocks too."""
    html = render_body(source).html
    assert expected in html
    assert "Texto" in html or "<p>b</p>" in html
    assert not any(raw in visible(html) for raw in RAW)


def test_includes_become_markers_with_their_lines() -> None:
    """'{* path ln[…] hl[…] *}' and '--8<-- "path"' are include markers, never raw text."""
    body = render_body(
        'Antes\n\n{* ../../docs_src/a/b.py ln[1:9,29:35] hl[3] *}\n\n--8<-- "docs/x.py"\n'
    )
    assert [i.ref() for i in body.includes] == ["docs_src/a/b.py", "docs/x.py"]
    assert body.includes[0].lines == ((1, 9), (29, 35))
    assert "<!--inc:0-->" in body.html
    assert "<!--inc:1-->" in body.html
    assert "{*" not in body.html
    assert "8&lt;" not in body.html


def test_fences_highlight_lines_and_show_their_title() -> None:
    """hl_lines marks those lines; title="…" is shown above the code."""
    html = render_body('```python hl_lines="2" title="app/main.py"\na\nb\nc\n```\n').html
    assert '<span class="hll"><span class="n">b</span>\n</span>' in html
    assert '<span class="n">a</span>\n<span class="hll">' in html
    assert '<span class="hll">a' not in html
    assert '<p class="code-title"><code>app/main.py</code></p>' in html


# -- inline HTML ------------------------------------------------------------------------------


def test_allowlisted_inline_html_renders_with_its_title_only() -> None:
    """abbr, dfn, kbd, sup, sub, mark and br render; title is the one attribute kept."""
    html = render_body(
        '<abbr title="Application Programming Interface" class="x">API</abbr>, '
        "<dfn title='def'>término</dfn>, <kbd>Ctrl</kbd>+<kbd>C</kbd>, H<sub>2</sub>O, "
        "x<sup>2</sup>, <mark>ojo</mark><br>fin"
    ).html
    assert '<abbr title="Application Programming Interface">API</abbr>' in html
    assert '<dfn title="def">término</dfn>' in html
    assert "<kbd>Ctrl</kbd>+<kbd>C</kbd>" in html
    assert "<sub>2</sub>" in html
    assert "<sup>2</sup>" in html
    assert "<mark>ojo</mark>" in html
    assert "<br>" in html
    assert "class=" not in html


def test_details_html_holds_markdown_between_its_tags() -> None:
    """<details><summary> on their own lines wrap the Markdown up to </details>."""
    html = render_body(
        "<details>\n<summary>Vista previa</summary>\n\n**dentro**\n\n</details>\n"
    ).html
    assert "<details>" in html
    assert "<summary>Vista previa</summary>" in html
    assert "<strong>dentro</strong>" in html
    assert "</details>" in html


HOSTILE_HTML = [
    "<details open ontoggle=alert(1)>x</details>",
    '<abbr title="x" onmouseover="alert(1)">a</abbr>',
    '<abbr title="x" style="background:url(javascript:alert(1))">a</abbr>',
    '<dfn title="&quot; onclick=&quot;alert(1)">d</dfn>',
    "<abbr title='\"><script>alert(1)</script>'>a</abbr>",
    "<kbd><script>alert(1)</script></kbd>",
    "<mark><img src=x onerror=alert(1)></mark>",
    "<sub><a href=javascript:alert(1)>x</a></sub>",
    "<details><summary>s</summary><iframe src=javascript:alert(1)></iframe></details>",
    "<abbr title=x>never closed",
    "</details></summary>closing only",
    "<abbr>a<dfn>b</abbr>c</dfn>",
    "<details>\n\nopened here\n",
    "- <abbr>in a list\n\n</abbr> outside",
    "<br onload=alert(1)> <br/> <BR title=x>",
    "<details><details><details>deep</details></details>",
    "<abbr title=`x`>backticks</abbr>",
    "<summary onclick=alert(1)>s</summary>",
    "<DETAILS OPEN ONTOGGLE=alert(1)>upper</DETAILS>",
]


@pytest.mark.parametrize("source", HOSTILE_HTML)
def test_hostile_html_in_allowlisted_tags_is_inert(source: str) -> None:
    """No attribute but title survives, no other tag appears, nothing is left open."""
    html = render_body(source).html
    for tag in re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)([^>]*)>", html):
        name, attrs = tag[0].lower(), tag[1]
        assert name not in ("script", "img", "iframe", "a", "svg", "style")
        assert re.fullmatch(r'(?:\s+(?:title|id|class)="[^"]*")*\s*/?', attrs), tag
        assert "on" not in re.sub(r'"[^"]*"', "", attrs)
    urls = re.findall(r'(?:href|src)="([^"]*)"', html)
    assert all(browser_scheme(u) != "javascript" for u in urls)
    for name in ("details", "summary", "abbr", "dfn", "kbd", "mark", "sub", "sup"):
        assert html.count(f"<{name}") == html.count(f"</{name}>"), name


def test_unclosed_allowlisted_tags_are_shown_as_text() -> None:
    """An allowlisted tag that is never closed stays text, so it cannot swallow the page."""
    html = render_body("<details open ontoggle=alert(1)>\n\nresto de la página\n").html
    assert "<details" not in html
    assert "&lt;details open ontoggle=alert(1)&gt;" in html


def test_other_html_is_still_escaped() -> None:
    """Tags outside the allowlist (div, font, span, b) are shown as text."""
    html = render_body('<div class="termy">\n\nx <font color="red">y</font> <b>z</b>\n').html
    assert "<div" not in html
    assert "<font" not in html
    assert "<b>" not in html
    assert "&lt;font color=" in html
    assert "&lt;div class=" in html


# -- links -------------------------------------------------------------------------------------


def test_wiki_links_keep_anchors_and_render_markdown_text() -> None:
    """[[slug#anchor|`code` text]] links to the anchor and shows the text's Markdown."""
    body = render_body("Ver [[tutorial—body#campos|el `Body` **real**]] y [[tutorial—body#x]].")
    assert body.links[0] == WikiLink("tutorial—body", "el `Body` **real**", "campos")
    assert body.links[1] == WikiLink("tutorial—body", None, "x")
    assert "<!--wlo:0-->el <code>Body</code> <strong>real</strong><!--wlc:0-->" in body.html


def test_relative_md_links_are_links_to_the_pages_they_name() -> None:
    """[x](../a/b.md#y) from tutorial—c is a link to a—b, anchor kept; other links are not."""
    body = render_body(
        "[uno](../advanced/b.md#y) [dos](body.md) [tres](sub/index.md) [`cuatro`](../../x.md) "
        "[web](https://x.org/a.md) [img](pic.png) [ancla](#z)",
        slug="tutorial—c",
    )
    assert body.links == (
        WikiLink("advanced—b", "uno", "y"),
        WikiLink("tutorial—body", "dos", None),
        WikiLink("tutorial—sub—index", "tres", None),
        WikiLink("../x.md", None, None),
    )
    assert 'href="https://x.org/a.md"' in body.html
    assert 'href="#z"' in body.html


def test_an_include_marker_cannot_be_forged_by_page_text() -> None:
    """'<!--inc:0-->' written in a page is text: the body has no include and no marker."""
    body = render_body("<!--inc:0-->\n\nTexto <!--inc:0--> y `<!--inc:0-->`")
    assert body.includes == ()
    assert "<!--inc:" not in body.html


def test_a_md_link_that_names_no_page_is_reported_as_written() -> None:
    """A link whose path gives no slug ('.md', one that climbs out) keeps its path as target."""
    assert render_body("[a](.md) [b](../x.md)", slug="top").targets() == [".md", "../x.md"]


# -- the canonical form --------------------------------------------------------------------------


def test_canonical_form_nests_with_more_slashes_outside() -> None:
    """Indented admonitions become '///' blocks; an outer one gets more slashes than its inner."""
    text = mkdocs.canonical('!!! note "A"\n    x\n\n    !!! tip\n        y\n')
    assert text.splitlines()[0] == "//// note | A"
    assert "/// tip | Tip" in text
    assert text.rstrip().endswith("////")


def test_readable_text_has_no_block_markup() -> None:
    """The plain view keeps a block's title as the label of its first paragraph and its text,
    drops fences and options, and shows an include as its path alone."""
    text = mkdocs.readable(
        "/// details | Más\n    type: tip\n\nTexto\n\n///\n\n{* ../a/b.py hl[2] *}\n"
    )
    assert "///" not in text
    assert "type:" not in text
    assert "**Más:** Texto" in text
    assert "{* a/b.py *}" in text  # what the answers' reader shows as an example


# -- the plain views: chunks, search excerpts, offline answers ---------------------------------

STORED = (
    "# Guía\n\nIntroducción de la guía para empezar.\n\n"
    '/// tip | Consejo\n\nUsa <abbr title="x">API</abbr> con cuidado en producción.\n\n///\n\n'
    "/// details | Más detalles\n    type: warning\n\n"
    "El servidor se reinicia con cada cambio.\n\n///\n\n"
    "{* ../../docs_src/app/main.py hl[3] *}\n\n"
    "//// tab | Python 3.10+\n\nEsta variante usa la sintaxis nueva de tipos.\n\n////\n"
)
MARKUP = re.compile(r"///|\{\*|\*\}|type: warning|<abbr")


def test_chunks_of_the_stored_form_carry_no_block_markup() -> None:
    """Chunks keep a block's title as its first paragraph's label, the text, and the example
    as its bare path (which the offline answer shows as an example), never '///' or options."""
    from shared.retrieval.chunking import split_markdown
    from shared.retrieval.reading import units

    text = "\n\n".join(piece.text for piece in split_markdown("Guía", STORED))
    assert "///" not in text
    assert "type: warning" not in text
    assert "**Más detalles:** El servidor se reinicia con cada cambio." in text
    assert "{* docs_src/app/main.py *}" in text
    assert ("example", "docs_src/app/main.py") in [(u.kind, u.text) for u in units(text)]


def test_search_excerpts_of_the_stored_form_are_plain_text() -> None:
    """The search summary reads as prose: no block fences, titles, options, paths or tags."""
    from shared.site.entries import summary

    text = summary(STORED, limit=400)
    assert not MARKUP.search(text)
    assert "Usa API con cuidado" in text
    assert "docs_src" not in text


def test_offline_answer_sentences_of_the_stored_form_are_plain_text() -> None:
    """extractive.sentences keeps the prose of blocks and drops their markup."""
    from shared.retrieval.extractive import sentences

    found = sentences(STORED)
    assert "El servidor se reinicia con cada cambio." in found
    assert not [s for s in found if MARKUP.search(s)]
