"""What a merge gives the page that stays: the sections, sources, related pages and
tags only the merged page had (pure).

A section of OTHER is "only OTHER's" when KEEP has no section of the same heading
(folded) and none whose shingles mostly agree with it: a restated section is not
appended twice. Sections are cut at the page's ``##``-and-deeper headings outside code
fences; the text before the first one (OTHER's introduction) restates what KEEP's own
says and is left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from shared import mkdocs
from shared.dedup.signature import minhash, shingles, similarity, words
from shared.retrieval.chunking import FENCE
from shared.text.fold import fold

RESTATED = 0.5  # MinHash similarity above which OTHER's section is already KEEP's


@dataclass(frozen=True, slots=True)
class Block:
    heading: str  # folded heading text ("" for the introduction)
    markdown: str  # the heading line and its body, as written


def blocks(markdown: str) -> list[Block]:
    """The introduction and each ``##``-or-deeper section of ``markdown``, in order."""
    out: list[Block] = []
    heading, lines = "", list[str]()
    fence: str | None = None
    for line in markdown.splitlines():
        if fence is None:
            opening = FENCE.match(line)
            found = None if opening else mkdocs.atx_heading(line)
            if opening:
                fence = opening.group(1)
            elif found is not None and found[0] >= 2:
                out.append(Block(heading, "\n".join(lines).strip("\n")))
                heading, lines = fold(found[1]).strip(), list[str]()
        elif line.strip().startswith(fence):
            fence = None
        lines.append(line)
    out.append(Block(heading, "\n".join(lines).strip("\n")))
    return [b for b in out if b.markdown.strip()]


def only_in(other: str, keep: str) -> list[Block]:
    """OTHER's sections KEEP does not have (see the module docstring)."""
    kept = [b for b in blocks(keep) if b.heading]
    headings = {b.heading for b in kept}
    signatures = [minhash(shingles(words(b.markdown))) for b in kept]
    out = []
    for block in blocks(other):
        if not block.heading or block.heading in headings:
            continue
        mine = minhash(shingles(words(block.markdown)))
        if all(similarity(mine, s) < RESTATED for s in signatures):
            out.append(block)
    return out


def merged_content(keep: str, other: str) -> str | None:
    """KEEP's text with OTHER's own sections appended; None when there are none."""
    extra = only_in(other, keep)
    if not extra:
        return None
    return keep.rstrip("\n") + "\n\n" + "\n\n".join(b.markdown for b in extra) + "\n"


def merged_metadata(
    keep_slug: str, keep: Mapping[str, Any], other_slug: str, other: Mapping[str, Any]
) -> dict[str, Any]:
    """The front-matter keys of KEEP that gain something from OTHER (only those)."""
    out: dict[str, Any] = {}
    sources, extra = list(keep.get("sources") or []), list(other.get("sources") or [])
    known = {(s.get("type"), s.get("ref")) for s in sources if isinstance(s, Mapping)}
    added = [
        s for s in extra if isinstance(s, Mapping) and (s.get("type"), s.get("ref")) not in known
    ]
    if added:
        out["sources"] = [*sources, *added]
    had = [str(r) for r in keep.get("related") or []]
    related = [r for r in had if r != other_slug]  # KEEP would name itself once merged
    gained = [
        str(r)
        for r in other.get("related") or []
        if str(r) not in related and str(r) not in (keep_slug, other_slug)
    ]
    if gained or related != had:
        out["related"] = [*related, *gained]
    tags = [str(t) for t in keep.get("tags") or []]
    new_tags = [str(t) for t in other.get("tags") or [] if str(t) not in tags]
    if new_tags:
        out["tags"] = [*tags, *new_tags]
    return out
