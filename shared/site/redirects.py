"""Redirect pages: an old address of the site that leads to a page's new one, anchor kept.

One mechanism for every address that moved: an imported page's route in its own
generator (``/reference/react/useState`` for ``reference—react—usestate``) and a page
merged into another (its slug leads to the page that kept its text). A static site has
no server rules, so each old address is a small HTML page at ``<path>/index.html`` that
replaces itself with the target, the ``#anchor`` the reader came with appended; without
script, a meta refresh and a visible link do the same without the anchor. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from html import escape

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
    output paths the build already writes); the first redirect of an address wins."""
    used = set(taken)
    for redirect in redirects:
        try:
            path = paths.safe_relative(f"{redirect.path.strip('/')}/{paths.INDEX}")
        except paths.UnsafePath:
            continue
        if path in used:
            continue
        used.add(path)
        yield Output(path, redirect_html(redirect).encode(), STAGE_LISTINGS)
