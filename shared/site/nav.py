"""The site's sections and reading order: pure functions from entries (and a stored nav) to a tree.

Where a page goes, first match wins:

1. the ``nav`` an import kept (``SiteState.load_nav``), in its order: ``mkdocs.yml``'s, or
   the one the tree's folders and front matter state (``shared.dialects.sidebar``);
2. the folders of its slug (``tutorial—body`` is in the section ``tutorial``; a
   ``<folder>—index`` page opens its section and names it), unless it is two parts and
   the first is a page type (``concept—cache`` is a derived slug, not a folder);
3. its ``category``;
4. its type (derived ``type—title`` slugs), labelled like the type's listing;
5. else the top level (``index``, ``async``: files at the root of an import).

Within a section the index page comes first, then pages and then subsections, each in
Spanish alphabetical order (``collate``). The reading order (previous/next) walks the
tree depth first; breadcrumbs are the sections above a page.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from shared.records import StoredNav
from shared.schema import PAGE_TYPES
from shared.site import lang
from shared.site.collate import sort_key
from shared.text.sections import INDEX_NAMES, MAX_DEPTH, humanize
from shared.text.slugs import SEPARATOR


class Entry(Protocol):
    """What the nav reads of a published page (``shared.site.entries.Entry`` is one): the
    entries module builds the nav, so the nav names only the fields it needs."""

    @property
    def slug(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def category(self) -> str | None: ...


TOP = "top"  # the key of the top level's section file (nav/top.html)


@dataclass(frozen=True, slots=True)
class NavPage:
    slug: str
    title: str


@dataclass(frozen=True, slots=True)
class NavLink:
    """An outside link a stored nav names (``{"title", "url"}``)."""

    title: str
    url: str


@dataclass
class Section:
    title: str
    index: str | None = None  # slug of the page that opens the section, if any
    items: list[NavPage | NavLink | Section] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Crumb:
    title: str
    slug: str | None  # the section's index page, when it has one


@dataclass(frozen=True)
class Nav:
    """The tree, the reading order and each page's breadcrumbs."""

    items: tuple[NavPage | NavLink | Section, ...]
    order: tuple[str, ...]
    trails: Mapping[str, tuple[Crumb, ...]]
    # The key of the section each page is in (the one it opens, for an index page), and
    # the sections by key: the sidebar without script is one file per section.
    homes: Mapping[str, str] = field(default_factory=dict)
    sections: Mapping[str, Section] = field(default_factory=dict)
    position: Mapping[str, int] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "position", {slug: i for i, slug in enumerate(self.order)})

    def neighbours(self, slug: str) -> tuple[str | None, str | None]:
        """(previous, next) page of ``slug`` in the reading order."""
        i = self.position.get(slug)
        if i is None:
            return None, None
        before = self.order[i - 1] if i > 0 else None
        after = self.order[i + 1] if i + 1 < len(self.order) else None
        return before, after

    def home(self, slug: str) -> str:
        """The key of the section a page is in (``TOP`` for the top level)."""
        return self.homes.get(slug, TOP)

    def section_files(self) -> dict[str, Section]:
        """Every section by key, the top level included (a section without a title)."""
        return {TOP: Section("", None, list(self.items)), **self.sections}

    def to_json(self) -> list[Any]:
        """The tree for ``nav.js``: ``{"t", "s"}`` pages, ``{"t", "u"}`` links,
        ``{"t", "s"?, "c"}`` sections (``s`` its index page)."""
        return [_item_json(item) for item in self.items]


def _item_json(item: NavPage | NavLink | Section) -> dict[str, Any]:
    if isinstance(item, NavPage):
        return {"t": item.title, "s": item.slug}
    if isinstance(item, NavLink):
        return {"t": item.title, "u": item.url}
    out: dict[str, Any] = {"t": item.title, "c": [_item_json(i) for i in item.items]}
    if item.index:
        out["s"] = item.index
    return out


def _place(entry: Entry, language: str) -> tuple[tuple[str, str], ...]:
    """Section path of a page outside a stored nav: ((kind, name), …) from the top."""
    parts = entry.slug.split(SEPARATOR)
    # A derived slug is exactly ``type—title``: three parts or more are folders even when
    # the first is named like a type (``reference—errors—x`` is in reference/errors).
    if len(parts) > 2 or (len(parts) > 1 and parts[0] not in PAGE_TYPES):
        return tuple(("folder", p) for p in parts[:-1][:MAX_DEPTH])
    if entry.category:
        return (("category", entry.category),)
    if len(parts) > 1:
        return (("type", lang.TYPES[language][entry.type][1]),)
    return ()


def _is_index(slug: str) -> bool:
    parts = slug.split(SEPARATOR)
    return len(parts) > 1 and parts[-1] in INDEX_NAMES


