"""The redirects of merged pages: a page archived with ``redirect_to`` (``biblioteca
merge``) leads readers of its address to the page that kept its text, anchor kept.

Built from what the build holds of unpublished pages (the manifest remembers each
archived page's ``redirect_to``, so an incremental build needs no read), as
``shared.site.redirects.Redirect``s beside the other moved addresses. Chains are
followed to the page readers see; a cycle or a target no longer published leads nowhere
and writes no redirect.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from shared.site.manifest import ARCHIVED, Held
from shared.site.paths import INDEX, page_path
from shared.site.redirects import Redirect

MAX_HOPS = 10


def merged_targets(held: Mapping[str, Held], published: Collection[str]) -> dict[str, str]:
    """Merged slug -> the published page it now leads to."""
    step = {
        slug: str(h.info["redirect_to"])
        for slug, h in held.items()
        if h.kind == ARCHIVED and h.info and h.info.get("redirect_to")
    }
    out: dict[str, str] = {}
    for slug in step:
        target, hops = step[slug], 0
        while target in step and hops < MAX_HOPS:
            target, hops = step[target], hops + 1
        if target in published and target != slug:
            out[slug] = target
    return out


def merged_redirects(targets: Mapping[str, str]) -> list[Redirect]:
    """One redirect per merged page (``merged_targets``), from its address to its
    target's, by slug."""
    return [
        Redirect(slug, page_path(target).removesuffix(INDEX))
        for slug, target in sorted(targets.items())
    ]
