"""Basic invariants of chunking for any Markdown: bounded, nothing lost, fences whole, stable."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.retrieval import chunking
from shared.retrieval.chunking import split_markdown

MAX = 600
_word = st.text(alphabet="abcdefghijklmnñopqrstuvwxyzáéí0123456789_", min_size=1, max_size=12)
_sentence = st.lists(_word, min_size=1, max_size=20).map(" ".join)
_paragraph = st.lists(_sentence, min_size=1, max_size=6).map(". ".join)
_heading = st.tuples(st.integers(1, 4), _sentence).map(lambda t: "#" * t[0] + " " + t[1])
_code = st.lists(_sentence, min_size=1, max_size=12).map(
    lambda lines: "```python\n" + "\n".join(lines) + "\n```"
)
MARKDOWN = st.lists(st.one_of(_paragraph, _heading, _code), max_size=10).map("\n\n".join)


def _fences(text: str) -> int:
    return len(re.findall(r"^\s{0,3}```", text, flags=re.M))


def _content_words(markdown: str) -> set[str]:
    """Words of prose and code (headings only name sections; fence lines are syntax)."""
    lines = markdown.splitlines()
    return {w for line in lines if not line.startswith(("#", "```")) for w in line.split()}


@settings(deadline=None)
@given(MARKDOWN)
def test_prose_chunks_are_bounded_and_fences_whole(markdown: str) -> None:
    """A chunk without code is at most the limit, none is blank, every fence in one is whole."""
    for piece in split_markdown("Título", markdown):
        assert piece.text.strip()
        assert _fences(piece.text) % 2 == 0, piece.text
        if "```" not in piece.text:
            assert len(piece.text) <= MAX, len(piece.text)


@settings(deadline=None)
@given(MARKDOWN)
def test_no_word_of_prose_or_code_is_lost(markdown: str) -> None:
    """Every word of the body's prose and code appears in some chunk."""
    seen = {w for piece in split_markdown("Título", markdown) for w in piece.text.split()}
    assert _content_words(markdown) <= seen


@settings(deadline=None)
@given(MARKDOWN)
def test_chunking_is_deterministic(markdown: str) -> None:
    """The same page gives the same chunks (their hashes let vectors be reused)."""
    assert split_markdown("T", markdown) == split_markdown("T", markdown)


def test_a_chunk_never_holds_half_a_fence() -> None:
    """The overlap after prose + code + prose never starts in the middle of the code block."""
    code = "```python\n" + "\n".join(f"valor_{i} = {i}" for i in range(12)) + "\n```"
    markdown = "Texto de introducción " * 20 + "\n\n" + code + "\n\n" + "Y después más prosa " * 30
    for piece in split_markdown("T", markdown):
        assert _fences(piece.text) % 2 == 0, piece.text


def test_an_empty_page_still_has_one_chunk_of_its_title() -> None:
    """A page with no body is still findable by its title."""
    pieces = split_markdown("Solo título", "")
    assert [(p.heading, p.text) for p in pieces] == [("Solo título", "Solo título")]


def test_a_page_asked_twice_gets_equal_chunks_it_may_change_freely() -> None:
    """The second asking for a page's chunks is served from the recent pages and equals
    the first; a caller changing its list changes nobody else's."""
    text = "# Guía\n\nUn párrafo de prueba.\n\n## Uso\n\nOtro párrafo."
    first = split_markdown("Guía", text)
    assert len(first) == 2
    first.clear()
    assert split_markdown("Guía", text) == list(chunking._split("Guía", text, 600, 100))


def test_the_recent_pages_hold_no_more_markdown_than_their_budget() -> None:
    """Past its budget of characters the oldest pages are let go (the newest is kept)."""
    recent = chunking._Recent(chars=10)
    recent.put(("a", "x" * 6, 600, 100), ())
    recent.put(("b", "y" * 6, 600, 100), ())
    assert recent.get(("a", "x" * 6, 600, 100)) is None
    assert recent.get(("b", "y" * 6, 600, 100)) == ()
    recent.put(("c", "z" * 50, 600, 100), ())
    assert recent.get(("c", "z" * 50, 600, 100)) == ()
    assert recent.get(("b", "y" * 6, 600, 100)) is None
