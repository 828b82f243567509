"""The import's fidelity measure: a source's prose words against the built page's words,
the source syntax a reader would see, the constructs nobody understood."""

from __future__ import annotations

import threading
from collections import Counter

from shared.dialects.constructs import Constructs
from shared.services.fidelity import (
    POOL_FROM_FILES,
    Fidelity,
    Measuring,
    PageText,
    kept_share,
    measure,
    unknown,
)
from shared.text.prose import source_words
from shared.workers import can_fork

SPANISH = """# Configuración del servidor

La aplicación lee su configuración al arrancar. Cada opción tiene un valor
por defecto razonable, y el archivo puede sobrescribirlo.

## Despliegue

Publicar el sitio consiste en copiar la carpeta generada al servidor estático.
"""

ENGLISH = """# Installing the tool

Install the package with your usual manager, then run the first command.

1. Create a virtual environment.
2. Install the requirements.
"""


def test_a_spanish_page_rendered_as_written_keeps_every_word() -> None:
    """Accents fold on both sides: 'Configuración' in the source is 'configuracion' built."""
    page = measure(SPANISH, SPANISH)
    assert page.kept == 1.0
    assert not page.lossy
    assert page.raw == ()


def test_an_english_page_rendered_as_written_keeps_every_word() -> None:
    """An ordered list's numbers are the list's, not words the page must show."""
    assert measure(ENGLISH, ENGLISH).kept == 1.0


def test_a_dropped_paragraph_is_lossy() -> None:
    """One of three paragraphs missing from the stored form: well under 98 % kept."""
    stored = SPANISH.replace("Publicar el sitio consiste en copiar la carpeta generada", "")
    page = measure(SPANISH, stored)
    assert page.lossy
    assert 0.6 < page.kept < 0.9


def test_a_repeated_word_must_be_kept_as_often_as_written() -> None:
    """Counts matter: a paragraph dropped whose words occur elsewhere is still a loss."""
    wanted = Counter({"servidor": 3, "sitio": 1})
    assert kept_share(wanted, Counter({"servidor": 1, "sitio": 1})) == 0.5


def test_code_is_no_prose_in_the_source() -> None:
    """A fence's and a code span's words are not asked of the page: dropping them is no
    loss of prose (the mkdocstrings and include families put other code in their place)."""
    source = "Texto del párrafo `inline_code()` aquí.\n\n```python\ndef oculto(): pass\n```\n"
    assert set(source_words(source)) == {"texto", "del", "parrafo", "aqui"}
    assert measure(source, "Texto del párrafo aquí.\n").kept == 1.0


def test_markup_is_no_prose_but_titles_and_link_texts_are() -> None:
    """Tags, import lines, expressions, link targets, images, comments and directive
    names go; a directive's title and a link's text stay."""
    source = (
        "import Tabs from '@theme/Tabs';\n"
        "export const meta = {a: 1};\n\n"
        '<Tabs groupId="pm">\n<TabItem value="npm">\n\nHola mundo\n\n</TabItem>\n</Tabs>\n\n'
        ":::tip[Consejo útil]\ndentro\n:::\n\n"
        "::: warning Cuidado\nfuera\n:::\n\n"
        '!!! note "Nota breve"\n    cuerpo indentado\n\n'
        "Ver [la guía](../guia/index.md#parte) y ![logo](img/logo.png) {#ancla}\n"
        "<!-- comentario oculto -->{/* otro */}\n"
    )
    assert set(source_words(source)) == {
        "hola",
        "mundo",
        "consejo",
        "util",
        "dentro",
        "cuidado",
        "fuera",
        "nota",
        "breve",
        "cuerpo",
        "indentado",
        "ver",
        "la",
        "guia",
        "y",
    }


def test_an_api_directive_and_its_options_are_no_prose() -> None:
    """``::: pkg.mod.Obj`` with its indented options is rendered from the code."""
    options = "    options:\n      show_root_heading: true\n"
    source = f"Antes.\n\n::: textual.app.App\n{options}\nDespués.\n"
    assert set(source_words(source)) == {"antes", "despues"}


def test_text_after_an_unclosed_comment_or_script_is_still_prose() -> None:
    """An unclosed ``<!--`` or ``<script>`` hides nothing in the measure: a pipeline that
    swallows the rest of the page is then seen to lose it."""
    source = "Primero.\n\n<!-- sin cerrar\n\nSegundo párrafo.\n\n<script>\nTercero.\n"
    assert {"primero", "segundo", "parrafo", "tercero"} <= set(source_words(source))


def test_source_syntax_shown_to_a_reader_is_raw() -> None:
    """A directive marker left in the stored form reaches the reader: named, with a sample."""
    page = measure("Hola.\n", "Hola.\n\n::: tip Consejo\n\nTexto.\n")
    assert [kind for kind, _ in page.raw] == ["directive"]
    assert "::: tip" in page.raw[0][1]


def test_a_raw_title_is_raw_too() -> None:
    """The page's title is shown in the page and the nav: a heading id left in it counts."""
    page = measure("Hola.\n", "Hola.\n", title="Instalar {#instalar}")
    assert "brace-hash" in dict(page.raw)


