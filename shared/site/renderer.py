"""The static site's files from pages: pure functions from data to text, no I/O.

Jinja2 with autoescape on renders every page, listing and the curator report, so
titles and front-matter values are always escaped; only the Markdown body (already
safe, see ``markdown``) is inserted as markup.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape as xml_escape

import jinja2
import yaml
from markupsafe import Markup, escape

from shared.mkdocs import Include
from shared.records import stale_notice
from shared.schema import Page, Source
from shared.site import chrome, lang, paths, search
from shared.site.entries import Entry, SiteView
from shared.site.links import resolve
from shared.site.markdown import Body, validate_link
from shared.site.md_blocks import INCLUDE_RE
from shared.site.nav import NavLink, NavPage, Section
from shared.text.code_paths import code_href
from shared.text.slugs import slug_problem

# Bump when the output changes for the same input, so the next build is a full one.
RENDERER_VERSION = "5"  # 5: paragraph ids, highlighted code, site name (two branches' 4s)
TEMPLATES = Path(__file__).parent / "templates"
# libyaml's safe dumper when PyYAML has it: the pure-Python one costs as much per page
# as parsing its Markdown (3 ms), on every page of a full build.
_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


@dataclass(frozen=True, slots=True)
class SiteConfig:
    """The settings that change what the renderer writes."""

    ask_url: str = "/ask"
    code_url: str | None = None  # e.g. https://github.com/org/{repo}/blob/main/{path}
    base_url: str | None = None  # absolute URL of the site root, for the sitemap
    site_name: str = "Biblioteca"  # BIBLIOTECA_SITE_NAME: header, <title>, llms.txt
    logo: str | None = None  # an http(s) URL, or a path under the site root (static/logo.png)

    def key(self) -> str:
        """Changes whenever the same pages would render differently (forces a full build)."""
        text = json.dumps(
            [
                RENDERER_VERSION,
                template_digest(),
                self.ask_url,
                self.code_url,
                self.site_name,
                self.logo,
            ]
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@lru_cache(maxsize=1)
def template_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(TEMPLATES.glob("*.html")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


@lru_cache(maxsize=1)
def _jinja() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        auto_reload=False,  # templates ship with the code: no stat() per page rendered
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _render(template: str, **context: Any) -> str:
    return _jinja().get_template(template).render(**context)


# -- sources --------------------------------------------------------------------------


def _source(
    source: Source, code_url: str | None, language: str, titles: Mapping[str, str], root: str
) -> dict[str, Any]:
    """A source as the page lists it: code through ``BIBLIOTECA_CODE_URL``, a ``wiki``
    source (what an archived answer cites) to its page, with its title when published
    (a dead link otherwise, which ``broken_links`` reports), any other http(s) ref to
    itself; the rest as text."""
    ref, href, text = source.ref, None, None
    if source.type == "code":
        href = code_href(ref, code_url)
    elif source.type == "wiki" and slug_problem(ref) is None:
        href, text = paths.page_href(root, ref), titles.get(ref)
    elif ref.lower().startswith(("https://", "http://")) and validate_link(ref):
        href = ref
    return {
        "label": lang.SOURCES[language][source.type],
        "ref": ref,
        "text": text or ref,
        "href": href,
        "last_seen": source.last_seen,
    }


# -- pages ----------------------------------------------------------------------------


def _chrome(language: str, root: str, config: SiteConfig, slug: str = "") -> dict[str, Any]:
    logo = config.logo
    if logo is not None and not logo.startswith(("https://", "http://")):
        logo = root + logo
    return {
        "lang": language,
        "ui": lang.UI[language],
        "root": root,
        "ask_url": config.ask_url,
        "slug": slug,
        "site_name": config.site_name,
        "logo": logo,
    }


def render_page(page: Page, body: Body, site: SiteView, config: SiteConfig) -> str:
    """``<slug>/index.html``: the page, its metadata, sources, related pages and backlinks."""
    root = "../"
    entry = site.entries[page.slug]
    language = entry.lang
    fm = page.front_matter
    # A related page not published keeps its link, marked broken (``site.refs`` reports it).
    # A related page merged into another names the page that kept its text.
    related = [
        {
            "title": site.titles.get(s, s),
            "href": paths.page_href(root, s) if slug_problem(s) is None else None,
            "broken": s not in site.titles,
        }
        for s in dict.fromkeys(site.aliases.get(r, r) for r in fm.related)
    ]
    backlinks = [
        {"title": e.title, "href": paths.page_href(root, e.slug)} for e in site.backlinks(page.slug)
    ]
    html = _examples(
        resolve(
            _without_title(body, fm.title),
            site.titles,
            root,
            site.anchors,
            page.slug,
            aliases=site.aliases,
        ),
        body.includes,
        config.code_url,
        language,
    )
    return _render(
        "page.html",
        **_chrome(language, root, config, page.slug),
        crumbs=chrome.crumbs(site.nav, page.slug, root),
        section_href=f"{root}{paths.section_path(site.nav.home(page.slug))}",
        pager=chrome.neighbours(site.nav, page.slug, site.titles, root),
        toc=chrome.toc(body.headings),
        # A docs page (imported: it states its kind) shows no wiki metadata (type,
        # status, category): its generator's site would not, and "Tipo: Guía" on an API
        # page says nothing a reader needs.
        page={**fm.model_dump(), "version": page.version},
        description=entry.description,  # the front matter's own words, when it has them
        updated=entry.updated,
        edited_by=public_actor(page.updated_by),
        type_label=lang.TYPES[language][fm.type][0],
        type_href=paths.listing_href(root, fm.type),
        status_label=lang.STATUSES[language][fm.status],
        body=html,
        sources=[_source(s, config.code_url, language, site.titles, root) for s in fm.sources],
        stale=stale_notice(page.freshness),
        related=related,
        backlinks=backlinks,
    )


def public_actor(actor: str | None) -> str | None:
    """Who last edited a page, as the public site says it: the actor's name, an email's
    local part only (``iam:ana@example.com`` is ``iam:ana``: addresses stay private)."""
    if not actor:
        return None
    head, at, _domain = actor.partition("@")
    return head if at else actor


def _examples(
    html: Markup, includes: tuple[Include, ...], code_url: str | None, language: str
) -> Markup:
    """Each include marker as an example block naming the file, linked to the code when
    ``BIBLIOTECA_CODE_URL`` is set (the import puts resolvable files inline instead)."""
    if not includes:
        return html
    ui = lang.UI[language]

    def replace(match: re.Match[str]) -> str:
        include = includes[int(match.group(1))]
        ref = include.ref() or include.path
        href = code_href(ref, code_url)
        code = f"<code>{escape(ref)}</code>"
        shown = f'<a href="{escape(href)}" rel="noopener">{code}</a>' if href else code
        lines = ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in include.lines)
        extra = f' <span class="muted">({ui["example_lines"]} {lines})</span>' if lines else ""
        return (
            f'<div class="admonition example"><p class="admonition-title">'
            f"{escape(ui['example'])}: {shown}{extra}</p></div>"
        )

    # Every value put in is escaped and the rest is the safe body: still safe markup.
    return Markup(INCLUDE_RE.sub(replace, html))  # noqa: S704


def _without_title(body: Body, title: str) -> Body:
    """Imported Markdown often opens with its title as ``# Title``: show the title once."""
    if body.leading_h1 is None or body.leading_h1.casefold() != title.casefold():
        return body
    end = body.html.find("</h1>\n")
    if not body.html.startswith("<h1") or end < 0:
        return body
    return replace(body, html=body.html[end + len("</h1>\n") :], leading_h1=None)


