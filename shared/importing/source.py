"""A body read once by markdown-it: its lines and which of them are code or raw HTML.

Transforms ask ``Source`` where code is instead of guessing with their own fence rules:
a fenced block at any indentation (MDX and MkDocs indent blocks inside components and
admonitions) is code, and so is an indented code block in dialects that have one. The
parse is made on first use and reused until a transform changes the text, and even then
when the change is one no block can see (``edited``).

The blocks are read by markdown-it-pyrs (markdown-it's rules, compiled: four to eight
times faster than markdown-it-py's block parse, the costliest step of the import's own
path; bench/README.md). With indented code off, it lets a block start interrupt a
paragraph on a line indented four columns past its container, where markdown-it-py (the
site's renderer) reads that line as the paragraph's continuation; a text where that
happens is read by markdown-it-py instead (``_interrupts_deep``). On every file of the
five corpora the two then agree on every line of code and HTML, every fence and every
top-level paragraph, heading and quote (``tests/unit/test_importing_source.py``); on
random texts of block constructs, on the code and HTML lines of 99.8 % of them, the rest
differing mostly on the blank line that ends an unclosed block in a list item.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import cache
from itertools import accumulate
from typing import Literal

import markdown_it_pyrs
from markdown_it import MarkdownIt

_Rule = Literal[
    "blockquote", "fence", "heading", "hr", "lheading", "list", "paragraph", "reference",
    "html_block", "code",
]  # fmt: skip
# CommonMark's block rules: only blocks are asked for (code, raw HTML, quotes: lines and
# info strings), so inline text is never tokenized.
_BLOCK_RULES: tuple[_Rule, ...] = (
    "blockquote", "fence", "heading", "hr", "lheading", "list", "paragraph", "reference",
    "html_block",
)  # fmt: skip
_CONTAINERS = frozenset({"blockquote", "bullet_list", "ordered_list", "list_item"})
# The compiled parser's node names as markdown-it-py names the opening tokens (a setext
# heading is a heading there too); a leaf keeps its name.
_TOKEN_TYPES = {
    "paragraph": "paragraph_open",
    "heading": "heading_open",
    "lheading": "heading_open",
    "blockquote": "blockquote_open",
    "bullet_list": "bullet_list_open",
    "ordered_list": "ordered_list_open",
}
_ITEM_MARKER = re.compile(rb"(?:[-+*]|\d{1,9}[.)])")
# What a line may open on before its text: indentation, quote marks, list markers.
_PREFIX_MARKS = " \t>-+*.)0123456789"
MAX_PREFIX = 100


@cache
def _blocks_parser(indented_code: bool) -> markdown_it_pyrs.MarkdownIt:
    # MDX has no indented code and MkDocs indents block bodies: four spaces are not code
    # there, and a fence indented under a component is still a fence.
    md = markdown_it_pyrs.MarkdownIt("zero")
    for rule in (*_BLOCK_RULES, *(("code",) if indented_code else ())):
        md = md.enable(rule)
    return md


@cache
def _reference_parser(indented_code: bool) -> MarkdownIt:
    """markdown-it-py's block parse: where the compiled one reads a text otherwise
    (``_interrupts_deep``), nests too deep or cannot take it (``_parse``)."""
    md = MarkdownIt("commonmark").disable(["inline", "text_join"])
    return md if indented_code else md.disable("code")


@dataclass(frozen=True, slots=True)
class _Block:
    """A top-level block: its type as markdown-it-py names its opening token, its lines."""

    type: str
    level: int
    map: tuple[int, int]


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
    _tokens: list[_Block] = field(default_factory=list, repr=False)

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def _parse(self) -> None:
        data: bytes | None
        try:
            data = self.text.encode()
        except UnicodeEncodeError:
            # A lone surrogate has no UTF-8, which the compiled parser takes: no file read
            # as UTF-8 holds one, a caller's string might.
            data = None
        if data is None or _nests_deep(self.text):
            self._parse_reference()
            return
        tree = _blocks_parser(self.indented_code).tree(self.text)
        if not self.indented_code and _interrupts_deep(tree, data):
            self._parse_reference()
            return
        starts = list(accumulate((len(line) + 1 for line in data.split(b"\n")), initial=0))
        read = _Read(starts)
        read.walk(tree, 0)
        self._tokens = read.top
        self._code, self._html = frozenset(read.code), frozenset(read.html)
        self._fences = tuple(read.fences)

    def _parse_reference(self) -> None:
        code: set[int] = set()
        html: set[int] = set()
        fences: list[tuple[int, int, str]] = []
        tokens = _reference_parser(self.indented_code).parse(self.text)
        self._tokens = [
            _Block(t.type, t.level, (t.map[0], t.map[1]))
            for t in tokens
            if t.map is not None and t.level == 0 and t.nesting >= 0
        ]
        for token in tokens:
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


class _Read:
    """What one walk of the compiled parser's tree tells: the top-level blocks, the lines
    of code and raw HTML, the fences (byte offsets turned into 0-based lines)."""

    def __init__(self, starts: list[int]) -> None:
        self.starts = starts  # the byte offset each line starts at
        self.top: list[_Block] = []
        self.code: set[int] = set()
        self.html: set[int] = set()
        self.fences: list[tuple[int, int, str]] = []

    def lines(self, srcmap: tuple[int, int]) -> tuple[int, int]:
        first, end = srcmap
        line = bisect.bisect_right(self.starts, first) - 1
        last = bisect.bisect_right(self.starts, max(end - 1, first)) - 1
        return line, last + 1

    def walk(self, node: markdown_it_pyrs.Node, depth: int) -> None:
        for child in node.children:
            if child.srcmap is None:
                continue
            first, last = self.lines(child.srcmap)
            if depth == 0:
                self.top.append(_Block(_TOKEN_TYPES.get(child.name, child.name), 0, (first, last)))
            if child.name in ("fence", "code_block"):
                self.code.update(range(first, last))
                if child.name == "fence":
                    self.fences.append((first, last, str(child.meta.get("info", ""))))
            elif child.name == "html_block":
                self.html.update(range(first, last))
            elif child.name in _CONTAINERS:
                self.walk(child, depth + 1)


def _nests_deep(text: str) -> bool:
    """Whether a line opens on MAX_PREFIX characters or more of container marks and
    indentation: a nesting that deep (each level takes one at least) goes to
    markdown-it-py, which stops nesting at 20 levels, where the compiled parser has no
    limit (100,000 nested quotes overflow its stack and end the process) and the walks
    below would recurse past Python's limit."""
    return any(
        len(line) - len(line.lstrip(_PREFIX_MARKS)) >= MAX_PREFIX for line in text.split("\n")
    )


