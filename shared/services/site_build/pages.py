"""Rendering the pages of a build: the site view every page is rendered against (parsed,
read, or remembered by the manifest), each page's three files, and its manifest state.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from shared.records import STAGE_PAGES, Output, StoredNav
from shared.schema import Page
from shared.services.site_build.reading import ReadAgain
from shared.site import paths, refs, renderer, search
from shared.site.entries import Entry, SiteView, entry_of
from shared.site.links import outgoing
from shared.site.manifest import PageState, content_hash
from shared.site.markdown import Body

_KEPT_APART = {"slug", "title", "lang", "summary"}  # PageState has its own fields for these


def site_view(
    published: Mapping[str, Page],
    kept: Collection[str],
    bodies: Mapping[str, Body],
    before: Mapping[str, PageState],
    changed: Collection[str],
    stored_nav: StoredNav | None,
    aliases: Mapping[str, str] | None = None,
) -> SiteView:
    """Every published page's entry and links: parsed, read, or from the manifest."""
    links = {
        slug: outgoing(bodies[slug].targets(), _cited(page))
        if slug in bodies
        else before[slug].links
        for slug, page in published.items()
    }
    entries = {
        slug: entry_of(
            page,
            None if slug in changed else (before[slug].lang, before[slug].summary),
        )
        for slug, page in published.items()
    }
    for slug in kept:
        links[slug] = before[slug].links
        entries[slug] = remembered_entry(slug, before[slug])
    anchors = {
        slug: refs.scan(bodies[slug].html).ids if slug in bodies else before[slug].refs.ids
        for slug in entries
        if slug in bodies or slug in before
    }
    return SiteView(entries, links, stored_nav, anchors, aliases or {})


def _cited(page: Page) -> list[str]:
    """The pages a page shows by title besides its body's links: ``related`` and its
    ``wiki`` sources (an archived answer's), so renaming them re-renders it."""
    wiki = [s.ref for s in page.front_matter.sources if s.type == "wiki"]
    return [*page.front_matter.related, *wiki]


def shown_of(entry: Entry) -> dict[str, Any]:
    """The entry's other fields, JSON-ready, for the manifest."""
    return {
        f.name: list(value) if isinstance(value := getattr(entry, f.name), tuple) else value
        for f in dataclasses.fields(entry)
        if f.name not in _KEPT_APART
    }


def remembered_entry(slug: str, state: PageState) -> Entry:
    """A published page's entry as the manifest holds it (the page is not read)."""
    shown: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in state.shown.items()
    }
    try:
        return Entry(slug=slug, title=state.title, lang=state.lang, summary=state.summary, **shown)
    except TypeError as exc:  # a manifest from before a field was added: read every page
        raise ReadAgain(f"the manifest does not hold all that page '{slug}' shows") from exc


def passages(bodies: Mapping[str, Body]) -> dict[str, tuple[search.Passage, ...]]:
    """The search passages of the pages parsed in this build (the others' terms come
    from the manifest)."""
    return {slug: search.passages(body.html) for slug, body in bodies.items()}


@dataclass(frozen=True, slots=True)
class PageContext:
    """What rendering the pages needs besides the pages: the site and its settings, the
    last build's states, and per page its content hash, chrome hash, passages and terms."""

    site: SiteView
    config: renderer.SiteConfig
    before: Mapping[str, PageState]
    hashes: Mapping[str, str]
    chrome: Mapping[str, str]
    found: Mapping[str, tuple[search.Passage, ...]]
    terms: Mapping[str, search.PageTerms]
    full: bool


@dataclass
class RenderedPages:
    """The page files to write, those kept as published, and every live page's state."""

    outputs: list[Output] = field(default_factory=list)
    keep: list[str] = field(default_factory=list)
    states: dict[str, PageState] = field(default_factory=dict)


def render_pages(
    published: Mapping[str, Page],
    kept: Collection[str],
    bodies: Mapping[str, Body],
    ctx: PageContext,
) -> RenderedPages:
    """Render the pages parsed in this build; the rest are kept as published."""
    out = RenderedPages()
    for slug in kept:
        out.keep.extend(paths.page_files(slug))
        out.states[slug] = ctx.before[slug]
    for slug, page in published.items():
        if slug in bodies:
            _render_page(slug, page, bodies[slug], ctx, out)
        else:
            old = ctx.before[slug]  # not rendered means unchanged since the last build
            out.keep.extend(paths.page_files(slug))
            # Same hash, links, title, language, summary, chrome and terms; what it
            # shows is taken from the page read (an older manifest may lack a field).
            out.states[slug] = dataclasses.replace(old, shown=shown_of(ctx.site.entries[slug]))
    return out


def _render_page(slug: str, page: Page, body: Body, ctx: PageContext, out: RenderedPages) -> None:
    """One page's folder, written or kept whole: its HTML, Markdown and passages."""
    files = paths.page_files(slug)
    text = renderer.render_page(page, body, ctx.site, ctx.config)
    html = text.encode()
    markdown = renderer.render_markdown(page).encode()
    passages_js = search.page_script(slug, page.title, ctx.found[slug]).encode()
    hashed = content_hash(html + b"\0" + markdown + b"\0" + passages_js)
    old = ctx.before.get(slug)
    if ctx.full or old is None or old.out != hashed:
        out.outputs.append(Output(files[0], html, STAGE_PAGES))
        out.outputs.append(Output(files[1], markdown, STAGE_PAGES))
        out.outputs.append(Output(files[2], passages_js, STAGE_PAGES))
    else:
        out.keep.extend(files)
    entry: Entry = ctx.site.entries[slug]
    out.states[slug] = PageState(
        version=page.version,
        hash=ctx.hashes[slug],
        title=page.title,
        links=tuple(ctx.site.links[slug]),
        out=hashed,
        lang=entry.lang,
        summary=entry.summary,
        shown=shown_of(entry),
        chrome=ctx.chrome[slug],
        terms=ctx.terms[slug],
        refs=refs.scan(text),
    )
