"""The wiki-link syntax shared by the site's parser and the plain-text views (pure)."""

from __future__ import annotations

import pytest

from shared.text import wikilinks
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


def test_a_link_to_a_heading_of_its_own_page_names_the_page_when_quoted() -> None:
    text = "Puedes [agregar Tailwind 4](#agregar-tailwind-4) con un comando."
    assert wikilinks.anchor_links(text, "guides—styling") == (
        "Puedes [[guides—styling#agregar-tailwind-4|agregar Tailwind 4]] con un comando."
    )


def test_code_images_and_other_links_keep_what_they_are() -> None:
    text = (
        "`[x](#no)` ![logo](#img) [sitio](https://a.example/#y) [[otra#z|otra]]\n"
        "```md\n[en código](#bloque)\n```\n"
    )
    assert wikilinks.anchor_links(text, "p") == text


def test_in_a_table_row_the_wiki_links_pipe_is_escaped() -> None:
    assert wikilinks.anchor_links("| a | [T](#x) |", "p") == "| a | [[p#x\\|T]] |"


def test_a_link_without_words_is_given_its_pages_title_outside_code() -> None:
    """[[slug]] and [[slug#a]] take the title; a link with words, code and an unknown
    page keep their form; a table cell's link escapes its pipe."""
    titles = {"concept—puertas": "Las puertas del archivo"}
    text = (
        "Ver [[concept—puertas]] y [[concept—puertas#triaje]], o [[concept—puertas|aquí]].\n"
        "`[[concept—puertas]]` y [[otra]].\n"
        "| a | [[concept—puertas]] |\n"
        "```\n[[concept—puertas]]\n```\n"
    )
    assert wikilinks.titled(text, titles) == (
        "Ver [[concept—puertas|Las puertas del archivo]] y "
        "[[concept—puertas#triaje|Las puertas del archivo]], o [[concept—puertas|aquí]].\n"
        "`[[concept—puertas]]` y [[otra]].\n"
        "| a | [[concept—puertas\\|Las puertas del archivo]] |\n"
        "```\n[[concept—puertas]]\n```\n"
    )
    assert wikilinks.targets(text) == {"concept—puertas", "otra"}
