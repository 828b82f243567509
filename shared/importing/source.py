"""A body read once by markdown-it: its lines and which of them are code or raw HTML.

Transforms ask ``Source`` where code is instead of guessing with their own fence rules:
a fenced block at any indentation (MDX and MkDocs indent blocks inside components and
admonitions) is code, and so is an indented code block in dialects that have one. The
parse is made on first use and reused until a transform changes the text, and even then
when the change is one no block can see (``edited``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.token import Token


@cache
def _parser(indented_code: bool) -> MarkdownIt:
    # Only the blocks are asked for (code, raw HTML, quotes: lines and info strings), so
    # inline text is never tokenized: that was most of the parse, and each transform that
    # changes the body pays for one again.
    md = MarkdownIt("commonmark").disable(["inline", "text_join"])
    if not indented_code:
        # MDX has no indented code and MkDocs indents block bodies: four spaces are not
        # code there, and a fence indented under a component is still a fence.
        md.disable("code")
    return md


# A line no CommonMark block can start on or be ended by: up to three spaces, then a
# letter (blocks start with spaces, ``#>-*+_=`~<[``, a digit or a tab; a letter starts
# or continues a paragraph, nothing else).
_PROSE = re.compile(r" {0,3}[^\W\d_]")
_ATX = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")  # an ATX heading, whatever its text


@dataclass
class Source:
    """One body; ``code`` and ``html`` are 0-based line numbers, parsed on first use."""

    text: str
    indented_code: bool = False
    _code: frozenset[int] | None = field(default=None, repr=False)
    _html: frozenset[int] | None = field(default=None, repr=False)
    _fences: tuple[tuple[int, int, str], ...] = field(default=(), repr=False)
    _tokens: list[Token] = field(default_factory=list, repr=False)

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def _parse(self) -> None:
        code: set[int] = set()
        html: set[int] = set()
        fences: list[tuple[int, int, str]] = []
        self._tokens = _parser(self.indented_code).parse(self.text)
        for token in self._tokens:
            if token.map is None:
                continue
            first, last = token.map
            if token.type in ("fence", "code_block"):
                code.update(range(first, last))
                if token.type == "fence":
                    fences.append((first, last, token.info))
            elif token.type == "html_block":
                html.update(range(first, last))
        self._code, self._html, self._fences = frozenset(code), frozenset(html), tuple(fences)

    @property
    def code(self) -> frozenset[int]:
        """Lines inside fenced or indented code, the fences included."""
        if self._code is None:
            self._parse()
        assert self._code is not None
        return self._code

    @property
    def html(self) -> frozenset[int]:
        """Lines of raw HTML blocks (``<script>`` … ``</script>`` and friends)."""
        if self._html is None:
            self._parse()
        assert self._html is not None
        return self._html

    @property
    def fences(self) -> tuple[tuple[int, int, str], ...]:
        """Each fenced block as (first line, line after its end, info string)."""
        if self._code is None:
            self._parse()
        return self._fences

    def blocks(self, kind: str) -> list[tuple[int, int]]:
        """The line spans of the outermost blocks of ``kind`` (``blockquote`` …)."""
        if self._code is None:
            self._parse()
        return [
            (t.map[0], t.map[1])
            for t in self._tokens
            if t.type == f"{kind}_open" and t.level == 0 and t.map is not None
        ]

    def edited(self, text: str) -> Source:
        """``text``, a transform's output from this body, as a ``Source``; it keeps this
        body's parse when no block can have changed (``_same_blocks``), else is parsed
        anew on first use. What a ``Source`` tells (code, HTML, fences, block spans) is
        then the same as a new parse would tell: only the text of paragraphs and
        headings, which no transform reads from the tokens, is this body's."""
        kept = Source(text, self.indented_code)
        if self._code is not None and _same_blocks(self, text.split("\n")):
            kept._code, kept._html, kept._fences = self._code, self._html, self._fences
            kept._tokens = self._tokens
        return kept

    def marked(self) -> list[tuple[str, bool]]:
        """Each line with whether it is code: what ``mkdocs.fenced`` told line passes."""
        code = self.code
        return [(line, n in code) for n, line in enumerate(self.lines)]


def _same_blocks(old: Source, lines: list[str]) -> bool:
    """Whether ``lines`` (the same count as ``old``'s) parse into ``old``'s blocks: each
    changed line is, in ``old``'s parse, in a top-level paragraph and, before and after,
    a prose line (``_PROSE``) with the same indentation, or is a top-level ATX heading
    and still one.

    Why that is enough: a prose line starts no block and ends none, so a paragraph's
    lines (and the lists or quotes whose continuation it decides, by its indentation
    alone) stay as they were. Its first line is only safe after a blank line (or first),
    where nothing before it can take it as a continuation; a paragraph that opens with
    ``[`` may be a reference definition, decided by all its lines, so it is never kept.
    A heading is one line that interrupts anything and continues nothing.
    """
    before = old.lines
    if len(before) != len(lines):
        return False
    starts: dict[int, int] = {}  # line -> first line of its top-level paragraph
    headings: set[int] = set()
    for token in old._tokens:
        if token.level != 0 or token.map is None:
            continue
        if token.type == "paragraph_open":
            starts.update(dict.fromkeys(range(*token.map), token.map[0]))
        elif token.type == "heading_open":
            headings.add(token.map[0])
    for n, (was, now) in enumerate(zip(before, lines, strict=True)):
        if was == now:
            continue
        if n in headings and _ATX.match(was) and _ATX.match(now):
            continue
        start = starts.get(n)
        if start is None or not (_PROSE.match(was) and _PROSE.match(now)):
            return False
        if len(was) - len(was.lstrip(" ")) != len(now) - len(now.lstrip(" ")):
            return False
        if before[start].lstrip(" ").startswith("["):
            return False
        if n == start and n > 0 and (before[n - 1].strip() or lines[n - 1].strip()):
            return False
    return True
