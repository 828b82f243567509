"""The offline enrichers: each reads a page and what the worker fetched for it (plain
values) and returns at most one ``Suggestion``, the metadata (or text) a proposal would
write, or None.

Every enricher only adds what is missing, so a page that took a suggestion makes the same
enricher suggest nothing new (no loops), and none of them invents: ``sources`` names only
paths the code index holds, ``tags`` only tags other pages carry, ``links`` only pages
that exist, ``description`` only a sentence of the page itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from shared.gates.staleness import prose
from shared.retrieval.reading import sentences
from shared.schema import MAX_DESCRIPTION
from shared.text import plaintext, wikilinks
from shared.text.code_paths import cited_paths, path_key
from shared.text.fold import fold
from shared.text.sections import INDEX_NAMES

ENRICHERS = ("sources", "related", "description", "tags", "links")
MAX_SOURCES = 20  # new code sources one proposal adds (a page naming more is a listing)
MAX_RELATED = 5
# Two pages are related when each is the other's nearest page by meaning and they sit in
# different folders (the slug's parts before its last). Nearness alone is not enough: on
# the corpora, pages among each other's MUTUAL_RANK nearest are pages the authors linked
# less than two times in three, even with a shared source or link target to back them.
# Each other's nearest, they are linked four times in five, and every miss is two pages
# of one folder (a cookie parameter and a cookie model): siblings the site's navigation
# already shows side by side, which the authors do not link (bench/enrich.py,
# docs/enrich.md). A likeness below RELATED_FLOOR is never a relation.
MUTUAL_RANK = 2
RELATED_FLOOR = 0.55
LINK_MATCH = 0.85  # how close a broken link's target must be to a page's slug or title
# How much closer the best page must be than the next: a broken target that reads like
# two pages (a dropped suffix of ``x-intro`` and ``x-toc``) names neither for sure.
LINK_MARGIN = 0.04
# Symbols written as dotted names in code spans: ``fastapi.routing.APIRouter``.
_DOTTED = re.compile(r"`([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+)`")
_LINK = re.compile(r"\[\[([^\[\]\n]+)\]\]")
_SECTION = re.compile(r"(?m)^#{2,6} ")
_STEP = re.compile(r"\d+(?:[-_.]|$)")  # a slug part that numbers a step: ``2``, ``1-setup``


@dataclass(frozen=True, slots=True)
class PageView:
    """The page an enricher reads: its slug, front matter (as stored) and text."""

    slug: str
    front_matter: Mapping[str, Any]
    content: str

    @property
    def title(self) -> str:
        return str(self.front_matter.get("title") or self.slug)

    def listed(self, key: str) -> list[Any]:
        value = self.front_matter.get(key)
        return list(value) if isinstance(value, list) else []


@dataclass(frozen=True, slots=True)
class Suggestion:
    """What one enricher proposes for one page: ``metadata`` (and ``content`` for
    ``links``) as a proposal writes them, ``added`` what is new in it (one line each,
    also what makes the same suggestion never proposed twice)."""

    enricher: str
    metadata: dict[str, Any]
    added: tuple[str, ...]
    content: str | None = None

    def digest(self) -> str:
        return json.dumps(sorted(self.added), ensure_ascii=False)


# -- sources ----------------------------------------------------------------------------


def named_paths(content: str) -> list[str]:
    """The code paths the page's prose names (the archive gate's rules: a folder or a bare
    file name is not a path) and the module paths its dotted symbols name
    (``pkg.mod.Name`` -> ``pkg/mod.py``, ``pkg/mod/Name.py``), first spelling kept."""
    text = prose(content)
    found: dict[str, str] = {}
    for path in cited_paths(text):
        found.setdefault(path_key(path), path)
    for match in _DOTTED.finditer(text):
        parts = match.group(1).split(".")
        for end in range(2, len(parts) + 1):
            candidate = "/".join(parts[:end]) + ".py"
            found.setdefault(path_key(candidate), candidate)
    return list(found.values())


def suggest_sources(
    page: PageView, candidates: Sequence[str], found: Collection[str], today: str
) -> Suggestion | None:
    """``candidates`` (``named_paths``) the code index holds (``found``: their keys) and the
    page's sources lack, as ``code`` sources seen ``today``."""
    sources = page.listed("sources")
    have = {
        path_key(str(s.get("ref", "")))
        for s in sources
        if isinstance(s, Mapping) and s.get("type") == "code"
    }
    new = [p for p in candidates if path_key(p) in found and path_key(p) not in have]
    new = _outermost(new)[:MAX_SOURCES]
    if not new:
        return None
    added = [{"type": "code", "ref": p, "last_seen": today} for p in new]
    return Suggestion("sources", {"sources": [*sources, *added]}, tuple(new))


