"""The one language guess, for questions and for pages (pure)."""

from __future__ import annotations

import pytest

from shared.text.language import SAMPLE, language


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("¿Cómo subo archivos?", "es"),
        ("como subo archivos", "es"),
        ("How do I upload files?", "en"),
        ("What is the default limit?", "en"),
        ("DB_POOL_SIZE", "es"),
    ],
)
def test_language_guess(question: str, lang: str) -> None:
    """Function words decide; Spanish wins when nothing tells."""
    assert language(question) == lang


def test_pages_are_guessed_by_the_rule_questions_are() -> None:
    """One guess for pages and questions: a Spanish page quoting English error text is
    Spanish by its ``¿``, an API page whose only word is "On" is English (the site's own
    guess, before, called the first English and the second Spanish)."""
    spanish = (
        "Forbidden rewrite\n\n> **ForbiddenRewrite**: You tried to rewrite an on-demand "
        "route with a static route when using the `rewrite` function.\n\n## ¿Qué salió mal?"
    )
    assert language(spanish) == "es"
    assert language("textual.on\n\n# On\n\n::: textual.on\n") == "en"


def test_only_the_start_of_a_long_text_is_read() -> None:
    english = "How does the cache work and what should it hold? " * 40
    assert language(english + "¿Cómo? " * 10) == "en"
    assert len(english) > SAMPLE
