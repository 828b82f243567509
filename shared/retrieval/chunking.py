"""Split a page's Markdown into chunks along its structure (pure).

Sections follow the headings (their path is kept as the chunk's ``heading``);
a fenced code block is never cut in the middle; long sections are packed into
pieces of at most ``max_chars`` with ``overlap`` characters carried over.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from threading import Lock

from shared import mkdocs
from shared.text.plaintext import PATH_SEPARATOR

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")  # indented too: a fence inside a list item


@dataclass(frozen=True, slots=True)
class Piece:
    """A chunk's text before it is embedded."""

    heading: str
    text: str


# The end of a chunk's last prose part that opens the next chunk (from a word boundary,
# anywhere in a sentence): a chunk's first paragraph that long or shorter may be one.
OVERLAP_CHARS = 100


def _blocks(markdown: str) -> list[tuple[int, str, str]]:
    """(heading level, heading text, block) per paragraph; fenced code stays whole."""
    out: list[tuple[int, str, str]] = []
    lines = markdown.splitlines()
    buffer: list[str] = []
    fence: str | None = None

    def flush() -> None:
        text = "\n".join(buffer).strip()
        if text:
            out.append((0, "", text))
        buffer.clear()

    for line in lines:
        if fence is not None:
            buffer.append(line)
            if line.strip().startswith(fence):
                fence = None
                flush()
            continue
        opening = FENCE.match(line)
        if opening:
            flush()
            fence = opening.group(1)
            buffer.append(line)
            continue
        heading = mkdocs.atx_heading(line)
        if heading:
            flush()
            out.append((heading[0], heading[1], ""))
        elif not line.strip():
            flush()
        else:
            buffer.append(line)
    flush()
    return out


def split_markdown(
    title: str, markdown: str, max_chars: int = 600, overlap: int = OVERLAP_CHARS
) -> list[Piece]:
    """The page's chunks, in order; every chunk carries its heading path.

    MkDocs blocks are read as their title and text, includes as the file's path
    (``shared.mkdocs.readable``): chunks are shown and embedded without markup.
    """
    key = (title, markdown, max_chars, overlap)
    pieces = _RECENT.get(key)
    if pieces is None:
        pieces = _split(title, markdown, max_chars, overlap)
        _RECENT.put(key, pieces)
    return list(pieces)


_Key = tuple[str, str, int, int]  # split_markdown's arguments


class _Recent:
    """The last pages' chunks, up to ``chars`` of their Markdown (thread-safe). The import
    asks for each page's chunks twice (its embed-ahead for the texts to embed, then the
    write itself), up to two embedding batches apart: the second asking is then free."""

    def __init__(self, chars: int) -> None:
        self.chars = chars
        self._held = 0
        self._pieces: OrderedDict[_Key, tuple[Piece, ...]] = OrderedDict()
        self._lock = Lock()

    def get(self, key: _Key) -> tuple[Piece, ...] | None:
        with self._lock:
            pieces = self._pieces.get(key)
            if pieces is not None:
                self._pieces.move_to_end(key)
            return pieces

    def put(self, key: _Key, pieces: tuple[Piece, ...]) -> None:
        with self._lock:
            if key in self._pieces:
                return
            self._pieces[key] = pieces
            self._held += len(key[1])
            while self._held > self.chars and len(self._pieces) > 1:
                (_, markdown, _, _), _ = self._pieces.popitem(last=False)
                self._held -= len(markdown)


_RECENT = _Recent(4_000_000)


def _split(title: str, markdown: str, max_chars: int, overlap: int) -> tuple[Piece, ...]:
    path: list[tuple[int, str]] = []
    sections: list[tuple[str, list[str]]] = []
    for level, heading, block in _blocks(mkdocs.readable(markdown)):
        if level:
            path = [(lvl, text) for lvl, text in path if lvl < level] + [(level, heading)]
            # The page's own title heading would only repeat the title on every chunk.
            shown = [t for lvl, t in path if not (lvl == 1 and t.strip() == title.strip())]
            sections.append((PATH_SEPARATOR.join(shown), []))
            continue
        if not sections:
            sections.append(("", []))
        sections[-1][1].append(block)

    pieces: list[Piece] = []
    for heading, blocks in sections:
        label = heading or title
        for text in _pack(blocks, max_chars, overlap):
            pieces.append(Piece(heading=label, text=text))
    if not pieces and title.strip():
        pieces.append(Piece(heading=title, text=title.strip()))
    return tuple(pieces)


def _pack(blocks: list[str], max_chars: int, overlap: int) -> list[str]:
    """Greedy packing of blocks into pieces; a lone oversized prose block is cut on spaces.

    The overlap carried into the next piece comes only from the last part packed, and
    only when that part is prose: a tail taken from code would open half a fence."""
    pieces: list[str] = []
    current = ""
    last = ""
    for block in blocks:
        # Cut long prose short enough that the overlap carried over still fits.
        for part in _cut_prose(block, max(max_chars - overlap - 2, max_chars // 2)):
            if current and len(current) + 2 + len(part) > max_chars:
                pieces.append(current)
                tail = _tail(last, overlap)
                current = (
                    f"{tail}\n\n{part}".strip()
                    if tail and len(tail) + len(part) < max_chars
                    else part
                )
            else:
                current = f"{current}\n\n{part}" if current else part
            last = part
    if current:
        pieces.append(current)
    return pieces


def _tail(part: str, overlap: int) -> str:
    """The end of a prose part, from a word boundary; nothing from code."""
    if not overlap or FENCE.match(part) or "```" in part or "~~~" in part:
        return ""
    tail = part[-overlap:]
    if len(part) > overlap:
        tail = tail[tail.find(" ") + 1 :] if " " in tail else ""
    return tail.strip()


def _cut_prose(block: str, max_chars: int) -> list[str]:
    if len(block) <= max_chars or FENCE.match(block):
        return [block]
    parts, rest = [], block
    while len(rest) > max_chars:
        cut = rest.rfind(" ", 0, max_chars)
        cut = cut if cut > max_chars // 2 else max_chars
        parts.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        parts.append(rest)
    return parts
