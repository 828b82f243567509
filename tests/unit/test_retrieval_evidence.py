"""What an answer may cite and how strong the evidence is: the gate, sections, confidence."""

from __future__ import annotations

from typing import Any

from shared.records import IndexedChunk
from shared.retrieval import evidence
from shared.retrieval.fusion import Ranked


def ranked(ordinal: int, fused: float = 0.5, cosine: float = 0.5, slug: str = "p") -> Ranked:
    return Ranked(slug, "P", "Uso", f"texto {ordinal}", ordinal, fused, cosine, 0.5)


def row(ordinal: int, text: str, heading: str = "Uso") -> IndexedChunk:
    return IndexedChunk("p", ordinal, "P", heading, text, "guide", None, ())


def test_the_gate_keeps_a_chunk_by_its_fused_score_or_its_cosine_alone() -> None:
    """fused ≥ 0.24 passes; so does a cosine ≥ 0.30 the dense search really returned."""
    assert evidence.relevant(ranked(0, fused=0.24, cosine=0.0))
    assert evidence.relevant(ranked(0, fused=0.1, cosine=0.30))
    lexical_only = Ranked("p", "P", "Uso", "t", 0, 0.1, 0.35, 0.0, dense_found=False)
    assert not evidence.relevant(lexical_only)
    assert [r.ordinal for r in evidence.cited([ranked(0), ranked(1, 0.1, 0.1)])] == [0]


def test_a_chunk_runs_on_into_its_section_without_the_carried_overlap() -> None:
    """The next chunk of the same heading is appended, minus the tail chunking repeated."""
    rows = {
        ("p", 0): row(0, "Importa la clase. Después móntala así:"),
        ("p", 1): row(1, "Después móntala así:\n\n```py\napp.mount()\n```"),
        ("p", 2): row(2, "Otra sección.", heading="Otra"),
    }
    chunk = Ranked("p", "P", "Uso", rows[("p", 0)].text, 0, 0.5, 0.5, 0.5)
    assert evidence.section_text(chunk, rows, [chunk]) == (
        "Importa la clase. Después móntala así:\n\n```py\napp.mount()\n```"
    )


def test_the_lead_passage_runs_on_into_the_next_section_under_its_heading() -> None:
    """The answer's first passage goes on past its heading (the subsection that names the
    parameter), opening it on its heading line; any other passage stops at its heading."""
    rows = {
        ("p", 0): row(0, "Limita la longitud del texto."),
        ("p", 1): row(1, "Usa `max_length` dentro de `Query`.", heading="Uso › Query"),
    }
    chunk = Ranked("p", "P", "Uso", rows[("p", 0)].text, 0, 0.5, 0.5, 0.5)
    assert evidence.section_text(chunk, rows, [chunk], lead=True) == (
        "Limita la longitud del texto.\n\n#### Query\n\nUsa `max_length` dentro de `Query`."
    )
    assert evidence.section_text(chunk, rows, [chunk]) == "Limita la longitud del texto."
    long = {**rows, ("p", 1): row(1, "y" * evidence.LEAD_RUN_CHARS, heading="Otra")}
    assert evidence.section_text(chunk, long, [chunk], lead=True) == rows[("p", 0)].text


def test_a_chunk_does_not_run_into_a_cited_chunk_or_past_the_budget() -> None:
    """A following chunk cited on its own is not repeated; the section text stays bounded."""
    rows = {("p", i): row(i, "x" * 700) for i in range(3)}
    first = Ranked("p", "P", "Uso", "x" * 700, 0, 0.5, 0.5, 0.5)
    assert evidence.section_text(first, rows, [first]) == "x" * 700  # 1,400 > SECTION_CHARS
    short = {("p", 0): row(0, "a"), ("p", 1): row(1, "b")}
    lead = Ranked("p", "P", "Uso", "a", 0, 0.5, 0.5, 0.5)
    also_cited = Ranked("p", "P", "Uso", "b", 1, 0.4, 0.4, 0.4)
    assert evidence.section_text(lead, short, [lead, also_cited]) == "a"
    assert evidence.section_text(lead, short, [lead]) == "a\n\nb"


def test_a_chunk_opening_on_the_carried_overlap_opens_on_its_whole_paragraph() -> None:
    """The overlap chunking carried over ends a paragraph of the chunk before: the passage
    opens where that paragraph does, so a quote can open on its sentence."""
    whole = "La compatibilidad se apoya en la API [View Transitions](https://x.dev/vt/), y incluye:"
    rows = {
        ("p", 0): row(0, f"Las transiciones animan la navegación.\n\n{whole}"),
        ("p", 1): row(1, "Transitions](https://x.dev/vt/), y incluye:\n\n- Animaciones."),
    }
    cut = Ranked("p", "P", "Uso", rows[("p", 1)].text, 1, 0.5, 0.5, 0.5)
    assert evidence.section_text(cut, rows, [cut]) == f"{whole}\n\n- Animaciones."
    other = {**rows, ("p", 0): row(0, whole, heading="Otra")}  # another section: as it is
    assert evidence.section_text(cut, other, [cut]) == rows[("p", 1)].text
    clean = Ranked("p", "P", "Uso", "Una frase entera.\n\n- Animaciones.", 1, 0.5, 0.5, 0.5)
    assert evidence.section_text(clean, rows, [clean]) == clean.text


