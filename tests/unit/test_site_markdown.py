"""The site's Markdown: safe configuration, wiki links, heading ids, code classes."""

from __future__ import annotations

import html as html_lib
import re

import pytest

from shared.site.markdown import MARKER_RE, WikiLink, render_body, validate_link

HOSTILE_BODIES = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="https://x" onclick="alert(1)">x</a>',
    "<svg onload=alert(1)>",
    "<iframe src=javascript:alert(1)></iframe>",
    "<style>body{display:none}</style>",
    "Text <b onmouseover=alert(1)>bold</b>",
    "<!-- comment --><details open ontoggle=alert(1)>",
]

HOSTILE_LINKS = [
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](java&#x09;script:alert(1))",
    "[x](<javascript:alert(1)>)",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "![x](data:image/png;base64,iVBORw0KGgo=)",
    "[x](file:///etc/passwd)",
    "<javascript:alert(1)>",
    "[x][ref]\n\n[ref]: javascript:alert(1)",
]


@pytest.mark.parametrize("source", HOSTILE_BODIES)
def test_raw_html_is_escaped_never_emitted(source: str) -> None:
    """Raw HTML in a body comes out as text: no tag of it survives as markup."""
    html = render_body(source).html
    assert "<script" not in html
    assert "<img" not in html
    assert "<svg" not in html
    assert "<iframe" not in html
    assert "<style" not in html
    assert "<details" not in html
    assert not re.search(r"<[a-z]+[^>]*\son\w+=", html)
    assert "&lt;" in html


def browser_scheme(url: str) -> str:
    """The scheme a browser would see: entities decoded, tabs/newlines and C0 stripped."""
    url = html_lib.unescape(url)
    url = re.sub(r"[\t\n\r]", "", url).strip("\x00\x01\x02\x03\x04\x05\x06\x07\x08 ")
    match = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*):", url)
    return match.group(1).lower() if match else ""


@pytest.mark.parametrize("source", HOSTILE_LINKS)
def test_script_capable_links_are_refused(source: str) -> None:
    """javascript:, vbscript:, file: and data: URLs never become an href or a src."""
    html = render_body(source).html
    urls = re.findall(r'(?:href|src)="([^"]*)"', html)
    assert all(browser_scheme(u) not in {"javascript", "vbscript", "data", "file"} for u in urls)


def test_ordinary_links_and_images_stay() -> None:
    """http(s), relative and mailto links are kept (the filter is not a blanket ban)."""
    html = render_body(
        "[a](https://x.org/p?q=1) [b](../otra/) [c](mailto:x@y.z) ![i](img.png)"
    ).html
    assert 'href="https://x.org/p?q=1"' in html
    assert 'href="../otra/"' in html
    assert 'href="mailto:x@y.z"' in html
    assert 'src="img.png"' in html


def test_validate_link_sees_through_case_and_control_characters() -> None:
    """The scheme check ignores case, spaces and control characters an attacker inserts."""
    assert not validate_link(" JavaScript:alert(1)")
    assert not validate_link("java\tscript:alert(1)")
    assert not validate_link("\x01data:text/html,x")
    assert validate_link("https://example.org/javascript:")


def test_wiki_links_become_markers_in_order() -> None:
    """[[slug]] and [[slug|text]] are collected, each replaced by one marker."""
    body = render_body("Ver [[concept—uno]] y [[guide-dos|la guía]], otra vez [[concept—uno]].")
    assert body.links == (
        WikiLink("concept—uno", None),
        WikiLink("guide-dos", "la guía"),
        WikiLink("concept—uno", None),
    )
    assert [int(m) for m in MARKER_RE.findall(body.html)] == [0, 1, 2]
    assert body.targets() == ["concept—uno", "guide-dos"]


def test_escaped_pipe_wiki_links_work_in_table_cells_and_in_text() -> None:
    """[[slug\\|text]] keeps a table cell whole and is the same link outside a table."""
    table = render_body("| página | enlace |\n|---|---|\n| uno | [[guide-dos\\|la guía]] |\n")
    assert table.links == (WikiLink("guide-dos", "la guía"),)
    assert table.html.count("<td>") == 2
    text = render_body("Ver [[guide-dos\\|la guía]].")
    assert text.links == (WikiLink("guide-dos", "la guía"),)


