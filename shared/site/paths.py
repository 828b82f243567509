"""Where each output of the site lives, and the proof that no output leaves the site root.

Output paths are relative POSIX paths (``<slug>/index.html``); ``safe_relative`` refuses
anything absolute, with ``..``/empty parts or odd characters, and ``inside`` checks a
joined filesystem path after resolving it, so a hostile slug cannot escape either way.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

from shared.text.slugs import slug_problem

INDEX = "index.html"
MARKDOWN = "index.md"  # the page's Markdown beside its HTML
PAGE_SEARCH = "search.js"  # the page's passages for the search box (shared.site.search)
LLMS_TXT = "llms.txt"
NOT_FOUND = "404.html"  # the site's own page for an address it lacks
FAVICON = "favicon.ico"  # at the root as well as in static/: browsers ask for /favicon.ico
SITEMAP = "sitemap.xml"
SEARCH_INDEX = "search-index.json"
NAV_SCRIPT = "nav.js"  # the sidebar's tree (one file per build, see renderer.render_nav_script)
MARKER = ".biblioteca-build.json"  # which build a published site is: see publish.py
STATIC_DIR = "static"
SECTIONS_DIR = "sections"  # one file per section: the sidebar without script
TYPE_DIR = "type"
_FORBIDDEN = frozenset('\\\0:*?"<>|\r\n\t')


class UnsafePath(ValueError):
    """An output path that could leave the site root (a bug or a hostile slug)."""


def safe_relative(path: str) -> str:
    """``path`` if it is a plain relative path inside the root, else ``UnsafePath``."""
    if not path or path.startswith("/") or any(c in _FORBIDDEN for c in path):
        raise UnsafePath(f"unsafe output path {path!r}")
    if any(part in ("", ".", "..") for part in path.split("/")):
        raise UnsafePath(f"unsafe output path {path!r}")
    return path


def inside(root: Path, relative: str) -> Path:
    """``root / relative`` after proving that, resolved, it is still under ``root``."""
    base = root.resolve()
    target = (base / safe_relative(relative)).resolve()
    if target == base or not target.is_relative_to(base):
        raise UnsafePath(f"output path {relative!r} leaves the site root")
    return target


@lru_cache(maxsize=65536)  # every kept page of every incremental build asks again
def page_path(slug: str) -> str:
    """The file of a page: ``<slug>/index.html`` (only for slugs the contract allows)."""
    problem = slug_problem(slug)
    if problem is not None:
        raise UnsafePath(f"invalid slug {slug!r}: {problem}")
    return safe_relative(f"{slug}/{INDEX}")


def markdown_path(slug: str) -> str:
    """The Markdown of a page: ``<slug>/index.md``."""
    return page_path(slug).removesuffix(INDEX) + MARKDOWN


def search_page_path(slug: str) -> str:
    """The search passages of a page: ``<slug>/search.js``."""
    return page_path(slug).removesuffix(INDEX) + PAGE_SEARCH


def page_files(slug: str) -> tuple[str, str, str]:
    """Everything a page folder holds, written or kept together: HTML, Markdown, passages."""
    html = page_path(slug)  # validates the slug once for the three
    folder = html.removesuffix(INDEX)
    return html, folder + MARKDOWN, folder + PAGE_SEARCH


def markdown_href(root: str, slug: str) -> str:
    return f"{root}{_quoted(slug)}/{MARKDOWN}"


def section_path(key: str) -> str:
    """``sections/<key>.html``; keys are hex digests or ``top``."""
    if not key.isalnum():
        raise UnsafePath(f"invalid section key {key!r}")
    return safe_relative(f"{SECTIONS_DIR}/{key}.html")


def listing_path(page_type: str) -> str:
    return safe_relative(f"{TYPE_DIR}/{page_type}/{INDEX}")


@lru_cache(maxsize=65536)
def _quoted(slug: str) -> str:
    return quote(slug, safe="")  # an em dash in a slug: a 10,000-page index quotes it often


def page_href(root: str, slug: str) -> str:
    """Link to a page from a file ``root`` away from the site root (``""`` or ``"../"``)."""
    return f"{root}{_quoted(slug)}/{INDEX}"


def page_url(site_url: str | None, slug: str, anchor: str = "") -> str:
    """A page's address for readers outside the site (``ask`` sources, MCP results):
    absolute under ``BIBLIOTECA_SITE_URL`` when set, else relative to the site's root;
    with ``#anchor`` when it points at a heading."""
    base = page_href(f"{site_url.rstrip('/')}/" if site_url else "", slug)
    return f"{base}#{quote(anchor, safe='')}" if anchor else base


def listing_href(root: str, page_type: str) -> str:
    return f"{root}{TYPE_DIR}/{quote(page_type, safe='')}/{INDEX}"
