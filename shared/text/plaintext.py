"""Markdown read as plain text, for places that show words, not HTML: an answer's snippet,
a heading matched by its text, a page's summary in listings and search.

Built from markdown-it's tokens, so what counts as emphasis, a link or code is what the
site's renderer sees, not a second guess by regex: marks go, words stay (a link's and a
wiki link's text, a code span's content), images and HTML tags go (``<style>`` and
``<script>`` with their content). ``inline`` keeps every block's words; ``summary_text``
leaves out headings and code blocks, and reads MkDocs blocks as their words first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from shared import mkdocs
from shared.text import wikilinks

MAX_NESTING = 20  # text views need no deeper structure; bounds the parser's work
_TAG = re.compile(r"</?[A-Za-z][^>]{0,200}>")
_STYLE = re.compile(r"<(style|script)\b[^>]*>.*?</\1\s*>", re.S | re.I)  # CSS is no text
_CODE_BLOCKS = frozenset({"fence", "code_block"})

# Between a page title and its headings in a passage's path ("Guía › Instalar › Linux"):
# chunking writes it, the site's anchors read it back.
PATH_SEPARATOR = " › "


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # The site's preset (js-default: tables, strikethrough; raw HTML parsed as HTML).
    return MarkdownIt(
        "js-default",
        {"html": True, "linkify": False, "typographer": False, "maxNesting": MAX_NESTING},
    )


def inline(text: str) -> str:
    """``text``'s words without Markdown marks, whitespace collapsed (see the module)."""
    return _words(_parser().parse(wikilinks.as_text(text)), headings=True, code=True)


def summary_text(markdown: str) -> str:
    """A page's prose as plain text: no headings, no code blocks, no MkDocs block syntax
    or includes, whitespace collapsed."""
    readable = mkdocs.readable(markdown, titles=False, paths=False)
    return _words(_parser().parse(wikilinks.as_text(readable)), headings=False, code=False)


def _words(tokens: Sequence[Token], *, headings: bool, code: bool) -> str:
    out: list[str] = []
    in_heading = False
    for token in tokens:
        if token.type == "heading_open":
            in_heading = True
        elif token.type == "heading_close":
            in_heading = False
        elif token.type == "inline" and (headings or not in_heading):
            out.extend(_inline_words(token.children or ()))
        elif token.type in _CODE_BLOCKS and code:
            out.append(token.content)
        elif token.type == "html_block":
            out.append(_TAG.sub(" ", _STYLE.sub(" ", token.content)))
        out.append(" ")  # blocks never run into each other
    return " ".join("".join(out).split())


def _inline_words(children: Iterable[Token]) -> Iterable[str]:
    for child in children:
        if child.type in ("text", "code_inline"):
            yield child.content
        elif child.type in ("softbreak", "hardbreak", "image", "html_inline"):
            yield " "