def test_source_syntax_inside_code_is_not_raw() -> None:
    """In a code block, source syntax is what the page documents."""
    stored = "Ejemplo:\n\n```md\n::: tip\n<Tabs>\n```\n"
    assert measure("Ejemplo:\n", stored).raw == ()


def test_a_link_to_another_page_keeps_its_text() -> None:
    """Relative ``.md`` links become link markers when rendered; their text is measured."""
    source = "Lee [la guía de instalación](instalar.md) primero.\n"
    assert measure(source, source, slug="inicio").kept == 1.0


def test_fidelity_lists_lossy_and_raw_pages_and_says_when_faithful() -> None:
    """The report's shape: pages measured, each lossy page with its share, raw entries."""
    fidelity = Fidelity()
    fidelity.page(PageText("a.md", SPANISH, SPANISH))
    assert fidelity.faithful
    fidelity.page(PageText("b.md", SPANISH, "# Configuración del servidor\n"))
    fidelity.page(PageText("c.md", "Hola.\n", "Hola.\n\n:::note\n"))
    out = fidelity.as_dict()
    assert out["pages"] == 3
    assert [e["file"] for e in out["lossy"]] == ["b.md"]
    assert out["lossy"][0]["kept"] < 0.2
    assert [(e["file"], e["construct"]) for e in out["raw"]] == [("c.md", "directive")]
    assert not fidelity.faithful
    assert fidelity.summary()["files"] == ["b.md", "c.md"]


def test_a_page_whose_write_was_refused_is_taken_back() -> None:
    """A file measured, then refused at its write (a bad status), is no page of the
    import: neither counted nor listed as lossy or raw."""
    fidelity = Fidelity()
    fidelity.page(PageText("a.md", SPANISH, SPANISH))
    fidelity.page(PageText("b.md", SPANISH, "# Configuración del servidor\n"))
    fidelity.discard("b.md")
    assert fidelity.as_dict()["pages"] == 1
    assert fidelity.faithful


def test_unknown_components_are_counted_by_name() -> None:
    """A component no dialect maps (dropped tags, kept children) is named with its count;
    a mapped one, an HTML element and a fragment are not unknown."""
    constructs = Constructs()
    constructs.count("mdx-component:ScrimbaLink", "dropped", 9)
    constructs.count("component:Sandpack", "dropped", 2)
    constructs.count("mdx-component:Tabs", "mapped", 4)
    constructs.count("mdx-component:div", "dropped", 3)
    constructs.count("mdx-component:Fragment", "dropped", 1)
    constructs.count("unknown:directive:foo", "mapped", 1)
    assert unknown(constructs) == {
        "component:Sandpack": 2,
        "component:ScrimbaLink": 9,
        "directive:foo": 1,
    }


def test_pages_measured_in_worker_processes_give_the_same_report_in_order() -> None:
    """A tree big enough for the pool: the pages measured by a worker process are added
    in the order they were sent, with the same figures as measured in line, and a page
    taken back before it was added is neither counted nor listed."""
    pages = [
        PageText("a.md", SPANISH, SPANISH),
        PageText("b.md", SPANISH, "# Configuración del servidor\n"),
        PageText("c.md", "Hola.\n", "Hola.\n\n:::note\n"),
        PageText("d.md", SPANISH, "Nada.\n"),
        PageText("e.md", "Adiós.\n", "Adiós.\n\n:::tip\n"),
    ]
    in_line = Fidelity()
    for page in pages:
        in_line.page(page)
    in_line.discard("d.md")
    pooled = Fidelity()
    alone = can_fork()  # checked before the pool's own threads start on entering
    with Measuring(pooled, POOL_FROM_FILES, processes=1):
        # The pages below go to the worker (unless a thread left by another test runs, or
        # an earlier test loaded gRPC: then no fork, and the same report all the same).
        assert (pooled.pool is not None) == alone
        for page in pages:
            pooled.page(page)
        pooled.discard("d.md")
    assert pooled.pool is None
    assert pooled.as_dict() == in_line.as_dict()
    assert [e["file"] for e in pooled.as_dict()["lossy"]] == ["b.md"]


def test_a_small_tree_is_measured_in_line() -> None:
    """Under ``POOL_FROM_FILES`` files no worker is forked: the page is measured at once."""
    fidelity = Fidelity()
    with Measuring(fidelity, POOL_FROM_FILES - 1, processes=1):
        assert fidelity.pool is None
        fidelity.page(PageText("a.md", SPANISH, SPANISH))
        assert fidelity.pages == 1


def test_a_process_with_another_thread_measures_in_line() -> None:
    """No worker is forked while another thread runs (it could hold a lock the fork would
    copy held): a threaded server's import measures each page at once."""
    release = threading.Event()
    other = threading.Thread(target=release.wait, daemon=True)
    other.start()
    try:
        fidelity = Fidelity()
        with Measuring(fidelity, POOL_FROM_FILES, processes=1):
            assert fidelity.pool is None
            fidelity.page(PageText("a.md", SPANISH, SPANISH))
            assert fidelity.pages == 1
    finally:
        release.set()
        other.join()
