"""One resolver for the links of an imported docs tree: relative and site-absolute, by route.

A file's *route* is its path under the imported folder without the extension, ``index``
(or ``README``) meaning its folder: ``guides/x.mdx`` is ``guides/x``, ``guides/index.md``
is ``guides``. A site-absolute link (``/guides/x/``, ``/es/guides/x.html#y``) names a
route, with or without the tree's locale prefix (the folder's own name when the site
serves the tree under it: ``…/docs/es`` is served at ``/es/``; detected from the link
itself, never from a list of languages), a trailing slash, ``.html``, ``?query``. A
relative link names a file (``../x.md``, ``x.mdx#y``) or a folder with an index. Both
become wiki links ``[[slug#anchor|label]]``; links outside the tree (other sites,
``mailto:``, files that are no page) are left as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from posixpath import normpath
from urllib.parse import unquote

from shared import mkdocs
from shared.text import wikilinks

PAGE_SUFFIXES = (".md", ".mdx", ".markdown")
_INDEX_STEMS = ("index", "readme")
# [text](target "title"): the text may hold one level of brackets; images are skipped.
_LINK = re.compile(
    r"(?<!!)\[(?P<text>(?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"
    r"\((?P<url><[^<>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\)"
)
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def route_of(path: str) -> str:
    """The route a file is served at: ``a/b.md`` -> ``a/b``, ``a/index.mdx`` -> ``a``."""
    pure = PurePosixPath(path)
    stem = pure.stem if pure.suffix.lower() in PAGE_SUFFIXES else pure.name
    parent = "" if str(pure.parent) == "." else str(pure.parent)
    if stem.lower() in _INDEX_STEMS:
        return parent
    return f"{parent}/{stem}" if parent else stem


@dataclass(frozen=True)
class Resolver:
    """The pages of one imported folder by path and by route.

    ``slugs`` maps each file's path under the folder (posix) to the slug it is imported
    as; ``locale`` is the folder's own name, the prefix a site serving it may put before
    every route (``es`` for ``…/docs/es``).
    """

    slugs: Mapping[str, str]
    locale: str = ""
    # The generator's own addresses of pages (``shared.dialects.routes``: a Docusaurus
    # ``id``/``slug``, a VitePress rewrite), route -> slug: they win over file routes.
    aliases: Mapping[str, str] = field(default_factory=dict)
    base: str = ""  # a prefix the generator serves every route under ("docs")
    routes: dict[str, str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        routes: dict[str, str] = {route.lower(): slug for route, slug in self.aliases.items()}
        # An index file wins its folder's route over a same-named sibling file (MkDocs
        # and the MDX generators serve ``x/index.md`` at ``x/`` when both exist).
        for path in sorted(self.slugs, key=lambda p: not _is_index(p)):
            routes.setdefault(route_of(path).lower(), self.slugs[path])
        object.__setattr__(self, "routes", routes)

    def target(self, url: str, page: str) -> str | None:
        """``slug#anchor`` of the page ``url`` names, seen from the file ``page``; None when
        it names nothing in the tree (another site, a file that is no page, a typo)."""
        url = url.strip().strip("<>")
        if not url or url.startswith("#") or "://" in url or url.startswith("//"):
            return None
        if _SCHEME.match(url):
            return None  # mailto:, tel:, javascript:…
        if url.startswith("/"):
            return self._absolute(url)
        return self._relative(url, page)

    def _relative(self, url: str, page: str) -> str | None:
        path, anchor = _split(url)
        folder = str(PurePosixPath(page).parent)
        found = mkdocs.relative_path("" if folder == "." else folder, path)
        if found is None:
            return None
        joined = found[0].removeprefix("./")
        candidates = [joined]
        if not PurePosixPath(joined).suffix:
            stems = ("index", "README")
            candidates = [f"{joined}/{s}{suffix}" for s in stems for suffix in PAGE_SUFFIXES]
            candidates += [f"{joined}{suffix}" for suffix in PAGE_SUFFIXES]
        for candidate in candidates:
            slug = self.slugs.get(candidate)
            if slug is not None:
                return _with_anchor(slug, anchor)
        # A relative link written as an address (``../x/``), as a site with directory
        # URLs reads it: against the page's own route, which is a folder there.
        addressed = normpath(f"{route_of(page)}/{path}").lstrip("/")
        if addressed == ".." or addressed.startswith("../"):
            return None
        return self._route("" if addressed == "." else addressed, anchor)

    def _absolute(self, url: str) -> str | None:
        path, anchor = _split(url)
        return self._route(normpath(path).lstrip("/"), anchor)

    def _route(self, path: str, anchor: str) -> str | None:
        route = path.strip("/")
        for suffix in (".html", *PAGE_SUFFIXES):
            if route.lower().endswith(suffix):
                route = route[: -len(suffix)]
                break
        if route.rsplit("/", 1)[-1].lower() in _INDEX_STEMS:
            route = route.rpartition("/")[0]
        key = route.lower()
        slug = self.routes.get(key)
        first, _, rest = key.partition("/")
        for prefix in (self.locale, self.base):
            if slug is None and prefix and first == prefix.lower():
                slug = self.routes.get(rest)
        return None if slug is None else _with_anchor(slug, anchor)

    def rewrite(self, line: str, page: str) -> str:
        """``line`` (of the file ``page``, outside code) with each Markdown link to a page of
        the tree as a wiki link; a link that starts inside a code span is code."""
        if "](" not in line:
            return line
        spans = [(m.start(), m.end()) for m in _CODE_SPAN.finditer(line)]

        def replace(match: re.Match[str]) -> str:
            if any(start <= match.start() < end for start, end in spans):
                return match.group(0)
            target = self.target(match.group("url"), page)
            label = match.group("text").strip()
            if target is None or not wikilinks.is_link(f"{target}|{label}"):
                return match.group(0)
            pipe = "\\|" if "|" in line.replace(match.group(0), "") else "|"
            return f"[[{target}{pipe + label if label else ''}]]"

        return _LINK.sub(replace, line)


def _is_index(path: str) -> bool:
    return PurePosixPath(path).stem.lower() in _INDEX_STEMS


def _split(url: str) -> tuple[str, str]:
    """(path, anchor) of a link, its query dropped and its escapes read."""
    path, _, anchor = url.partition("#")
    path = path.partition("?")[0]
    return unquote(path), unquote(anchor)


def _with_anchor(slug: str, anchor: str) -> str:
    return f"{slug}#{anchor}" if anchor else slug