def _rows(entries: list[Entry], root: str, *, details: bool) -> Markup:
    """The <li> rows of a listing, built here rather than in Jinja: an index of 10,000
    pages is rendered on every build, and every value still goes through ``escape``."""
    rows = []
    for e in entries:
        row = f'<li><a href="{escape(paths.page_href(root, e.slug))}">{escape(e.title)}</a>'
        if details:
            if e.category:
                row += f' <span class="muted">· {escape(e.category)}</span>'
            row += "".join(f' <span class="tag">{escape(tag)}</span>' for tag in e.tags)
        rows.append(row + "</li>")
    return Markup("\n".join(rows))  # noqa: S704 - every value above is escaped


def listing_types(site: SiteView) -> list[str]:
    """The types that get a listing: those with at least one published page."""
    return list(site.groups)


def render_index(site: SiteView, config: SiteConfig) -> str:
    """``index.html``: the sections with their pages, then a link to each type's listing."""
    language = site.language()
    types = [
        {
            "label": lang.TYPES[language][page_type][1],
            "href": paths.listing_href("", page_type),
            "count": len(entries),
        }
        for page_type, entries in site.groups.items()
    ]
    return _render(
        "index.html",
        **_chrome(language, "", config),
        tree=chrome.tree_html(site.nav, ""),
        types=types,
    )


