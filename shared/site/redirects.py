"""Redirect pages: an old address of the site that leads to a page's new one, anchor kept.

One mechanism for every address that moved: an imported page's route in its own
generator (``/reference/react/useState`` for ``reference—react—usestate``) and a page
merged into another (its slug leads to the page that kept its text). A static site has
no server rules, so each old address is a small HTML page at ``<path>/index.html`` that
replaces itself with the target, the ``#anchor`` the reader came with appended; without
script, a meta refresh and a visible link do the same without the anchor. Pure.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from html import escape
from typing import Any
from urllib.parse import quote

from shared.records import STAGE_LISTINGS, Output
from shared.site import paths


@dataclass(frozen=True, slots=True)
class Redirect:
    """``path``: the old address, relative to the site root without a leading or trailing
    ``/`` (``reference/react/useState``); ``target``: the page it leads to, relative to
    the root as the site links it (``reference%E2%80%94react%E2%80%94usestate/``)."""

    path: str
    target: str


def redirect_html(redirect: Redirect) -> str:
    """The page published at ``redirect.path``: it leads to the target, keeping the hash."""
    depth = redirect.path.count("/") + 1
    href = "../" * depth + redirect.target
    url = escape(href, quote=True)
    script_url = href.replace("\\", "\\\\").replace("'", "\\'").replace("<", "\\x3c")
    return (
        "<!doctype html>\n"
        '<html><head><meta charset="utf-8">\n'
        '<meta name="robots" content="noindex">\n'
        f'<link rel="canonical" href="{url}">\n'
        f'<meta http-equiv="refresh" content="0; url={url}">\n'
        f"<script>location.replace('{script_url}' + location.hash)</script>\n"
        "<title>Moved</title></head>\n"
        f'<body><p>This page moved: <a href="{url}">{url}</a>.</p></body></html>\n'
    )


def redirect_outputs(redirects: Iterable[Redirect], taken: Iterable[str]) -> Iterator[Output]:
    """One file per redirect whose address is safe and is no page's own (``taken``: the
    output paths the build already writes); the first redirect of an address wins. An
    address inside a folder the build writes (a page's folder, ``static/``) is left out:
    page folders are published whole, and a file put inside one would be lost."""
    used = set(taken)
    folders = {p.split("/", 1)[0] for p in used if "/" in p}
    for redirect in redirects:
        try:
            path = paths.safe_relative(f"{redirect.path.strip('/')}/{paths.INDEX}")
        except paths.UnsafePath:
            continue
        if path in used or path.split("/", 1)[0] in folders:
            continue
        used.add(path)
        yield Output(path, redirect_html(redirect).encode(), STAGE_LISTINGS)


def import_redirects(imports: Mapping[str, Any] | None, slugs: Collection[str]) -> list[Redirect]:
    """A redirect from each address an imported page had in its own generator (what
    ``SiteState.load_imports`` keeps: ``{"trees": {tree: {"routes": {slug: [address,
    …]}}}}``) to the page, for the pages on the site (``slugs``); trees in name order."""
    out: list[Redirect] = []
    trees = (imports or {}).get("trees") or {}
    for name in sorted(trees):
        routes = trees[name].get("routes") if isinstance(trees[name], Mapping) else None
        for slug, addresses in sorted((routes or {}).items()):
            if slug not in slugs or not isinstance(addresses, list):
                continue
            target = f"{quote(slug, safe='')}/"
            out += [Redirect(a, target) for a in addresses if isinstance(a, str) and a]
    return out


def imported_site_name(imports: Mapping[str, Any] | None) -> str | None:
    """The site's name a tree's generator states (``site_name``, ``title``), first tree
    in name order: the site's name when ``BIBLIOTECA_SITE_NAME`` is unset."""
    trees = (imports or {}).get("trees") or {}
    for name in sorted(trees):
        value = trees[name].get("site_name") if isinstance(trees[name], Mapping) else None
        if isinstance(value, str) and value.strip():
            return value.strip()[:100]
    return None
