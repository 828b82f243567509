"""What a page shows around its body: table of contents, breadcrumbs, previous/next.

Pure functions from a page's HTML and the site's ``Nav`` to plain data the templates
escape; the section tree of the index page is built here as escaped markup (an index of
10,000 pages is rendered on every build, cheaper outside Jinja).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from shared.site import paths
from shared.site.markdown import Heading
from shared.site.nav import Nav, NavLink, NavPage, Section

MAX_TOC = 60  # entries: a page of 500 headings gets a usable list, not a second page


@dataclass(frozen=True, slots=True)
class TocEntry:
    level: int  # 2 or 3
    anchor: str
    text: str
    markup: Markup  # the text with its code spans still code (``<Image />``)


def toc(headings: Sequence[Heading]) -> list[TocEntry]:
    """The page's h2/h3 headings with the ids the renderer gave them (``Body.headings``:
    from the parser's tokens, never from its HTML), as plain text and as markup."""
    out: list[TocEntry] = []
    for heading in headings:
        text = heading.text
        if heading.level in (2, 3) and text:
            out.append(TocEntry(heading.level, heading.anchor, text, _with_code(heading)))
            if len(out) >= MAX_TOC:
                break
    return out


def _with_code(heading: Heading) -> Markup:
    """A heading as the TOC shows it: escaped text, its code spans kept as code (a heading
    naming ``<Image />`` must not read as a tag in the sidebar)."""
    parts: list[Markup] = []
    prose: list[str] = []
    for text, is_code in heading.pieces:
        if not is_code:
            prose.append(text)
            continue
        parts.append(escape(" ".join("".join(prose).split())))
        prose = []
        parts.append(Markup("<code>{}</code>").format(" ".join(text.split())))
    parts.append(escape(" ".join("".join(prose).split())))
    return Markup(" ").join(p for p in parts if p)


def crumbs(nav: Nav, slug: str, root: str) -> list[dict[str, str | None]]:
    """The sections above a page, each linked to its index page when it has one."""
    return [
        {"title": c.title, "href": paths.page_href(root, c.slug) if c.slug else None}
        for c in nav.trails.get(slug, ())
    ]


def neighbours(
    nav: Nav, slug: str, titles: Mapping[str, str], root: str
) -> dict[str, dict[str, str] | None]:
    """``{"prev": {title, href} | None, "next": …}`` in the reading order."""
    before, after = nav.neighbours(slug)
    return {
        name: {"title": titles[other], "href": paths.page_href(root, other)}
        if other is not None and other in titles
        else None
        for name, other in (("prev", before), ("next", after))
    }


def section_html(nav: Nav, key: str, root: str) -> Markup:
    """One section's links as the sidebar shows them without script (``nav/<key>.html``,
    shown in a frame): its title, its index page, pages, links and subsections (linked
    to their index pages). The frame is the same for every page of the section, so it
    does not mark the current one (a fragment to mark it would also scroll the page:
    browsers scroll a frame's target into view through its parents); the breadcrumbs do."""
    section = nav.section_files()[key]
    rows: list[str] = []
    if section.title:
        title = str(escape(section.title))
        if section.index:
            href = escape(paths.page_href(root, section.index))
            title = f'<a href="{href}" target="_top">{title}</a>'
        rows.append(f'<p class="section-title">{title}</p>')
    items: list[str] = []
    for item in section.items:
        if isinstance(item, NavPage):
            href = escape(paths.page_href(root, item.slug))
            items.append(f'<li><a href="{href}" target="_top">{escape(item.title)}</a></li>')
        elif isinstance(item, NavLink):
            items.append(
                f'<li><a href="{escape(item.url)}" rel="noopener" target="_top">'
                f"{escape(item.title)}</a></li>"
            )
        elif item.index:
            href = escape(paths.page_href(root, item.index))
            link = f'<a href="{href}" target="_top">{escape(item.title)}</a>'
            items.append(f'<li class="subsection">{link}</li>')
        else:
            items.append(f'<li class="subsection"><span>{escape(item.title)}</span></li>')
    rows.append("<ul>" + "".join(items) + "</ul>")
    return Markup("\n".join(rows))  # noqa: S704 - built from escaped values


def tree_html(nav: Nav, root: str) -> Markup:
    """The whole tree as nested lists (the index page); every value escaped."""
    return Markup(_list(nav.items, root, 2))  # noqa: S704 - built from escaped values


def _list(items: object, root: str, level: int) -> str:
    rows: list[str] = []
    pages: list[str] = []
    assert isinstance(items, (list, tuple))

    def flush() -> None:
        if pages:
            rows.append('<ul class="pages">' + "".join(pages) + "</ul>")
            pages.clear()

    for item in items:
        if isinstance(item, NavPage):
            href = escape(paths.page_href(root, item.slug))
            pages.append(f'<li><a href="{href}">{escape(item.title)}</a></li>')
        elif isinstance(item, NavLink):
            pages.append(
                f'<li><a href="{escape(item.url)}" rel="noopener">{escape(item.title)}</a></li>'
            )
        elif isinstance(item, Section):
            flush()
            tag = f"h{min(level, 6)}"
            title = str(escape(item.title))
            if item.index:
                title = f'<a href="{escape(paths.page_href(root, item.index))}">{title}</a>'
            count = _count(item)
            rows.append(
                f'<section class="nav-section"><{tag}>{title} '
                f'<span class="muted">({count})</span></{tag}>'
                + _list(item.items, root, level + 1)
                + "</section>"
            )
    flush()
    return "\n".join(rows)


def _count(section: Section) -> int:
    total = 1 if section.index else 0
    for item in section.items:
        total += _count(item) if isinstance(item, Section) else isinstance(item, NavPage)
    return total