def render_not_found(site: SiteView, config: SiteConfig) -> str:
    """``404.html``: what a server (``biblioteca serve``, a bucket's ``notFoundPage``)
    answers for an address the site lacks, with the site's header and search. It is
    served at any depth, so its links start at the site's address (``/`` without one)."""
    return _render("not_found.html", **_chrome(site.language(), _base(config) or "/", config))


def render_section_files(site: SiteView, config: SiteConfig) -> dict[str, str]:
    """``sections/<key>.html``: each section's links, which a page's sidebar shows in a
    frame when script is off (with script, static/site.js draws the whole tree from
    nav.js). A file per section rather than the links in every page: a new page would
    otherwise re-render its whole section."""
    root = "../"
    language = site.language()
    return {
        paths.section_path(key): _render(
            "section.html",
            **_chrome(language, root, config),
            title=section.title,
            links=chrome.section_html(site.nav, key, root),
        )
        for key, section in site.nav.section_files().items()
    }


def render_listing(page_type: str, site: SiteView, config: SiteConfig) -> str:
    """``type/<type>/index.html``: the published pages of one type."""
    root = "../../"
    language = site.language()
    entries = site.groups.get(page_type, [])
    return _render(
        "listing.html",
        **_chrome(language, root, config),
        label=lang.TYPES[language][page_type][1],
        count=len(entries),
        rows=_rows(entries, root, details=True),
    )


# -- machine-readable files -----------------------------------------------------------


def render_markdown(page: Page) -> str:
    """``<slug>/index.md``: the page's Markdown as stored, with its front matter, for agents
    and for anyone who wants the source (every page links it)."""
    data = {"slug": page.slug, **page.front_matter.dump(), "version": page.version}
    data["updated"] = page.updated_at.date().isoformat()
    front = yaml.dump(data, Dumper=_DUMPER, allow_unicode=True, sort_keys=False, width=1000)
    return f"---\n{front}---\n\n{page.content.rstrip()}\n"


def _base(config: SiteConfig) -> str:
    return config.base_url.rstrip("/") + "/" if config.base_url else ""


