"""The renderer's work is bounded: linear in the page, nesting capped, a time budget per page.

Times are compared as ratios between a page and one eight times smaller (linear work
gives about 8, quadratic about 64), never against absolute seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from shared.services.site_build import run as site_build
from shared.site.markdown import MAX_NESTING, RenderTimeout, render_body

GROWTH = 8
LINEAR_ENOUGH = 24  # well under the 64 of quadratic work, well over 8 for a busy machine


def growth(make: Callable[[int], str], base: int = 1000) -> float:
    """How much longer a page eight times larger takes: the best of five renders of each,
    interleaved so that other work on the machine weighs on both alike, with the cyclic
    collector paused as builds pause it (its passes grow with live objects)."""
    small_text, large_text = make(base), make(base * GROWTH)
    small = large = float("inf")
    with site_build._collector_paused():
        for _ in range(5):
            small = min(small, _timed(small_text))
            large = min(large, _timed(large_text))
    return large / max(small, 1e-4)


def _timed(text: str) -> float:
    """This thread's CPU time for one render: the other processes of a busy machine (or of
    a parallel test run) take turns on the cores, which wall time would count."""
    started = time.thread_time()
    render_body(text)
    return time.thread_time() - started


PATHOLOGICAL: dict[str, Callable[[int], str]] = {
    "equal headings": lambda n: "## Uso\n\n" * n,
    "unclosed wiki links": lambda n: "[[" * n,
    "wiki links never closed on a line": lambda n: "[[abc " * n,
    "brackets": lambda n: "[" * (2 * n),
    "brackets closed once at the end": lambda n: "[" * (2 * n) + "]",
    "image brackets": lambda n: "![" * n,
    "a long MkDocs heading id": lambda n: "# a { #" + "x" * (20 * n) + "\n",
    "unclosed blocks": lambda n: "/// note\n" * n,
    "tabs": lambda n: "/// tab | a\nx\n///\n" * n,
    "allowlisted tags never closed": lambda n: "<abbr>" * n,
    "allowlisted tags closed by others": lambda n: "<abbr>" * n + "</dfn>" * n,
    "deeply indented admonitions": lambda n: (
        ("".join("    " * i + "!!! note\n" for i in range(60)) + "\nx\n\n") * (n // 100)
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("make", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_render_time_grows_linearly(make: Callable[[int], str]) -> None:
    """Eight times the input costs about eight times the time, not sixty-four."""
    assert growth(make) < LINEAR_ENOUGH


@pytest.mark.slow
def test_ten_thousand_equal_headings_get_distinct_ids() -> None:
    """10,000 '## Uso' are uso, uso-2 … uso-10000 (at linear cost: the "equal headings"
    case of ``test_render_time_grows_linearly`` times that same page)."""
    html = render_body("## Uso\n\n" * 10_000).html
    assert 'id="uso"' in html
    assert 'id="uso-10000"' in html
    assert html.count("<h2 ") == 10_000


def test_explicit_ids_are_not_reused_by_numbered_ones() -> None:
    """'## Uso' after an explicit '{ #uso-2 }' skips to uso-3."""
    html = render_body("## Uso\n\n## Otro { #uso-2 }\n\n## Uso\n").html
    assert html.count('id="uso-2"') == 1
    assert 'id="uso-3"' in html


@pytest.mark.parametrize(
    ("source", "tag"),
    [
        ("> " * 10_000 + "x\n", "<blockquote>"),
        # 1,500 levels: past Python's recursion limit, with a page (quadratic in the
        # depth: each line is indented once more) a quarter of 3,000 levels'.
        ("".join("  " * i + "- x\n" for i in range(1_500)), "<ul>"),
    ],
    ids=["quotes", "lists"],
)
def test_nesting_is_capped(source: str, tag: str) -> None:
    """Thousands of nested quotes or lists render at most MAX_NESTING levels deep."""
    assert render_body(source).html.count(tag) <= MAX_NESTING


def test_a_page_past_its_budget_stops_with_render_timeout() -> None:
    """With a budget, a page whose parse runs past it raises RenderTimeout; without, renders."""
    text = "[" * 100_000 + "]"
    with pytest.raises(RenderTimeout):
        render_body(text, budget=0.0)
    assert render_body("# Hola\n\ntexto", budget=5.0).html.startswith("<h1")


def test_hundreds_of_nested_indented_admonitions_render_without_recursion_error() -> None:
    """600 '!!!' each inside the previous: converted 20 deep, rendered at most 20 deep."""
    text = "".join("    " * i + f'!!! note "N{i}"\n' for i in range(600)) + "\n"
    html = render_body(text).html
    assert 0 < html.count('<div class="admonition ') <= MAX_NESTING


def test_links_of_every_kind_still_render_where_they_can_close() -> None:
    """Inline, full, collapsed and shortcut reference links and images are still links."""
    html = render_body("[a](/x) [b][r] [c][] [r] ![i](p.png) [no](\n\n[r]: /ref\n[c]: /c\n").html
    assert '<a href="/x">a</a>' in html
    assert '<a href="/ref">b</a>' in html
    assert '<a href="/c">c</a>' in html
    assert '<a href="/ref">r</a>' in html
    assert '<img src="p.png" alt="i">' in html


@pytest.mark.parametrize("reader", ["title", "chunks"])
def test_a_long_heading_of_anchor_openers_is_read_in_linear_time(reader: str) -> None:
    """The import's title and the chunker read '# a { #{ #…' (no closing brace) linearly."""
    from shared.retrieval.chunking import split_markdown
    from shared.services.importer import title_of

    def read(n: int) -> str:
        text = "# a " + "{ #" * n + "\n\ntexto\n"
        if reader == "title":
            return title_of(text) or ""
        return split_markdown("x", text)[0].heading

    def best(n: int) -> float:
        times = []
        for _ in range(3):
            started = time.perf_counter()
            read(n)
            times.append(time.perf_counter() - started)
        return min(times)

    assert read(3).startswith("a {")
    assert best(4000 * GROWTH) / max(best(4000), 1e-4) < LINEAR_ENOUGH