def _outermost(paths: list[str]) -> list[str]:
    """Drop a symbol's guessed module when a longer guess of the same symbol resolved:
    ``a/b.py`` and ``a/b/c.py`` both found keeps the one the text means, the longer."""
    keys = [path_key(p) for p in paths]
    return [
        p
        for p, k in zip(paths, keys, strict=True)
        if not any(o != k and o.startswith(k.removesuffix(".py") + "/") for o in keys)
    ]


# -- related ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Neighbour:
    """Another active page near this one: the cosine of the page to its closest chunk,
    whether each is among the other's ``MUTUAL_RANK`` nearest pages (``closest``: each is
    the other's nearest), how many code sources and link targets they share, whether
    either links the other, its tags."""

    slug: str
    cosine: float
    shared_sources: int = 0
    linked: bool = False
    tags: tuple[str, ...] = field(default_factory=tuple)
    mutual: bool = False
    shared_links: int = 0
    closest: bool = False


def folder_of(slug: str) -> str:
    """The folder a slug's page sits in: its parts before the last (``a—b—c`` -> ``a—b``)."""
    return slug.rpartition("—")[0]


def is_step(slug: str) -> bool:
    """Whether the slug's page is a step of a numbered series: one of its parts is a
    number or starts with one (``tutorial—1-setup—2``, ``01-intro``), the order the
    authors gave the series in its file names."""
    return any(_STEP.match(part) for part in slug.split("—"))


def is_landing(slug: str) -> bool:
    """Whether the slug's page is a folder's landing page (``styles—index``)."""
    return slug.rpartition("—")[2] in INDEX_NAMES


def is_related(n: Neighbour, slug: str) -> bool:
    """Whether ``n`` treats the same topic as the page ``slug`` and the site does not
    already show them together: each the other's nearest page by meaning, in different
    folders, neither a step of a numbered series, not both landing pages.

    A step is near the pages on what it teaches, but it is read in its series' order
    (the navigation's previous and next chain it) and its authors link it to nothing
    for likeness: on the corpora, every step nearest a page of another folder (a step of
    the next chapter, the install guide beside the setup step) was a pair they never
    linked. Two landing pages are near because both list their folders' pages, not
    because they share a topic."""
    return (
        n.closest
        and n.cosine >= RELATED_FLOOR
        and folder_of(n.slug) != folder_of(slug)
        and not (is_step(n.slug) or is_step(slug))
        and not (is_landing(n.slug) and is_landing(slug))
    )


def suggest_related(page: PageView, neighbours: Sequence[Neighbour]) -> Suggestion | None:
    """The neighbours that are related (``is_related``) and not yet in ``related``, best
    first, at most ``MAX_RELATED``."""
    related = [str(s) for s in page.listed("related")]
    have = {*related, page.slug}
    chosen = sorted(
        (n for n in neighbours if n.slug not in have and is_related(n, page.slug)),
        key=lambda n: (-(n.cosine + 0.1 * (n.shared_sources + n.shared_links + n.linked)), n.slug),
    )
    new = list(dict.fromkeys(n.slug for n in chosen))[:MAX_RELATED]
    if not new:
        return None
    return Suggestion("related", {"related": [*related, *new]}, tuple(new))


# -- description ------------------------------------------------------------------------


def introduction(content: str) -> str:
    """The page's introduction: its text before the first ``##`` (or deeper) heading."""
    return _SECTION.split(content, maxsplit=1)[0]