def _interrupts_deep(tree: markdown_it_pyrs.Node, data: bytes) -> bool:
    """Whether a block interrupts a paragraph on a line indented four columns or more past
    their container's content (the paragraph its sibling on the line before; in a tight
    list item a bare text node): markdown-it-py reads such a line as the paragraph's
    continuation, the compiled parser with indented code off does not. A tab in that
    line's indentation is not measured: it says yes."""

    def line_start(offset: int) -> int:
        return data.rfind(b"\n", 0, offset) + 1

    def check(node: markdown_it_pyrs.Node, column: int) -> bool:
        paragraph_end: int | None = None  # where the sibling before ends, a paragraph
        for child in node.children:
            if child.srcmap is None:
                continue
            start, end = child.srcmap
            here = line_start(start)
            indent = data[here:start]
            if paragraph_end is not None and data.count(b"\n", paragraph_end, here) <= 1:
                if b"\t" in indent:
                    return True
                if len(indent) - column >= 4 and not indent.strip(b" >"):
                    return True
            if child.name in _CONTAINERS and check(child, _content_column(start, child, data)):
                return True
            paragraph_end = end if child.name in ("paragraph", "text") else None
        return False

    return check(tree, 0)


def _content_column(start: int, node: markdown_it_pyrs.Node, data: bytes) -> int:
    """The column a container opening at byte ``start`` has its content at, read on its
    first line (the ASCII marks before it: spaces, '>', a list marker and its spaces)."""
    column = start - (data.rfind(b"\n", 0, start) + 1)
    if node.name == "blockquote":
        return column + 1 + (data[start + 1 : start + 2] == b" ")
    if node.name != "list_item":
        return column
    marker = _ITEM_MARKER.match(data, start)
    after = marker.end() if marker else start + 1
    line_end = data.find(b"\n", after)
    rest = data[after : line_end if line_end >= 0 else len(data)]
    spaces = len(rest) - len(rest.lstrip(b" "))
    # CommonMark: 1-4 spaces after the marker; more (code) or none on the line count as one.
    return column + (after - start) + (spaces if rest.strip() and spaces <= 4 else 1)


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
