"""The static site's files from pages: pure functions from data to text, no I/O.

Jinja2 with autoescape on renders every page, listing and the curator report, so
titles and front-matter values are always escaped; only the Markdown body (already
safe, see ``markdown``) is inserted as markup.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote
from xml.sax.saxutils import escape as xml_escape

import jinja2
from markupsafe import Markup, escape

from shared.freshness import stale_notice
from shared.mkdocs import Include
from shared.schema import Page, Source
from shared.site import lang, paths
from shared.site.entries import Entry, SiteView
from shared.site.links import resolve
from shared.site.markdown import Body
from shared.site.md_blocks import INCLUDE_RE

# Bump when the output changes for the same input, so the next build is a full one.
RENDERER_VERSION = "2"
TEMPLATES = Path(__file__).parent / "templates"
_REPO = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]{0,99}):(?!//)(.+)$")


@dataclass(frozen=True, slots=True)
class SiteConfig:
    """The settings that change what the renderer writes."""

    ask_url: str = "/ask"
    code_url: str | None = None  # e.g. https://github.com/org/{repo}/blob/main/{path}
    base_url: str | None = None  # absolute URL of the site root, for the sitemap

    def key(self) -> str:
        """Changes whenever the same pages would render differently (forces a full build)."""
        text = json.dumps([RENDERER_VERSION, template_digest(), self.ask_url, self.code_url])
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


def code_href(ref: str, template: str | None) -> str | None:
    """Link of a code ref (``path`` or ``repo:path``, ``#L12`` kept) via the URL template.

    None when no template is set, when the template needs a repository the ref does not
    name, or when the result would not be an http(s) URL.
    """
    if not template or "://" in ref:
        return None
    match = _REPO.match(ref)
    repo, path = (match.group(1), match.group(2)) if match else (None, ref)
    if repo is None and "{repo}" in template:
        return None
    path, _, fragment = path.strip().lstrip("/").partition("#")
    while path.startswith("./"):
        path = path[2:]
    if not path or ".." in path.split("/"):
        return None
    url = template.replace("{repo}", quote(repo or "", safe="")).replace(
        "{path}", quote(path, safe="/")
    )
    if fragment:
        url += "#" + quote(fragment, safe="")
    return url if url.lower().startswith(("https://", "http://")) else None


def _source(source: Source, code_url: str | None, language: str) -> dict[str, Any]:
    return {
        "label": lang.SOURCES[language][source.type],
        "ref": source.ref,
        "href": code_href(source.ref, code_url) if source.type == "code" else None,
        "last_seen": source.last_seen,
    }


# -- pages ----------------------------------------------------------------------------


def _chrome(language: str, root: str, config: SiteConfig) -> dict[str, Any]:
    return {"lang": language, "ui": lang.UI[language], "root": root, "ask_url": config.ask_url}


def render_page(page: Page, body: Body, site: SiteView, config: SiteConfig) -> str:
    """``<slug>/index.html``: the page, its metadata, sources, related pages and backlinks."""
    root = "../"
    entry = site.entries[page.slug]
    language = entry.lang
    fm = page.front_matter
    related = [
        {
            "title": site.titles.get(s, s),
            "href": paths.page_href(root, s) if s in site.titles else None,
        }
        for s in fm.related
    ]
    backlinks = [
        {"title": e.title, "href": paths.page_href(root, e.slug)} for e in site.backlinks(page.slug)
    ]
    return _render(
        "page.html",
        **_chrome(language, root, config),
        page={**fm.model_dump(), "version": page.version},
        updated=entry.updated,
        type_label=lang.TYPES[language][fm.type][0],
        type_href=paths.listing_href(root, fm.type),
        status_label=lang.STATUSES[language][fm.status],
        body=_examples(
            resolve(_without_title(body, fm.title), site.titles, root),
            body.includes,
            config.code_url,
            language,
        ),
        sources=[_source(s, config.code_url, language) for s in fm.sources],
        stale=stale_notice(page.freshness),
        related=related,
        backlinks=backlinks,
    )


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
    """``index.html``: every published page, grouped by type."""
    language = site.language()
    groups = [
        {
            "type": page_type,
            "label": lang.TYPES[language][page_type][1],
            "href": paths.listing_href("", page_type),
            "count": len(entries),
            "rows": _rows(entries, "", details=False),
        }
        for page_type, entries in site.groups.items()
    ]
    return _render("index.html", **_chrome(language, "", config), groups=groups)


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


def render_sitemap(site: SiteView, config: SiteConfig) -> str:
    """``sitemap.xml``; URLs are absolute when ``base_url`` is known, else site-relative."""
    base = config.base_url.rstrip("/") + "/" if config.base_url else ""
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
