"""One parse says where code is, for every transform: fences at any indentation, indented
code only in dialects that have it, raw HTML blocks apart; the compiled parser reads a
text as markdown-it-py does, or markdown-it-py reads it."""

from __future__ import annotations

import pytest

from shared.importing.source import Source
from shared.services.importer import markdown_files, split_front_matter
from tests.fixtures.corpora import CORPUS_SPECS, corpus_or_skip


def test_a_fence_indented_under_a_component_is_code() -> None:
    source = Source(
        "<Tabs>\n  <TabItem>\n\n    ```js\n    ::: tip\n    ```\n\n  </TabItem>\n</Tabs>\n"
    )
    assert source.code == frozenset({3, 4, 5})
    assert source.fences == ((3, 6, "js"),)


def test_indented_code_is_code_only_where_the_dialect_has_it() -> None:
    text = "Texto.\n\n    ::: tip\n    dentro\n"
    assert Source(text, indented_code=True).code == frozenset({2, 3})
    assert Source(text, indented_code=False).code == frozenset()


def test_a_script_block_is_raw_html_not_prose() -> None:
    source = Source("<script setup>\nimport X from './x'\n</script>\n\n# Título\n")
    assert {0, 1, 2} <= source.html
    assert 4 not in source.html


def test_outermost_blocks_are_listed_with_their_lines() -> None:
    source = Source("> [!NOTE]\n> uno\n\n```md\n> no\n```\n")
    assert source.blocks("blockquote") == [(0, 2)]


BODY = """# Título {#inicio}

Un párrafo con <b>HTML</b>
que sigue aquí.

- un punto
  con texto

Otro párrafo.

```js
código
```

[ref]: /x
Texto tras la referencia.
"""
# (line, new text, whether the parse may be kept): prose and headings edited in place
# keep it; a line that could start, end or join a block never does.
EDITS = [
    (0, "# Título", True),
    (2, "Un párrafo con **HTML**", True),
    (3, "Que sigue aquí.", True),
    (8, "Otro párrafo, cambiado.", True),
    (3, "```", False),  # a fence opens
    (3, "    sangrado", False),  # indentation changes
    (6, "  Con texto", False),  # inside a list item, not a top-level paragraph
    (8, "  Otro párrafo.", False),  # now indented: may continue the list
    (0, "Título", False),  # a heading no more
    (2, "<div>", False),  # raw HTML starts a block
    (16, "Texto tras la referencia, cambiado.", False),  # a reference decides its lines
    (8, "", False),  # a blank line ends blocks
]


def _answers(source: Source) -> tuple[object, ...]:
    return (source.code, source.html, source.fences, source.blocks("bullet_list"))


def test_an_edit_no_block_can_see_keeps_the_parse_and_any_other_reparses() -> None:
    """``edited`` keeps the parse only for edits of prose lines and headings in place, and
    either way tells what a new parse of the new text tells."""
    for line, text, keeps in EDITS:
        old = Source(BODY)
        assert old.code  # parsed
        lines = BODY.split("\n")
        lines[line] = text
        new = old.edited("\n".join(lines))
        assert (new._tokens is old._tokens) == keeps, (line, text)
        assert _answers(new) == _answers(Source(new.text)), (line, text)


def test_an_unparsed_body_edited_is_parsed_when_asked() -> None:
    """Nothing is kept from a body never parsed: the edited text is parsed on first use."""
    new = Source("Texto.\n").edited("```\ncódigo\n```\n")
    assert new.code == frozenset({0, 1, 2})


def _read(source: Source) -> tuple[object, ...]:
    """What the transforms ask of a parse: code and HTML lines, fences, and the top-level
    paragraphs, headings and quotes ``edited`` and ``blocks`` read."""
    kept = {"paragraph_open", "heading_open", "blockquote_open"}
    top = [(block.type, block.map) for block in source._tokens if block.type in kept]
    return (source.code, source.html, source.fences, top)


def _both(text: str) -> tuple[tuple[object, ...], tuple[object, ...]]:
    compiled, reference = Source(text), Source(text)
    compiled._parse()
    reference._parse_reference()
    return _read(compiled), _read(reference)