@dataclass
class _Node:
    title: str
    pages: list[Entry] = field(default_factory=list)
    index: Entry | None = None
    children: dict[tuple[str, str], _Node] = field(default_factory=dict)


def _tree(entries: Sequence[Entry], language: str) -> list[NavPage | NavLink | Section]:
    root = _Node("")
    for entry in entries:
        node = root
        for key in _place(entry, language):
            node = node.children.setdefault(key, _Node(humanize(key[1])))
        if _is_index(entry.slug) and node is not root and node.index is None:
            node.index = entry
            node.title = entry.title
        else:
            node.pages.append(entry)
    return _items(root)


def _items(node: _Node) -> list[NavPage | NavLink | Section]:
    pages = sorted(node.pages, key=lambda e: (e.slug != "index", *sort_key(e.title), e.slug))
    sections = [
        Section(child.title, child.index.slug if child.index else None, _items(child))
        for child in node.children.values()
    ]
    sections.sort(key=lambda s: sort_key(s.title))
    out: list[NavPage | NavLink | Section] = [NavPage(e.slug, e.title) for e in pages]
    return out + list(sections)


def _stored(
    items: Any, entries: Mapping[str, Entry], placed: set[str], depth: int = 0
) -> list[NavPage | NavLink | Section]:
    """The stored nav's items that are published (each page once), in the nav's order."""
    out: list[NavPage | NavLink | Section] = []
    if not isinstance(items, list) or depth > MAX_DEPTH:
        return out
    for item in items:
        if not isinstance(item, Mapping):
            continue
        title = str(item.get("title") or "")
        if isinstance(item.get("items"), list):
            children = _stored(item["items"], entries, placed, depth + 1)
            if not children:
                continue
            if not title:
                out.extend(children)  # an untitled group adds nothing to the tree
                continue
            index = None
            first = children[0]
            if isinstance(first, NavPage) and _is_index(first.slug):
                index = first.slug
                children = children[1:]
            out.append(Section(title, index, children))
        elif isinstance(item.get("url"), str) and item["url"].startswith(("https://", "http://")):
            out.append(NavLink(title or item["url"], item["url"]))
        elif isinstance(item.get("slug"), str):
            slug = item["slug"]
            if slug in entries and slug not in placed:
                placed.add(slug)
                out.append(NavPage(slug, title or entries[slug].title))
    return out


def build(
    entries: Mapping[str, Entry], stored: StoredNav | None = None, language: str = "es"
) -> Nav:
    """The site's navigation (see the module docstring); ``stored`` is ``load_nav()``'s."""
    placed: set[str] = set()
    items = _stored(stored.get("items"), entries, placed) if stored else []
    rest = [e for slug, e in entries.items() if slug not in placed]
    items += _tree(rest, language)
    order: list[str] = []
    trails: dict[str, tuple[Crumb, ...]] = {}
    homes: dict[str, str] = {}
    sections: dict[str, Section] = {}
    _walk(items, (), order, trails, homes, sections)
    return Nav(tuple(items), tuple(order), trails, homes, sections)


def _walk(
    items: Sequence[NavPage | NavLink | Section],
    trail: tuple[Crumb, ...],
    order: list[str],
    trails: dict[str, tuple[Crumb, ...]],
    homes: dict[str, str],
    sections: dict[str, Section],
    home: str = TOP,
) -> None:
    for item in items:
        if isinstance(item, NavPage):
            order.append(item.slug)
            trails[item.slug] = trail
            homes[item.slug] = home
        elif isinstance(item, Section):
            crumb = Crumb(item.title, item.index)
            inner = (*trail, crumb)
            key = section_key(inner)
            while key in sections:  # two sections of one name and place: both kept
                key = section_key((*inner, Crumb(key, None)))
            sections[key] = item
            if item.index:
                order.append(item.index)
                trails[item.index] = trail
                homes[item.index] = key
            _walk(item.items, inner, order, trails, homes, sections, key)


def section_key(trail: Sequence[Crumb]) -> str:
    """A section's file name: a hash of the sections down to it (their titles and index
    pages), so it stays put while the section does."""
    text = "\1".join(f"{c.title}\0{c.slug or ''}" for c in trail)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def chrome_hash(nav: Nav, slug: str, titles: Mapping[str, str]) -> str:
    """Hash of what a page shows of the others through the navigation: its breadcrumbs,
    its previous/next pages and which section file its sidebar shows without script. A
    page whose hash changed is rendered again."""
    before, after = nav.neighbours(slug)
    parts = [f"{c.title}\0{c.slug or ''}" for c in nav.trails.get(slug, ())]
    for other in (before, after):
        parts.append(f"\2{other or ''}\0{titles.get(other or '', '')}")
    parts.append(f"\3{nav.home(slug)}")
    return hashlib.sha256("\1".join(parts).encode()).hexdigest()[:16]