def test_a_carried_tail_opening_on_code_or_a_capital_opens_on_its_whole_paragraph() -> None:
    """The overlap opens at any word: on a code span or a capitalised word it looks like a
    sentence, yet it is the end of the chunk before's paragraph (docusaurus-en: the quote
    began at "`https://example.com/some-doc`. The blog…", the option left behind)."""
    whole = (
        "All that `routeBasePath: '/'` does is serve the docs at the site root: "
        "`https://example.com/some-doc`. The blog stays at `blog/`."
    )
    tail = "`https://example.com/some-doc`. The blog stays at `blog/`."
    rows = {
        ("p", 0): row(0, f"Docs-only mode.\n\n{whole}"),
        ("p", 1): row(1, f"{tail}\n\nAdd a page at the root."),
    }
    cut = Ranked("p", "P", "Uso", rows[("p", 1)].text, 1, 0.5, 0.5, 0.5)
    assert evidence.section_text(cut, rows, [cut]) == f"{whole}\n\nAdd a page at the root."
    long = "A sentence of its own, longer than any tail the chunking carries over. " * 2
    rows[("p", 1)] = row(1, f"{long}\n\nAdd a page.")
    opening = Ranked("p", "P", "Uso", rows[("p", 1)].text, 1, 0.5, 0.5, 0.5)
    assert evidence.section_text(opening, rows, [opening]) == opening.text


def test_the_chunk_before_an_opening_inside_a_sentence_is_read_with_the_texts() -> None:
    """hybrid reads, in its one batch, the chunk before a cited chunk that opens inside a
    sentence (same section only), so its passage opens on the whole paragraph."""
    from shared.retrieval import hybrid
    from shared.retrieval.lexical import LexicalIndex

    whole = "Astro admite las transiciones de vista con su enrutador, y también incluye:"
    rows = {
        ("p", 0): row(0, f"Las transiciones animan la navegación.\n\n{whole}"),
        ("p", 1): row(1, "enrutador, y también incluye:\n\n- Animaciones integradas."),
        ("p", 2): row(2, "Otra cosa distinta en su sección.", heading="Otra"),
        ("p", 3): row(3, "y sigue aquí.", heading="Otra"),
    }

    class Chunks:
        def __init__(self) -> None:
            self.asked: set[tuple[str, int]] = set()

        def chunks_by_key(self, keys: set[tuple[str, int]]) -> dict[tuple[str, int], Any]:
            self.asked |= set(keys)
            return {k: rows[k] for k in keys if k in rows}

    index = LexicalIndex(rows.values())
    cut = Ranked("p", "P", "Uso", rows[("p", 1)].text, 1, 0.5, 0.5, 0.5)
    chunks = Chunks()
    _, sections = hybrid._with_texts(chunks, index, [cut], [])  # type: ignore[arg-type]
    assert ("p", 0) in chunks.asked
    assert evidence.section_text(cut, sections, [cut]).startswith(whole)
    clean = Ranked("p", "P", "Otra", rows[("p", 2)].text, 2, 0.5, 0.5, 0.5)
    other = Chunks()
    hybrid._with_texts(other, index, [clean], [])  # type: ignore[arg-type]
    assert ("p", 1) not in other.asked


def test_a_definition_question_is_led_by_the_lead_pages_opening_chunk() -> None:
    """For "¿Qué es X?" the lead page's first chunk (under its title alone) leads in the
    page's place, the page's best chunk next; a page opening on a section, or a lead that
    is the opening already, changes nothing."""
    from shared.retrieval import hybrid
    from shared.retrieval.lexical import LexicalIndex

    def chunk(slug: str, ordinal: int, heading: str) -> IndexedChunk:
        return IndexedChunk(slug, ordinal, "P", heading, f"texto {ordinal}", "guide", None, ())

    index = LexicalIndex(
        [chunk("p", 0, "P"), chunk("p", 1, "Uso"), chunk("q", 0, "Uso"), chunk("q", 1, "Más")]
    )
    lead, other = ranked(1, fused=0.7), ranked(0, fused=0.4, slug="q")
    led = hybrid._opening_first(index, [lead, other], [lead, other])
    assert [(r.slug, r.ordinal) for r in led] == [("p", 0), ("p", 1), ("q", 0)]
    assert not led[0].dense_found  # its text is read with the others'
    assert led[0].support == lead.support
    assert led[1].support == 0.0
    sectioned = ranked(1, slug="q")
    assert hybrid._opening_first(index, [sectioned], [sectioned]) == [sectioned]
    opening = ranked(0)
    assert hybrid._opening_first(index, [opening, other], []) == [opening, other]