def render_llms_txt(site: SiteView, config: SiteConfig) -> str:
    """``llms.txt`` (llmstxt.org): the site's title, then one line per section (a heading)
    and per page (a link to its Markdown and its summary), in the reading order. URLs are
    absolute when ``BIBLIOTECA_SITE_URL`` (or a bucket) gives the site's address."""
    base = _base(config)
    ui = lang.UI[site.language()]
    lines = [f"# {_md_text(config.site_name)}", "", f"> {ui['llms_summary']}", ""]
    top: list[str] = []

    def page_line(slug: str, title: str) -> str:
        entry = site.entries[slug]
        href = f"{base}{paths.markdown_href('', slug)}"
        text = f"- [{_md_text(title)}]({href})"
        about = entry.description or entry.summary  # the page's own words first
        return text + (f": {' '.join(about.split())}" if about else "")

    def walk(items: Sequence[object], depth: int) -> None:
        for item in items:
            if isinstance(item, NavPage):
                (top if depth == 0 else lines).append(page_line(item.slug, item.title))
            elif isinstance(item, NavLink):
                (top if depth == 0 else lines).append(f"- [{_md_text(item.title)}]({item.url})")
            elif isinstance(item, Section):
                lines.extend(["", f"{'#' * min(depth + 2, 6)} {_md_text(item.title)}", ""])
                if item.index:
                    lines.append(page_line(item.index, site.titles[item.index]))
                walk(item.items, depth + 1)

    walk(site.nav.items, 0)
    if top:
        lines[4:4] = [*top, ""]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).rstrip() + "\n"


def _md_text(text: str) -> str:
    """Text inside a Markdown link label or heading: brackets and line breaks neutralized."""
    return " ".join(text.replace("[", "(").replace("]", ")").split())


def render_sitemap(site: SiteView, config: SiteConfig) -> str:
    """``sitemap.xml``; URLs are absolute when ``base_url`` is known, else site-relative."""
    base = _base(config)
    rows = [f"<url><loc>{xml_escape(base)}</loc></url>"] if base else []
    for page_type in listing_types(site):
        rows.append(f"<url><loc>{xml_escape(paths.listing_href(base, page_type))}</loc></url>")
    for slug in sorted(site.entries):
        loc = xml_escape(paths.page_href(base, slug))
        rows.append(f"<url><loc>{loc}</loc><lastmod>{site.entries[slug].updated}</lastmod></url>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "\n".join(rows)
        + "\n</urlset>\n"
    )


def safe_json(data: Any) -> str:
    """JSON that stays inert even if someone inlines it into HTML (``<``, ``>``, ``&`` escaped)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_search_index(site: SiteView) -> str:
    """``search-index.json``: slug, title, type, tags, a short text and the URL of each page."""
    items = [
        {
            "slug": e.slug,
            "title": e.title,
            "type": e.type,
            "tags": list(e.tags),
            "text": e.summary,
            "url": paths.page_href("", e.slug),
        }
        for e in sorted(site.entries.values(), key=lambda e: e.slug)
    ]
    return safe_json({"pages": items})


def render_report(report: Mapping[str, Any]) -> tuple[str, str]:
    """The private curator report as (HTML, JSON)."""
    html = _render("report.html", report=report)
    return html, json.dumps(report, ensure_ascii=False, indent=2, default=str)


def render_nav_script(site: SiteView, split: Sequence[str] = ()) -> str:
    """``nav.js``: the section tree for the sidebar, written once per build instead of into
    every page (a new page would otherwise re-render all of them); ``static/site.js`` draws
    it. It also carries what the search box needs before its first shard: the words the
    index leaves out and the prefixes split into longer shards."""
    return (
        "window.BIBLIOTECA_NAV="
        + safe_json(site.nav.to_json())
        + ";\nwindow.BIBLIOTECA_STOPWORDS="
        + safe_json(sorted(search.STOPWORDS))
        + ";\nwindow.BIBLIOTECA_SEARCH_SPLIT="
        + safe_json(list(split))
        + ";\n"
    )


def render_search_shards(
    site: SiteView, terms: Mapping[str, search.PageTerms]
) -> tuple[dict[str, str], list[str]]:
    """``search/<key>.js`` files for the search box and the split prefixes (see
    ``shared.site.search``; the prefixes go into ``nav.js``)."""
    index = search.build(site.entries.values(), terms)
    files = {
        search.shard_path(key): search.shard_script(key, shard)
        for key, shard in index.shards.items()
    }
    return files, sorted(index.split)
