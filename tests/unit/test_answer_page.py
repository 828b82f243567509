"""An archived answer made into a page (pure): framing off, citations linked, code kept."""

from __future__ import annotations

from shared.retrieval.answer_page import as_page, cite_distinct
from shared.retrieval.extractive import FRAMING, HEDGE

CITED = ["guide—codes", "guide—resp"]
TITLES = {"guide—codes": "Códigos de estado", "guide—resp": "Respuestas"}


def test_the_lead_and_the_closing_pointer_are_taken_off_in_both_languages() -> None:
    """Each language's lead ("Según la wiki:", "From the wiki:") and closing ("Más detalles
    en", "More in") go; the quoted text stays, its markers linked."""
    for lead, closing in [("Según la wiki:", "Más detalles en"), ("From the wiki:", "More in")]:
        page = as_page(
            f"{lead}\n\nUsa `status_code=201` [1].\n\n{closing}: **X** [1].", CITED, TITLES
        )
        assert page == "Usa `status_code=201` ([[guide—codes|Códigos de estado]]).\n"


def test_hedges_and_labels_are_framing_too() -> None:
    """A low-confidence answer's hedge opens nothing on a page; "También:" introduces
    extras in an answer, not in a page."""
    answer = f"{HEDGE['es']}\n\nUno [2].\n\nTambién:\n- Dos [1]"
    page = as_page(answer, CITED, TITLES)
    assert page.startswith("Uno ([[guide—resp|Respuestas]]).")
    assert "También" not in page
    assert "- Dos ([[guide—codes|Códigos de estado]])" in page
    assert all(opening not in page for opening in FRAMING.openings)


def test_a_run_of_markers_is_one_parenthesis_of_distinct_links_and_unknown_ones_go() -> None:
    """[2][1] [2] -> both pages once, in order; [9] cites nothing and is dropped."""
    page = as_page("Texto [2][1] [2]. Otro [9].", CITED, TITLES)
    assert page == ("Texto ([[guide—resp|Respuestas]], [[guide—codes|Códigos de estado]]). Otro.\n")


def test_code_keeps_its_brackets_and_a_link_text_has_no_brackets() -> None:
    """Markers inside fences and inline code are code; a title with brackets or a pipe is
    made fit for a wiki link; a page unknown by title shows its slug."""
    answer = "Mira `x[1]` [1].\n\n```python\nitems[1]\n```\n\nFin [2]."
    page = as_page(answer, CITED, {"guide—codes": "A [b] | c"})
    assert "`x[1]` ([[guide—codes|A b c]])" in page
    assert "```python\nitems[1]\n```" in page
    assert page.endswith("Fin ([[guide—resp|guide—resp]]).\n")


def test_a_fence_inside_a_longer_fence_is_code_and_so_is_its_marker() -> None:
    """A four-backtick fence that shows a three-backtick one stays code to its own close:
    the ``[2]`` inside is neither linked nor counted, the ``[1]`` after it is."""
    shown = "````md\n```py\nx = a[2]\n```\ny = b[2]\n````"
    page = as_page(f"Así se ve:\n\n{shown}\n\nVer la guía [1].", CITED, TITLES)
    assert shown in page
    assert "[[guide—resp" not in page
    assert "([[guide—codes|Códigos de estado]])" in page


def test_a_link_after_a_sentence_end_goes_inside_the_sentence() -> None:
    """ "… texto. [1]" (how answers often cite) reads "… texto ([[…]])." on a page."""
    assert as_page("Usa el middleware. [1]\n\nOtro! [2]", CITED, TITLES) == (
        "Usa el middleware ([[guide—codes|Códigos de estado]]).\n\n"
        "Otro ([[guide—resp|Respuestas]])!\n"
    )


def test_a_markdown_link_is_not_a_citation() -> None:
    """[1](url) and [1]: are Markdown, not markers."""
    assert as_page("Ver [1](https://x.example) y [1]: nota.", CITED, TITLES) == (
        "Ver [1](https://x.example) y [1]: nota.\n"
    )


def test_cite_distinct_numbers_markers_by_distinct_page() -> None:
    """Passages [1] and [2] of one page both become [1]; the next page [2]; code is kept."""
    text, distinct = cite_distinct("A [1][2]. B [3]. `c[3]`", ["p", "p", "q"])
    assert (text, distinct) == ("A [1][1]. B [2]. `c[3]`", ["p", "q"])


def test_openings_that_name_things_or_the_quotes_language_are_framing_too() -> None:
    """The answerer's variable openings: a hedge naming what the wiki never mentions, a
    lead noting the quotes' language; whole or followed by text on the same paragraph."""
    from shared.retrieval import framing

    for opening in (
        framing.hedge("es", ["Kafka"]),
        framing.hedge("en", ["Kafka", "RabbitMQ"], "es"),
        framing.lead("en", "es"),
    ):
        alone = as_page(f"{opening}\n\nUno [1].", CITED, TITLES)
        inline = as_page(f"{opening} Uno [1].", CITED, TITLES)
        assert alone == inline == "Uno ([[guide—codes|Códigos de estado]]).\n"
