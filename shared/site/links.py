"""The link graph of the published site: outgoing links and backlinks.

A page links to the targets of its ``[[wiki links]]`` (and relative links to ``.md``
files, see ``markdown``) and to its ``related`` slugs. ``resolve`` turns the markers of a
rendered body into links relative to the page, marked broken when the target is not
published (which links are dead is found in the built HTML: ``refs``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from html import unescape
from urllib.parse import quote, unquote

from markupsafe import Markup, escape

from shared.site.markdown import LINK_MARKERS_RE, Body
from shared.site.paths import page_href
from shared.site.refs import matching_anchor
from shared.text.slugs import slug_problem


def outgoing(body_targets: Iterable[str], related: Iterable[str]) -> tuple[str, ...]:
    """Distinct link targets of a page (wiki links first, then ``related``), order kept."""
    return tuple(dict.fromkeys([*body_targets, *related]))


def inbound(links: Mapping[str, Sequence[str]]) -> dict[str, set[str]]:
    """Target -> the pages linking to it (self-links ignored)."""
    out: dict[str, set[str]] = {}
    for source, targets in links.items():
        for target in targets:
            if target != source:
                out.setdefault(target, set()).add(source)
    return out


_SAME_PAGE = re.compile(r'(<a\s[^<>]*?href=")#([^"]*)(")')


def resolve(
    body: Body,
    titles: Mapping[str, str],
    root: str,
    anchors: Mapping[str, Collection[str]] | None = None,
    slug: str = "",
    *,
    aliases: Mapping[str, str] | None = None,
) -> Markup:
    """The body's HTML with each wiki-link marker replaced by a link or a broken-link mark.

    A link written with Markdown text (``[[slug|`code`]]``, ``[**x**](page.md)``) keeps
    that text's HTML, rendered between its two markers. ``anchors`` (each page's ids)
    turn an anchor spelled by another generator into the id the target has
    (``refs.matching_anchor``), in links to other pages and to ``slug``'s own. A link to
    a page merged into another (``aliases``: merged slug -> the page that kept its text)
    leads to that page.
    """
    ids = anchors or {}
    moved = aliases or {}

    def replace(match: re.Match[str]) -> str:
        number, inner = (match.group(1), None) if match.group(1) else match.group(2, 3)
        link = body.links[int(number)]
        target = moved.get(link.target, link.target)
        title = titles.get(target)
        shown = inner if inner is not None else escape(link.text or title or link.target)
        if title is None and slug_problem(target) is not None:
            return f'<span class="wikilink broken">{shown}</span>'  # no address to point at
        anchor = matching_anchor(link.anchor or "", ids.get(target, ()))
        href = page_href(root, target) + (f"#{quote(anchor)}" if anchor else "")
        # A page not published is still linked where it would be: the dead link is what
        # a reader and a crawler meet, and what ``broken_links`` reports (``refs``).
        kind = "wikilink" if title is not None else "wikilink broken"
        return f'<a class="{kind}" href="{escape(href)}">{shown}</a>'

    # The body is the safe renderer's output (nh3 last), the inner HTML of a marker pair
    # is part of it, and every value put into a replacement is escaped: safe markup.
    html = LINK_MARKERS_RE.sub(replace, body.html)
    own = ids.get(slug)
    if own:

        def same_page(match: re.Match[str]) -> str:
            anchor = unescape(unquote(match.group(2)))
            found = matching_anchor(anchor, own)
            if found == anchor:
                return match.group(0)
            return f"{match.group(1)}#{escape(quote(found))}{match.group(3)}"

        html = _SAME_PAGE.sub(same_page, html)
    return Markup(html)  # noqa: S704
