"""What the rest of the site knows about each published page, and the site as a whole.

An ``Entry`` is the part of a page that other pages show (title in links, listings,
backlinks, the search index); ``SiteView`` is every entry plus the link graph.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from shared.records import StoredNav
from shared.schema import PAGE_TYPES, Page
from shared.site import lang
from shared.site import links as graph
from shared.site import nav as navigation
from shared.site.collate import sort_key
from shared.text import plaintext
from shared.text.language import language as language_of

SUMMARY_CHARS = 200


def summary(content: str, limit: int = SUMMARY_CHARS) -> str:
    """A short plain-text excerpt of Markdown (headings and code left out), for search.

    Reads a small window first and a larger one only when that was mostly markup,
    so a 10,000-page build does not strip whole pages to keep 200 characters.
    """
    text = ""
    for window in (limit * 4, limit * 40):
        text = plaintext.summary_text(content[:window])
        if len(text) > limit or window >= len(content):
            break
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(" ,.;:") + "…"


@dataclass(frozen=True, slots=True)
class Entry:
    """A published page as listings, links and the search index show it."""

    slug: str
    title: str
    type: str
    tags: tuple[str, ...]
    category: str | None
    updated: str  # YYYY-MM-DD
    lang: str
    summary: str
    description: str | None = None  # the front matter's, when the page states one


def entry_of(page: Page, cached: tuple[str, str] | None = None) -> Entry:
    """The page's entry; ``cached`` (language, summary) of unchanged text skips the guessing."""
    fm = page.front_matter
    language, short = cached or (language_of(f"{fm.title}\n{page.content}"), summary(page.content))
    return Entry(
        slug=page.slug,
        title=fm.title,
        type=fm.type,
        tags=tuple(fm.tags),
        category=fm.category,
        updated=page.updated_at.date().isoformat(),
        lang=language,
        summary=short,
        description=fm.description,
    )


@dataclass(frozen=True)
class SiteView:
    """Every published page's entry and outgoing links (targets may be broken)."""

    entries: Mapping[str, Entry]
    links: Mapping[str, Sequence[str]]
    stored_nav: StoredNav | None = None  # SiteState.load_nav(): order and sections
    # Each page's ids, as parsed or as last built: links spell anchors to match them.
    anchors: Mapping[str, Collection[str]] = field(default_factory=dict)
    # Merged slug -> the published page that kept its text (links to it lead there).
    aliases: Mapping[str, str] = field(default_factory=dict)
    inbound: dict[str, set[str]] = field(init=False)
    titles: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "inbound", graph.inbound(self.links))
        # A merged slug carries its target's title: a page linking it is rendered again
        # when the merge happens (its link's target changed), and never as broken.
        titles = {a: self.entries[t].title for a, t in self.aliases.items() if t in self.entries}
        titles.update({s: e.title for s, e in self.entries.items()})
        object.__setattr__(self, "titles", titles)

    def backlinks(self, slug: str) -> list[Entry]:
        """Published pages linking to ``slug``, by title (sorted only for pages rendered)."""
        found = [self.entries[s] for s in self.inbound.get(slug, ()) if s in self.entries]
        return sorted(found, key=by_title)

    @cached_property
    def groups(self) -> dict[str, list[Entry]]:
        """Type -> its pages by title; types in the schema's order, empty ones left out."""
        out: dict[str, list[Entry]] = {t: [] for t in PAGE_TYPES}
        for entry in self.entries.values():
            out[entry.type].append(entry)
        return {t: sorted(entries, key=by_title) for t, entries in out.items() if entries}

    @cached_property
    def nav(self) -> navigation.Nav:
        """Sections, reading order and breadcrumbs (``shared.site.nav``)."""
        return navigation.build(self.entries, self.stored_nav, self.language())

    def language(self) -> str:
        return lang.majority([e.lang for e in self.entries.values()])


def by_title(entry: Entry) -> tuple[str, str, str, str]:
    """Spanish alphabetical order of titles (``collate``), then slug."""
    return (*sort_key(entry.title), entry.slug)
