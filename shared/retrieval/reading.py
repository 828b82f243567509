"""A chunk's Markdown read as an answer's material, in order (pure): sentences, list items
and table rows, fenced code, and examples included by path (``{* path *}``, ``{!path!}``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from shared.retrieval.chunking import OVERLAP_CHARS
from shared.retrieval.tokens import strip_invisible
from shared.text import wikilinks

UnitKind = Literal["sentence", "item", "code", "example"]

MIN_WORDS = 4
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")  # indented too: a fence inside a list item
_DIAGRAM = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})\s*(?:mermaid|dot|plantuml)\b", re.IGNORECASE)
_DIRECTIVE = re.compile(r"\{\*\s*(?P<path>\S+)[^}]*?\*\}")  # {* ../../docs_src/a.py hl[3] *}
_SNIPPET = re.compile(r"^\s*(?:\{!>?\s*(?P<a>[^!\s]+)\s*!\}|--8<--\s*\"(?P<b>[^\"]+)\")\s*$")
_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
FENCED_BLOCK = re.compile(r"^\s{0,3}(```+|~~~+)[^\n]*\n.*?^\s{0,3}\1[^\n]*$", re.M | re.S)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_ADMONITION = re.compile(r"^\s*(?P<marks>/{3,}|!!!|\?\?\?\+?)\s*(?P<kind>[\w-]*)")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+(?=[A-ZÁÉÍÓÚÑ¿¡`*\"'(\[])")
_LONE_MARKER = re.compile(r"\s+[-*+]$")
_RULE_CELL = re.compile(r"^:?-{3,}:?$")  # a table's header separator
_SKIPPED = ("#", "|", "{", ">")  # headings, table rows in prose, stray directives, quotes


@dataclass(frozen=True, slots=True)
class Unit:
    """One piece of a chunk: ``text`` is a cleaned sentence or item, a fenced block as
    written, or an example's path; ``block`` numbers the chunk's paragraphs and blocks."""

    kind: UnitKind
    text: str
    block: int
    aside: bool = False

    @property
    def prose(self) -> bool:
        return self.kind in ("sentence", "item")


def example_path(raw: str) -> str:
    """An include's path as the repository names it: ``../../docs_src/a.py`` is
    ``docs_src/a.py``."""
    path = raw.strip().strip("\"'")
    while path.startswith(("../", "./")):
        path = path.split("/", 1)[1]
    return path.lstrip("/")


def outside_code(text: str, change: Callable[[str], str]) -> str:
    """``text`` with ``change`` applied to all but its fenced blocks and inline code spans."""
    out: list[str] = []
    last = 0
    for block in FENCED_BLOCK.finditer(text):
        out += [_outside_spans(text[last : block.start()], change), block.group()]
        last = block.end()
    return "".join([*out, _outside_spans(text[last:], change)])


def _outside_spans(text: str, change: Callable[[str], str]) -> str:
    out: list[str] = []
    last = 0
    for span in CODE_SPAN.finditer(text):
        out += [change(text[last : span.start()]), span.group()]
        last = span.end()
    return "".join([*out, change(text[last:])])


def _clean(text: str) -> str:
    text = outside_code(text, lambda t: _IMAGE.sub("", _TAG.sub("", t)))
    # A bullet marker left alone at the end (a list the chunk cut before its text).
    # Wiki links stay links: the answer names their pages by title (``wikilinks.titled``),
    # where plain text would have shown the slug.
    return closed(_LONE_MARKER.sub("", " ".join(text.split())))


_LINK = re.compile(r"\[[^\[\]]*\]\([^()\s]*\)")
_ORPHAN_TAIL = re.compile(r"^[^\[`]*?\]\([^()\s]*\)\s*")
_TAG_START = re.compile(r"<[a-zA-Z/][^<>]*$")  # a tag chunking cut before its '>'
_LITERAL_STAR = re.compile(r"(?<!\S)\*+(?!\S)")
_TRAILING = " ,;:(\u2014-"
_CONTINUING_MARK = re.compile(r"(?:[,;:)\]}»]|\.(?!\.\.))")


def closed(text: str) -> str:
    """``text`` cut before the first construct it opens and never closes: a code span, a
    link, ``**`` or ``*`` emphasis, or an HTML tag that chunking cut in half. Quoted as it
    is, the reader would see the raw marks (``[parecida a un``, ``<abbr title="…``)."""
    # The tail of a link or image the chunk's overlap began inside ("… 10 44 00](url)").
    text = _ORPHAN_TAIL.sub("", text, count=1)
    cut = len(text)
    # Backticks left over once the complete spans are taken: the first opens a cut span.
    rest = CODE_SPAN.sub(lambda m: "\0" * len(m.group()), text)
    if "`" in rest:
        cut = rest.index("`")
    plain = _LINK.sub(lambda m: "\0" * len(m.group()), rest[:cut])
    if "[" in plain and "]" not in plain[plain.rindex("[") :]:
        cut = min(cut, plain.rindex("["))
    if (tag := _TAG_START.search(plain[:cut])) is not None:
        cut = min(cut, tag.start())
    for mark in ("**", "*"):
        bare = _LITERAL_STAR.sub("\0", plain[:cut])  # "2 * 3" emphasises nothing
        bare = bare.replace("**", "\0\0") if mark == "*" else bare
        if bare.count(mark) % 2:
            cut = min(cut, bare.rindex(mark))
    return text if cut == len(text) else text[:cut].rstrip(_TRAILING)


def _split_sentences(prose: str) -> list[str]:
    """Sentences of a paragraph, never cut inside an inline code span, a link or a wiki
    link."""
    spans = [m.span() for m in (*CODE_SPAN.finditer(prose), *_LINK.finditer(prose))]
    spans += wikilinks.spans(prose)
    cuts = [
        m
        for m in _SENTENCE_END.finditer(prose)
        if not any(start < m.start() < end for start, end in spans)
    ]
    pieces: list[str] = []
    last = 0
    for cut in cuts:
        pieces.append(prose[last : cut.start()])
        last = cut.end()
    pieces.append(prose[last:])
    return [p.strip() for p in pieces if p.strip()]


class _Reader:
    """Walks the lines once, keeping the block count and whether an aside is open."""

    def __init__(self) -> None:
        self.units: list[Unit] = []
        self.block = 0
        self.asides = 0  # open `///` admonitions
        self.indented_aside = False  # inside a `!!!`/`???` admonition's indented body
        self.paragraph: list[str] = []

    @property
    def aside(self) -> bool:
        return self.asides > 0 or self.indented_aside

    def add(self, kind: UnitKind, text: str) -> None:
        if text:
            self.units.append(Unit(kind, text, self.block, self.aside))

    def flush(self) -> None:
        lines, self.paragraph = self.paragraph, []
        if not lines:
            return
        if all(line.lstrip().startswith("|") for line in lines):
            for row in lines:  # a table: each row an item, its cells in order
                cells = [_clean(c) for c in row.strip().strip("|").split("|")]
                if any(cells) and not all(_RULE_CELL.match(c) for c in cells):
                    self.add("item", " — ".join(c for c in cells if c))
        elif any(_BULLET.match(line) for line in lines):
            for item in _items(lines):
                if item.startswith(_SKIPPED):
                    continue
                self.add("item", _clean(_BULLET.sub("", item)))
        else:
            prose = _clean(" ".join(lines))
            if not prose.startswith(_SKIPPED):
                for sentence in _split_sentences(prose):
                    self.add("sentence", sentence)
        self.block += 1

    def admonition(self, line: str) -> bool:
        """Handles an admonition or tab marker line; False when ``line`` is not one."""
        match = _ADMONITION.match(line)
        if match is None:
            return False
        self.flush()
        marks, kind = match.group("marks"), match.group("kind")
        if marks.startswith("/"):
            if kind == "tab":
                pass  # content tabs hold the main text, not an aside
            elif kind:
                self.asides += 1
            elif self.asides:
                self.asides -= 1
        else:
            self.indented_aside = True
        return True


def _items(lines: list[str]) -> list[str]:
    """List items with their wrapped continuation lines joined; text before the first
    bullet is its own item (a lead-in the chunk cut mid-way)."""
    items: list[str] = []
    for line in lines:
        if _BULLET.match(line) or not items:
            items.append(line.strip())
        else:
            items[-1] = f"{items[-1]} {line.strip()}"
    return items


def _dedented(lines: list[str]) -> str:
    """A fenced block as written, less the indentation of its closing fence: a fence
    inside a list item is indented with the item, and quoted on its own it would read
    as an indented block showing the fence marks (chunking may have stripped the
    opening line's indentation already)."""
    closing = lines[-1]
    indent = len(closing) - len(closing.lstrip(" "))
    return "\n".join(
        line[indent:] if line[:indent].strip(" ") == "" else line.lstrip(" ") for line in lines
    )


def units(markdown: str) -> list[Unit]:
    """The chunk's units in order (see the module docstring)."""
    reader = _Reader()
    lines = strip_invisible(markdown).splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        opening = _FENCE.match(line)
        if opening:
            reader.flush()
            fence = opening.group(1)
            body = [line]
            i += 1
            while i < len(lines):
                body.append(lines[i])
                i += 1
                if lines[i - 1].strip().startswith(fence[0] * len(fence)) and len(body) > 1:
                    break
            closing = fence[0] * len(fence)
            if len(body) == 1 or not body[-1].strip().startswith(closing):
                # The chunk ends inside the block: closed here, so the quote cannot
                # swallow what follows it into code.
                body.append(" " * (len(line) - len(line.lstrip(" "))) + closing)
            inner = [b for b in body[1:-1] if b.strip()]
            snippet = _SNIPPET.match(inner[0]) if len(inner) == 1 else None
            if snippet:
                reader.add("example", example_path(snippet.group("a") or snippet.group("b")))
            elif not _DIAGRAM.match(line):  # a diagram is not code anyone would copy
                reader.add("code", _dedented(body))
            reader.block += 1
            continue
        i += 1
        if reader.indented_aside and line.strip() and not line.startswith((" ", "\t")):
            reader.flush()
            reader.indented_aside = False
        if not line.strip():
            reader.flush()
        elif reader.admonition(line):
            continue
        elif _DIRECTIVE.search(line) or _SNIPPET.match(line):
            reader.flush()
            for match in _DIRECTIVE.finditer(line):
                reader.add("example", example_path(match.group("path")))
            snippet = _SNIPPET.match(line)
            if snippet:
                reader.add("example", example_path(snippet.group("a") or snippet.group("b")))
            reader.block += 1
        else:
            reader.paragraph.append(line)
    reader.flush()
    return reader.units


def continues_cut(text: str) -> bool:
    """Whether ``text`` is the rest of a sentence chunking cut: it opens in lower case or
    on punctuation that only continues one (", y también incluye:" once the tail of a
    link the overlap began inside is dropped). A page's own "..." is its writing."""
    return text[0].islower() or bool(_CONTINUING_MARK.match(text))


def opens_inside_sentence(text: str) -> bool:
    """Whether a chunk's text opens inside a sentence, as the overlap chunking carries from
    the chunk before usually does: on the rest of a cut sentence or on a link's tail."""
    head = text.lstrip()
    return bool(head) and (continues_cut(head) or _ORPHAN_TAIL.match(head) is not None)


def may_open_on_tail(text: str) -> bool:
    """Whether a chunk's first paragraph may be the tail the overlap chunking carried from
    the chunk before: it opens inside a sentence, or is no longer than a tail
    (``OVERLAP_CHARS``) — a tail opens at any word, "`https://…`. The blog…" as well as
    "y también…". Only the chunk before can tell (``evidence.whole_opening``)."""
    head = text.lstrip().partition("\n\n")[0].strip()
    return bool(head) and (opens_inside_sentence(head) or len(head) <= OVERLAP_CHARS)


def stands_alone(sentence: str) -> bool:
    """A sentence an answer can quote on its own: long enough, not a question, not a
    lead-in to something (':'), and not the tail of a sentence cut by chunking."""
    return (
        len(sentence) >= 25
        and not continues_cut(sentence)
        and len(sentence.split()) >= MIN_WORDS
        and not sentence.endswith(("?", ":"))
    )


def sentences(markdown: str) -> list[str]:
    """Prose sentences (and list items) of a chunk that can stand alone in an answer.

    Code, include directives, HTML tags and markers are removed; ``[[slug|text]]`` reads
    as its text. Questions (a page's own rhetorical ones), sentences ending in ':' (they
    introduce a list or code that is not shown) and fragments of under four words are
    left out.
    """
    shown = (wikilinks.as_text(u.text) for u in units(markdown) if u.prose)
    return [text for text in shown if stands_alone(text)]
