"""Assets that cannot script: what an SVG keeps and loses, and how documents are served."""

from __future__ import annotations

import pytest

from shared.text.safe_assets import clean_svg, delivery, safe_asset

SVG = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">{}</svg>'


def _clean(body: str) -> str:
    cleaned = clean_svg(SVG.format(body).encode())
    assert cleaned is not None
    return cleaned.decode()


@pytest.mark.parametrize(
    "active",
    [
        "<script>window.__xss=1</script>",
        '<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>',
        '<set attributeName="href" to="javascript:alert(1)"/>',
        "<style>rect { background: expression(alert(1)) }</style>",
    ],
    ids=["script", "foreignObject", "set-href", "style-expression"],
)
def test_active_elements_are_removed(active: str) -> None:
    """Scripts, HTML inside the drawing, link-rewriting animations, scripted styles."""
    assert _clean(f'{active}<rect width="1"/>').count("<") == 3  # svg, rect, /svg


def test_handlers_and_references_that_leave_the_file_are_removed() -> None:
    """on* handlers, javascript: links, external images and url(…) go; in-file
    references (#id) and embedded rasters stay, with the drawing."""
    text = _clean(
        '<a xlink:href="javascript:alert(1)"><rect onclick="x()" width="5"/></a>'
        '<image href="https://evil.example/p.png"/><image href="data:image/png;base64,AA=="/>'
        '<circle fill="url(#g)" style="fill:url(https://evil.example/f)"/>'
        '<linearGradient id="g"/>'
    )
    for gone in ("javascript", "onclick", "evil.example"):
        assert gone not in text
    for kept in ('width="5"', "data:image/png", 'fill="url(#g)"', 'id="g"'):
        assert kept in text


@pytest.mark.parametrize(
    "data",
    [
        b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]><svg>&a;</svg>',
        b"<svg><unclosed></svg>",
        b"<html><script>1</script></html>",
    ],
    ids=["entities", "not-well-formed", "not-svg"],
)
def test_an_svg_that_cannot_be_read_safely_is_refused(data: bytes) -> None:
    """Entities (billion laughs), broken XML, or a root that is not <svg>: None."""
    assert clean_svg(data) is None


def test_html_assets_are_plain_text_downloads_and_images_stay_themselves() -> None:
    """A document type is served as a text/plain attachment; a PNG as it is."""
    assert delivery("_assets/ab/page.html").attachment
    assert delivery("_assets/ab/page.HTM").content_type == "text/plain; charset=utf-8"
    assert not delivery("_assets/ab/x.png").attachment
    assert safe_asset("x.png", b"\x89PNG") == b"\x89PNG"


def test_a_style_keeps_its_rules_but_not_what_it_would_fetch() -> None:
    """A terminal screenshot's <style>: its colours stay; @import and an external font
    url() become none (that one declaration is dropped by the browser)."""
    text = _clean(
        '<style>@import url("https://evil.example/x.css");'
        '@font-face{src:local("Fira"),url(https://evil.example/f.woff2)}'
        ".r1{fill:#c5c8c6} .g{fill:url(#g)}</style>"
    )
    assert "evil.example" not in text
    assert ".r1{fill:#c5c8c6}" in text
    assert "url(#g)" in text


def test_an_svg_written_for_html_keeps_its_named_entities_as_characters() -> None:
    """A terminal screenshot's ``&nbsp;`` (HTML's, not XML's) parses and stays a no-break
    space; XML's own ``&amp;`` stays; a name no one defines still refuses the file."""
    text = _clean("<text>&nbsp;Data&nbsp;&amp;&nbsp;Catálogo</text>")
    assert "\u00a0Data\u00a0&amp;\u00a0Catálogo" in text
    assert clean_svg(SVG.format("<text>&nosuchname;</text>").encode()) is None
