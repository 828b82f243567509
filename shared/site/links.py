"""The link graph of the published site: outgoing links, backlinks, broken links.

A page links to the targets of its ``[[wiki links]]`` and to its ``related`` slugs;
a target that is not a published page is broken. ``resolve`` turns the markers of a
rendered body into links (or escaped text for broken ones), relative to the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from markupsafe import Markup

from shared.site.markdown import MARKER_RE, Body
from shared.site.paths import page_href


def outgoing(body_targets: Iterable[str], related: Iterable[str]) -> tuple[str, ...]:
    """Distinct link targets of a page (wiki links first, then ``related``), order kept."""
    return tuple(dict.fromkeys([*body_targets, *related]))


def backlinks(links: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Target -> the pages linking to it (each source once, sorted; self-links ignored)."""
    out: dict[str, set[str]] = {}
    for source, targets in links.items():
        for target in targets:
            if target != source:
                out.setdefault(target, set()).add(source)
    return {target: sorted(sources) for target, sources in out.items()}


def broken(
    links: Mapping[str, Sequence[str]], published: Mapping[str, object]
) -> list[dict[str, str]]:
    """``[{slug, target}]`` for every link to a page that is not published, sorted."""
    return [
        {"slug": source, "target": target}
        for source in sorted(links)
        for target in links[source]
        if target not in published
    ]


def resolve(body: Body, titles: Mapping[str, str], root: str) -> Markup:
    """The body's HTML with each wiki-link marker replaced by a link or a broken-link mark."""

    def replace(match: re.Match[str]) -> str:
        link = body.links[int(match.group(1))]
        title = titles.get(link.target)
        if title is None:
            text = link.text or link.target
            return str(Markup('<span class="wikilink broken">{}</span>').format(text))
        return str(
            Markup('<a class="wikilink" href="{}">{}</a>').format(
                page_href(root, link.target), link.text or title
            )
        )

    # The body is markdown-it's output with raw HTML off, and each replacement is built
    # with Markup.format (which escapes), so the result is safe markup.
    return Markup(MARKER_RE.sub(replace, body.html))  # noqa: S704
