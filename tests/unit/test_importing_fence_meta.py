"""Fence metadata in every spelling applied: titles shown as titles, notation never shown."""

from __future__ import annotations

import pytest

from shared.importing.transforms import REGISTRY
from shared.site.markdown import render_body
from tests.unit.importing_helpers import apply, context

META = REGISTRY["fence-meta"]


@pytest.mark.parametrize(
    ("info", "opening"),
    [
        ("js [vite.config.js]", '```js title="vite.config.js"'),
        ("ts{1,3-4} [a.ts]", '```ts hl_lines="1 3 4" title="a.ts"'),
        ("js:line-numbers {2}", '```js hl_lines="2"'),
        ('python title="a.py" {2} showLineNumbers', '```python hl_lines="2" title="a.py"'),
    ],
)
def test_titles_and_highlights_take_the_stored_spelling(info: str, opening: str) -> None:
    out = apply(META, f"```{info}\na\nb\nc\nd\n```\n", context("vitepress"))
    assert out.split("\n")[0] == opening


def test_a_fence_title_renders_as_the_blocks_title() -> None:
    out = apply(META, "```js [vite.config.js]\nexport default {}\n```\n", context())
    html = render_body(out).html
    assert 'class="code-title"' in html
    assert "vite.config.js" in html
    assert "[vite.config.js]" not in html


def test_shiki_notation_is_applied_and_never_shown() -> None:
    """``++``/``highlight``/``error`` highlight their line, ``--`` removes it, ``focus``
    only goes; the comment holding the marker goes with it."""
    source = (
        "```js\nconst a = 1 // [!code ++]\nconst b = 2 // [!code --]\n"
        "const c = 3 // [!code focus]\nconst d = 4 // [!code error]\n```\n"
    )
    out = apply(META, source, context("vitepress"))
    assert "[!code" not in out
    assert "const b" not in out
    assert out.split("\n")[0] == '```js hl_lines="1 3"'


def test_the_escaped_notation_shows_the_notation_itself() -> None:
    out = apply(META, "```js\nx() // [!!code ++]\n```\n", context("vitepress"))
    assert "x() // [!code ++]" in out


def test_twoslash_directives_are_applied_and_removed() -> None:
    source = (
        "```ts twoslash\nimport { x } from 'y'\n// ---cut---\n// @errors: 2322\n"
        "const a = x\n//    ^?\n// @noErrors\n```\n"
    )
    out = apply(META, source, context("vitepress"))
    assert out == "```ts\nconst a = x\n```\n"


def test_docusaurus_magic_comments_highlight_their_lines() -> None:
    source = (
        "```js\n// highlight-next-line\nuno()\ndos()\n// highlight-start\ntres()\n"
        "cuatro()\n// highlight-end\n```\n"
    )
    out = apply(META, source, context("docusaurus", page="a.mdx"))
    assert out.split("\n")[0] == '```js hl_lines="1 3 4"'
    assert "highlight-" not in out


def test_a_markdown_fence_applies_only_directives_in_markdowns_own_comments() -> None:
    """Front matter's ``#`` and HTML comments are Markdown's: applied. A ``//`` comment in
    a Markdown fence is the text of an example (a page about the notation): kept."""
    source = (
        '````md title="intro.md"\n---\n# highlight-next-line\nslug: /\n---\n'
        "<!-- highlight-start -->\n# Título\n<!-- highlight-end -->\n"
        "```js\n// highlight-next-line\nx()\n```\n````\n"
    )
    out = apply(META, source, context("docusaurus", page="a.mdx"))
    lines = out.split("\n")
    assert lines[0] == '````md hl_lines="2 4" title="intro.md"'
    assert "# highlight-next-line" not in out
    assert "highlight-start" not in out
    assert "highlight-end" not in out
    assert "// highlight-next-line" in out  # the example's own text


def test_a_fence_without_metadata_is_left_as_written() -> None:
    source = "```python\n# [not notation]\nx = 1\n```\n"
    assert apply(META, source, context()) == source
