"""A chunk's Markdown read as units: sentences, items, code and examples, in order (pure)."""

from __future__ import annotations

from shared.retrieval.reading import example_path, sentences, units


def kinds(markdown: str) -> list[tuple[str, str]]:
    return [(u.kind, u.text) for u in units(markdown)]


def test_units_keep_the_chunk_order_with_code_and_examples() -> None:
    """Prose, a fenced block and an include directive come out in the order written."""
    text = (
        "Importa `StaticFiles` y móntalo.\n\n"
        "```python\napp.mount('/static', StaticFiles(directory='static'))\n```\n\n"
        "{* ../../docs_src/static_files/tutorial001_py310.py hl[2,6] *}\n\n"
        "Después abre el navegador."
    )
    assert [k for k, _ in kinds(text)] == ["sentence", "code", "example", "sentence"]
    assert kinds(text)[1][1].startswith("```python\napp.mount(")
    assert kinds(text)[2][1] == "docs_src/static_files/tutorial001_py310.py"


def test_a_sentence_is_never_cut_inside_inline_code() -> None:
    """`"status": "archived"` holds a colon and a quote: still one sentence."""
    assert kinds('Pon `"status": "archived"`. El borrador sale de la cola.') == [
        ("sentence", 'Pon `"status": "archived"`.'),
        ("sentence", "El borrador sale de la cola."),
    ]


def test_markup_is_dropped_outside_code_but_kept_inside_it() -> None:
    """HTML tags go from prose; `<slug>` inside backticks is code, not a tag."""
    text = 'Una <dfn title="x">expresión regular</dfn> en `<slug>/index.html`.'
    assert kinds(text) == [("sentence", "Una expresión regular en `<slug>/index.html`.")]


def test_lists_and_tables_become_items() -> None:
    """Bullets (with wrapped lines) and table rows are items; a table's rule row is not."""
    text = (
        "- primero\n  continúa aquí\n- segundo\n\n"
        "| Parámetro | Tipo |\n|---|---|\n| `title` | `str` |"
    )
    assert kinds(text) == [
        ("item", "primero continúa aquí"),
        ("item", "segundo"),
        ("item", "Parámetro — Tipo"),
        ("item", "`title` — `str`"),
    ]


def test_admonition_contents_are_asides_and_tabs_are_not() -> None:
    """`/// note` … `///` marks its text as an aside; `//// tab` holds main text."""
    text = (
        "Texto principal.\n\n/// note | Nota\n\nUna nota al margen.\n\n///\n\n"
        "//// tab | Python 3.10+\n\nTexto de la pestaña.\n\n////"
    )
    assert [(u.text, u.aside) for u in units(text)] == [
        ("Texto principal.", False),
        ("Una nota al margen.", True),
        ("Texto de la pestaña.", False),
    ]


def test_a_diagram_is_not_code_and_a_fenced_include_is_an_example() -> None:
    """A mermaid fence is left out; a fence holding only `{!> path !}` is that example."""
    text = "```mermaid\ngraph TB\na --> b\n```\n\n```Python\n{!> ../../docs_src/a/t1.py!}\n```"
    assert kinds(text) == [("example", "docs_src/a/t1.py")]


def test_example_paths_lose_their_relative_prefix() -> None:
    """`../../docs_src/x.py` is named as the repository names it."""
    assert example_path("../../docs_src/x.py") == "docs_src/x.py"
    assert example_path('"./snippets/a.sh"') == "snippets/a.sh"


def test_sentences_leave_out_code_and_markup() -> None:
    """Fenced code, include directives and HTML tags are not answer sentences."""
    text = (
        "Uno dos tres cuatro cinco seis siete.\n\n{* ../x.py hl[2] *}\n\n"
        '<dfn title="a">Hola mundo con etiqueta visible</dfn>\n\n```\ncodigo = 1\n```'
    )
    found = sentences(text)
    assert "Uno dos tres cuatro cinco seis siete." in found
    assert all("codigo" not in s and "{*" not in s and "<dfn" not in s for s in found)


def test_sentences_that_cannot_stand_alone_are_left_out() -> None:
    """Rhetorical questions, lead-ins ending in ':' and bare links are not answer sentences."""
    text = (
        "¿Cómo se promueve un borrador? Un curador cambia su estado a active con wiki_update. "
        "Los pasos son estos:\n\n[[runbook—promover-un-borrador]].\n\n"
        "Consulta [[concept—puertas|las puertas del archivo]] antes de promoverlo a mano."
    )
    assert sentences(text) == [
        "Un curador cambia su estado a active con wiki_update.",
        "Consulta las puertas del archivo antes de promoverlo a mano.",
    ]


def test_a_list_after_a_cut_sentence_is_split_into_its_items() -> None:
    """A chunk starting mid-sentence (the overlap) drops the fragment and keeps each item."""
    text = (
        "is retried from a fresh read, so two racing updates land.\n"
        "- Setting `status: active` promotes a draft page.\n"
        "- Setting `status: archived` unpublishes the page."
    )
    assert sentences(text) == [
        "Setting `status: active` promotes a draft page.",
        "Setting `status: archived` unpublishes the page.",
    ]


def test_a_sentence_is_not_cut_inside_a_wiki_link_whose_text_holds_a_colon() -> None:
    """ "[[slug|Default Theme: Edit Link]]" stays inside its sentence: cut at its ':', the
    quote would show "[[slug|Default Theme:" and "Edit Link]]" as two broken sentences."""
    text = (
        "Edit Link shows a link to edit the page. See [[reference—edit-link|Default Theme: "
        "Edit Link]] for more details."
    )
    assert [u.text for u in units(text)] == [
        "Edit Link shows a link to edit the page.",
        "See [[reference—edit-link|Default Theme: Edit Link]] for more details.",
    ]
