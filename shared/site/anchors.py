"""Which heading of a page a retrieved passage sits under, as the site's anchor (pure).

A chunk records its heading path as text (``Instalar › Con Docker``, chunking's
labels); the site gives each heading an id (``markdown.heading_anchors``). The path's
last heading is found among the page's headings by its plain text, the parents
deciding between headings that repeat a text; a path the page no longer has links the
page's top. One rule for ids, the site's: this module only matches.
"""

from __future__ import annotations

from collections.abc import Sequence

from shared.text import plaintext
from shared.text.fold import fold
from shared.text.plaintext import PATH_SEPARATOR


def _key(text: str) -> str:
    return " ".join(fold(plaintext.inline(text)).split())


def section_anchor(headings: Sequence[tuple[int, str, str]], path: str) -> str:
    """The id of the heading ``path`` ends with, among ``headings`` ((level, text, id),
    in page order); "" when none matches."""
    wanted = [_key(part) for part in path.split(PATH_SEPARATOR) if part.strip()]
    if not wanted:
        return ""
    best, best_parents = "", -1
    trail: list[tuple[int, str]] = []
    for level, text, anchor in headings:
        trail = [(lvl, t) for lvl, t in trail if lvl < level] + [(level, _key(text))]
        if trail[-1][1] != wanted[-1]:
            continue
        parents = sum(1 for _, t in trail[:-1] if t in wanted[:-1])
        if parents > best_parents:
            best, best_parents = anchor, parents
    return best


def plain_heading(path: str) -> str:
    """A heading path as plain text: no Markdown marks, no attribute lists."""
    return PATH_SEPARATOR.join(plaintext.inline(p) for p in path.split(PATH_SEPARATOR))