def suggest_description(page: PageView) -> Suggestion | None:
    """The first sentence of the page's introduction that stands alone, when the page has
    no description and that sentence fits ``MAX_DESCRIPTION`` characters (never a cut
    sentence). Only the introduction: a sentence of a later section says what that
    section is about, not the page (bench/enrich.py)."""
    if str(page.front_matter.get("description") or "").strip():
        return None
    for sentence in sentences(introduction(page.content))[:3]:
        text = plaintext.inline(sentence)  # a meta description is plain text: no marks
        if len(text) <= MAX_DESCRIPTION and text.endswith((".", "!", "…")):
            return Suggestion("description", {"description": text}, (text,))
    return None


# -- tags -------------------------------------------------------------------------------


def suggest_tags(page: PageView, neighbours: Sequence[Neighbour]) -> Suggestion | None:
    """The tags both of the page's ``MUTUAL_RANK`` nearest pages carry (the wiki's own
    vocabulary: nothing invented) when both sit in the page's folder, and that it lacks.

    Two nearest siblings that agree on a tag give it the folder's topic, which the page
    shares. A tag of one neighbour only, or of two nearest pages of other folders, is
    not enough: on the bench (bench/enrich.py) those were right only 50 to 85 times in a
    hundred, even when the page's title named the tag; the old rule (a related
    neighbour's tag the title names) 2 of 3 on the demo wiki."""
    near = list(neighbours)[:MUTUAL_RANK]
    folder = folder_of(page.slug)
    if len(near) < MUTUAL_RANK or any(folder_of(n.slug) != folder for n in near):
        return None
    tags = [str(t) for t in page.listed("tags")]
    new = [
        t for t in dict.fromkeys(near[0].tags) if t not in tags and all(t in n.tags for n in near)
    ]
    if not new:
        return None
    return Suggestion("tags", {"tags": [*tags, *new]}, tuple(new))


# -- links ------------------------------------------------------------------------------


def wiki_targets(content: str) -> list[str]:
    """The distinct page slugs the text's wiki links name (anchors dropped), in order."""
    found: dict[str, None] = {}
    for match in _LINK.finditer(prose(content)):
        if wikilinks.is_link(match.group(1)):
            target, _ = wikilinks.split(match.group(1))
            found.setdefault(target.split("#", 1)[0].strip(), None)
    return [t for t in found if t]


def likely_target(broken: str, pages: Mapping[str, str]) -> str | None:
    """The one page (slug -> title) whose slug or title reads like ``broken``, or None
    when none is close enough or two are equally close."""

    def key(text: str) -> str:
        return " ".join(re.findall(r"\w+", fold(text).replace("—", " ").replace("_", " ")))

    want = key(broken)
    scored: dict[str, float] = {}
    for slug, title in pages.items():
        score = max(
            SequenceMatcher(None, want, key(slug)).ratio(),
            SequenceMatcher(None, want, key(title)).ratio(),
            SequenceMatcher(None, want, key(slug.rsplit("—", 1)[-1])).ratio(),
        )
        if score >= LINK_MATCH:
            scored[slug] = score
    if not scored:
        return None
    ranked = sorted(scored.items(), key=lambda kv: -kv[1])
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] < LINK_MARGIN:
        return None  # two pages read alike: neither is sure
    return ranked[0][0]


def suggest_links(page: PageView, fixes: Mapping[str, str]) -> Suggestion | None:
    """The text with each broken wiki link whose likely target is known (``fixes``:
    broken target -> slug) pointed at it, its anchor and shown text kept."""
    if not fixes:
        return None

    def fixed(match: re.Match[str]) -> str:
        inner = match.group(1)
        if not wikilinks.is_link(inner):
            return match.group(0)
        target, text = wikilinks.split(inner)
        slug, hash_, anchor = target.partition("#")
        new = fixes.get(slug.strip())
        if new is None:
            return match.group(0)
        return f"[[{new}{hash_}{anchor}|{text or target}]]"

    content = _LINK.sub(fixed, page.content)
    if content == page.content:
        return None
    added = tuple(f"{old} -> {new}" for old, new in sorted(fixes.items()))
    return Suggestion("links", {}, added, content=content)
