"""One parse says where code is, for every transform: fences at any indentation, indented
code only in dialects that have it, raw HTML blocks apart."""

from __future__ import annotations

from shared.importing.source import Source


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