def test_wiki_links_inside_code_are_left_alone() -> None:
    """A [[link]] in a code span, fenced block or indented block is code, not a link."""
    body = render_body("`[[a]]`\n\n```\n[[b]]\n```\n\n    [[c]]\n")
    assert body.links == ()
    assert body.html.count("[[") == 3


def test_a_marker_cannot_be_forged_by_page_text() -> None:
    """Text that looks like a marker is escaped, so it is never resolved into a link."""
    body = render_body("<!--wl:0--> and `<!--wl:0-->`")
    assert MARKER_RE.search(body.html) is None


@pytest.mark.parametrize(
    "source",
    ['[[a" onclick="alert(1)]]', "[[<script>alert(1)</script>]]", "[['><img src=x onerror=1>|t]]"],
)
def test_hostile_wiki_targets_stay_text(source: str) -> None:
    """A wiki link target with quotes or tags is kept as data: the body holds only a marker."""
    body = render_body(source)
    assert len(body.links) == 1
    assert body.html == "<p><!--wl:0--></p>\n"


def test_bracket_soup_is_not_a_wiki_link() -> None:
    """Brackets inside [[...]], empty links and unclosed ones are plain text."""
    body = render_body("[[a]b]] [[]] [[ ]] [[open and [[x\ny]]")
    assert body.links == ()


def test_headings_get_ids_and_mkdocs_anchors_are_removed() -> None:
    """'# Title { #anchor }' keeps its anchor as the id; others get a slug, made unique."""
    html = render_body("# Título { #title-id }\n\n## Uso\n\n## Uso\n").html
    assert '<h1 id="title-id">Título</h1>' in html
    assert '<h2 id="uso">Uso</h2>' in html
    assert '<h2 id="uso-2">Uso</h2>' in html
    assert "{" not in html


def test_fenced_code_gets_a_language_class_and_escaped_content() -> None:
    """A fence's first info word becomes language-<word> (lower-cased); code is escaped,
    highlighted or not (test_site_highlight.py has the colours)."""
    html = render_body('```Python hl_lines="2"\nif a < b: print("<b>")\n```\n').html
    assert '<code class="language-python hl">' in html
    assert '<span class="o">&lt;</span>' in html
    assert "&lt;b&gt;" in html
    plain = render_body('```nolang\nif a < b: print("<b>")\n```\n').html
    assert '<code class="language-nolang">if a &lt; b: print("&lt;b&gt;")\n</code>' in plain


def test_fences_render_plain_without_colour_and_show_the_same_text() -> None:
    """``colour=False`` leaves out Pygments' spans, not a character of the code a reader sees."""
    source = '```python hl_lines="1"\nif a < b:\n    print("<b>")\n```\n'
    coloured = render_body(source).html
    plain = render_body(source, colour=False).html
    assert '<span class="k">' in coloured
    assert '<span class="k">' not in plain
    assert '<code class="language-python"><span class="hll">if a &lt; b:\n</span>' in plain
    assert html_lib.unescape(re.sub(r"<[^>]+>", "", plain)) == html_lib.unescape(
        re.sub(r"<[^>]+>", "", coloured)
    )


def test_hostile_fence_language_is_dropped() -> None:
    """A fence info string that is not a plain language name adds no class at all."""
    html = render_body('```"><script>alert(1)</script>\nx\n```\n').html
    assert "<script" not in html
    assert "language-" not in html


def test_tables_are_rendered() -> None:
    """GFM tables are on (the js-default preset)."""
    html = render_body("| a | b |\n|---|---|\n| 1 | 2 |\n").html
    assert "<table>" in html
    assert "<td>2</td>" in html


def test_leading_h1_is_recorded() -> None:
    """A body that opens with a level-1 heading says so (the page shows its title once)."""
    assert render_body("# Hola { #hello }\n\ntexto").leading_h1 == "Hola"
    assert render_body("texto\n\n# Hola").leading_h1 is None
