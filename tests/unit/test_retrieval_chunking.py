"""Markdown chunking: heading paths, unbroken code fences, bounded pieces (pure)."""

from __future__ import annotations

from shared.retrieval.chunking import split_markdown

LONG = " ".join(f"palabra{i}" for i in range(400))
CODE = "```python\n" + "\n".join(f"x{i} = {i}" for i in range(120)) + "\n```"
DOC = f"""# Título {{ #title }}

Intro breve.

## Instalar {{ #install }}

{LONG}

### Con Docker

{CODE}

## Usar

Texto final.
"""


def test_heading_path_without_the_page_title() -> None:
    """Chunks carry 'Instalar › Con Docker', not the repeated H1 or MkDocs anchors."""
    headings = [p.heading for p in split_markdown("Título", DOC)]
    assert headings[0] == "Título"
    assert "Instalar" in headings
    assert "Instalar › Con Docker" in headings
    assert all("{" not in h for h in headings)


def test_code_fence_is_never_cut() -> None:
    """A fence longer than the limit stays one piece, opened and closed."""
    fenced = [p.text for p in split_markdown("Título", DOC) if "x0 = 0" in p.text]
    assert len(fenced) == 1
    assert fenced[0].count("```") == 2
    assert "x119 = 119" in fenced[0]


def test_long_prose_is_bounded_with_overlap() -> None:
    """Prose pieces stay within the limit and the next starts with the previous one's end."""
    prose = [
        p.text
        for p in split_markdown("Título", DOC, max_chars=600, overlap=100)
        if p.heading == "Instalar"
    ]
    assert len(prose) > 2
    assert all(len(t) <= 600 for t in prose)
    tail_word = prose[0].split()[-1]
    assert tail_word in prose[1].split()[:20]


def test_page_without_body_still_has_a_chunk() -> None:
    """An empty page is still findable by its title."""
    pieces = split_markdown("Sólo título", "")
    assert [(p.heading, p.text) for p in pieces] == [("Sólo título", "Sólo título")]


def test_a_fence_indented_inside_a_list_item_is_never_cut() -> None:
    """A code block indented under a list item (MDX and MkDocs steps), a blank line inside
    it, is one block: no chunk opens or ends inside it, however small the chunks."""
    code = "\n".join(f"      line_{i} = {i}" if i != 6 else "" for i in range(12))  # a blank
    markdown = (
        '# T\n\n1. Configura el sitio:\n\n    ```js title="astro.config.mjs"\n'
        f"{code}\n    ```\n\n2. Publica el sitio con el flujo de trabajo."
    )
    pieces = split_markdown("T", markdown, max_chars=120, overlap=30)
    holding = [p.text for p in pieces if "line_0" in p.text]
    assert len(holding) == 1
    assert "line_11" in holding[0]
    assert holding[0].count("```") == 2
