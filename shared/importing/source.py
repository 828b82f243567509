"""A body read once by markdown-it: its lines and which of them are code or raw HTML.

Transforms ask ``Source`` where code is instead of guessing with their own fence rules:
a fenced block at any indentation (MDX and MkDocs indent blocks inside components and
admonitions) is code, and so is an indented code block in dialects that have one. The
parse is made on first use and reused until a transform changes the text.
"""

from __future__ import annotations

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

    def marked(self) -> list[tuple[str, bool]]:
        """Each line with whether it is code: what ``mkdocs.fenced`` told line passes."""
        code = self.code
        return [(line, n in code) for n, line in enumerate(self.lines)]
