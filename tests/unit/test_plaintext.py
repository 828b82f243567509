"""Markdown read as plain text from markdown-it's tokens (snippets, anchors, summaries)."""

from __future__ import annotations

import pytest

from shared.services.ask import snippet
from shared.site.entries import summary
from shared.text import plaintext


@pytest.mark.parametrize(
    ("markdown", "text"),
    [
        ("Usa **BaseModel** y `Item`.", "Usa BaseModel y Item."),
        (
            "Un *énfasis* y __fuerte__ con user_id y 2 * 3 * 4.",
            "Un énfasis y fuerte con user_id y 2 * 3 * 4.",
        ),
        # Intraword asterisks are emphasis to CommonMark (the site renders a<em>b</em>c).
        ("a*b*c y `a*b*c`", "abc y a*b*c"),
        ("Tom &amp; Jerry \\*literal\\*", "Tom & Jerry *literal*"),
        ("Ver [la guía](../guia.md#x) y [[concept—cache|la caché]].", "Ver la guía y la caché."),
        ("Logo ![x](img.png) <abbr title='t'>API</abbr>", "Logo API"),
        ("## Título\n\ntexto", "Título texto"),
        ("``code `with` ticks``", "code `with` ticks"),
    ],
)
def test_inline_marks_are_dropped_words_kept(markdown: str, text: str) -> None:
    assert plaintext.inline(markdown) == text


def test_ask_snippets_carry_no_markdown_marks() -> None:
    chunk = (
        "Para declarar un **request** body, usas modelos de [Pydantic](https://x) "
        "con `BaseModel` y todo su poder."
    )
    out = snippet(chunk)
    assert "**" not in out
    assert "`" not in out
    assert "](" not in out
    assert "request body" in out
    assert "BaseModel" in out


def test_a_summary_is_the_pages_prose_without_headings_code_or_styles() -> None:
    """Headings, fenced code, ``<style>`` and MkDocs block syntax are not prose; words
    keep their underscores (the regex summary used to read ``user_id`` as ``user id``)."""
    markdown = (
        "# Título\n\n<style>.x { color: red }</style>\n\n"
        "/// note | Nota\n\nUsa `user_id` con **cuidado**.\n\n///\n\n"
        "```python\nprint('no')\n```\n\n- uno\n- [dos](d.md)\n\n| a | b |\n|---|---|\n| c | d |\n"
    )
    assert summary(markdown) == "Usa user_id con cuidado. uno dos a b c d"
