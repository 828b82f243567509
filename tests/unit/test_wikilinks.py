"""The wiki-link syntax shared by the site's parser and the plain-text views (pure)."""

from __future__ import annotations

import pytest

from shared.text.wikilinks import as_text, is_link, split


@pytest.mark.parametrize(
    ("inner", "parts"),
    [
        ("concept—uno", ("concept—uno", None)),
        (" guide-dos | la guía ", ("guide-dos", "la guía")),
        ("guide-dos\\|la guía", ("guide-dos", "la guía")),
        ("guide-dos|", ("guide-dos", None)),
    ],
)
def test_split_reads_target_and_text(inner: str, parts: tuple[str, str | None]) -> None:
    """Plain, labelled and escaped-pipe links; an empty label is no label."""
    assert split(inner) == parts


def test_plain_text_shows_each_link_as_its_text_or_target() -> None:
    """What a reader sees: the label, else the target; non-links stay as written."""
    text = "Ver [[a]], [[b|la be]] y [[c\\|la ce]]; no [[ ]] ni [[x[y]]."
    assert as_text(text) == "Ver a, la be y la ce; no [[ ]] ni [[x[y]]."
    assert not is_link(" ")
    assert not is_link("a\nb")
    assert is_link("a|b")
