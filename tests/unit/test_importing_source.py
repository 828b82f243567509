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