@pytest.mark.parametrize(
    "text",
    [
        # A fence indented four past the page after a paragraph line (astro-es MDX: the
        # closing fence of a block inside <Steps> the HTML block swallowed).
        "Un párrafo\n    </script>\n    ```\n\nTexto.\n\n    ```html\n    <p>x</p>\n    ```\n",
        # HTML indented eight in a tight list item, under its paragraph.
        "1. El contenido se convierte a:\n    <MultipleChoice>\n        <Option>HTML</Option>\n"
        "    </MultipleChoice>\n</Box>\n",
        # The same in a block quote, and a tab in the indentation.
        "> Cita\n>     <div>\n> x\n",
        "Texto\n\t```\n\tcódigo\n\t```\n",
    ],
)
def test_where_the_compiled_parse_would_differ_markdown_it_py_reads_the_text(
    text: str,
) -> None:
    """A block that interrupts a paragraph four columns past its container is a
    continuation line for markdown-it-py: such a text is read by it (the guard)."""
    compiled, reference = _both(text)
    assert compiled == reference


def test_the_guard_leaves_ordinary_texts_to_the_compiled_parse() -> None:
    """Fences under list items, nested lists and an admonition's indented body after a
    blank line are what the compiled parser reads as markdown-it-py does."""
    from shared.importing import source as module

    for text in (
        "- punto\n\n    ```py\n    x = 1\n    ```\n",
        "- uno\n    - dos\n        - tres\n",
        '!!! note "Nota"\n\n    Cuerpo de la nota.\n',
        "1. Paso:\n   ```js\n   run()\n   ```\n",
    ):
        tree = module._blocks_parser(False).tree(text)
        assert not module._interrupts_deep(tree, text.encode()), text
        compiled, reference = _both(text)
        assert compiled == reference, text


@pytest.mark.parametrize("name", list(CORPUS_SPECS))
def test_the_compiled_parse_reads_every_corpus_file_as_markdown_it_py(name: str) -> None:
    """Every body of the five real trees, both code settings: the same code and HTML
    lines, fences and top-level paragraphs, headings and quotes as markdown-it-py."""
    from markdown_it import MarkdownIt

    spec = corpus_or_skip(name)
    with_code = MarkdownIt("commonmark").disable(["inline", "text_join"])
    for path in markdown_files(spec.docs_dir):
        body = split_front_matter(path.read_text(encoding="utf-8-sig"))[1]
        compiled, reference = _both(body)
        assert compiled == reference, path
        tokens = with_code.parse(body)
        code = {
            n for t in tokens if t.type in ("fence", "code_block") and t.map for n in range(*t.map)
        }
        assert Source(body, indented_code=True).code == frozenset(code), path


@pytest.mark.parametrize(
    "text",
    [
        "> " * 100_000 + "x\n",  # the compiled parser alone would overflow its stack
        ("> - " * 20_000) + "x\n",
        "".join("  " * i + "- a\n" for i in range(1_500)),  # past Python's recursion limit
    ],
)
def test_a_nesting_too_deep_is_read_by_markdown_it_py_without_ending_the_process(
    text: str,
) -> None:
    """A hostile page nested tens of thousands of levels deep parses (markdown-it-py stops
    nesting at 20 levels) instead of crashing the import."""
    from shared.importing import source as module

    assert module._nests_deep(text)
    source = Source(text)
    assert source.code == frozenset()
    assert not module._nests_deep("    " * 20 + "```py\n")  # 80 columns: still compiled


def test_a_lone_surrogate_is_read_by_markdown_it_py() -> None:
    """The compiled parser takes UTF-8, which a lone surrogate has none of; markdown-it-py
    reads it with the dialect's own code setting."""
    assert Source("texto \ud800 roto\n\n```\nx\n```\n").code == frozenset({2, 3, 4})
    indented = "texto \ud800\n\n    código\n"
    assert Source(indented, indented_code=True).code == frozenset({2})
    assert Source(indented, indented_code=False).code == frozenset()
