"""Inline Markdown read as plain text (widget snippets)."""

from __future__ import annotations

import pytest

from shared.services.ask import snippet
from shared.text import plaintext


@pytest.mark.parametrize(
    ("markdown", "text"),
    [
        ("Usa **BaseModel** y `Item`.", "Usa BaseModel y Item."),
        (
            "Un *énfasis* y __fuerte__ con user_id y a*b*c.",
            "Un énfasis y fuerte con user_id y a*b*c.",
        ),
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
