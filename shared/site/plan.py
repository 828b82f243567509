"""The incremental plan: which pages a build renders again, and which it takes down.

Pure: from the last build's manifest (``shared.site.manifest``) and the site as this
build sees it, a frozen ``Plan``. A page is rendered again when it changed, when a
change touches what it shows of other pages (link text, backlinks), or when its
navigation chrome changed; a page no longer published has its files deleted.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from shared.site import paths
from shared.site.manifest import PageState


@dataclass(frozen=True, slots=True)
class SiteNow:
    """The site as this build sees it, as much as the plan needs: every live page's
    content hash, outgoing links, title, inbound links and chrome hash
    (``nav.chrome_hash``), and which live pages this build took from the manifest
    without reading them."""

    hashes: Mapping[str, str]
    links: Mapping[str, Sequence[str]]
    titles: Mapping[str, str]
    inbound: Mapping[str, set[str]]
    chrome: Mapping[str, str]
    unread: Collection[str] = ()


@dataclass(frozen=True, slots=True)
class Plan:
    """What one build does with its pages (the other files are compared after rendering)."""

    full: bool
    changed: frozenset[str]  # new or edited since the last build (every page, when full)
    gone: frozenset[str]  # published by the last build, not by this one
    affected: frozenset[str]  # unchanged, but show something of a changed or gone page
    reframed: frozenset[str]  # unchanged, but their breadcrumbs or previous/next changed
    unread: frozenset[str]  # live pages taken from the manifest without reading them

    @property
    def render(self) -> frozenset[str]:
        """Every page rendered again."""
        return self.changed | self.affected | self.reframed

    @property
    def read_again(self) -> frozenset[str]:
        """The pages to render that the build has not read: it reads them first."""
        return self.render & self.unread

    @property
    def delete(self) -> tuple[str, ...]:
        """The files of the pages gone (none in a full build: it publishes the whole site)."""
        if self.full:
            return ()
        out: list[str] = []
        for slug in sorted(self.gone):
            try:
                out.extend(paths.page_files(slug))
            except paths.UnsafePath:
                continue  # a tampered manifest: such a page was never published
        return tuple(out)


def changed_pages(
    hashes: Mapping[str, str], before: Mapping[str, PageState], *, full: bool
) -> set[str]:
    """The pages new or edited since the last build (every page, when full): what a build
    parses before it can see the site, and so make its plan."""
    return set(hashes) if full else diff(hashes, before)[0]


def plan(before: Mapping[str, PageState], now: SiteNow, *, full: bool) -> Plan:
    """The plan of a build whose last one published ``before`` (empty: none did)."""
    changed = changed_pages(now.hashes, before, full=full)
    gone = set(before) - set(now.hashes)
    touched: set[str] = set()
    moved: set[str] = set()
    if not full:
        touched = affected(changed | gone, before, now.links, now.titles, now.inbound)
        moved = reframed(now.chrome, before)
    return Plan(
        full=full,
        changed=frozenset(changed),
        gone=frozenset(gone),
        affected=frozenset(touched - changed),
        reframed=frozenset(moved - changed - touched),
        unread=frozenset(now.unread),
    )


def diff(hashes: Mapping[str, str], previous: Mapping[str, PageState]) -> tuple[set[str], set[str]]:
    """(changed, gone): pages new or edited since the last build, and pages no longer here."""
    changed = {
        slug for slug, h in hashes.items() if slug not in previous or previous[slug].hash != h
    }
    gone = set(previous) - set(hashes)
    return changed, gone


def affected(
    touched: Iterable[str],
    previous: Mapping[str, PageState],
    links: Mapping[str, Sequence[str]],
    titles: Mapping[str, str],
    inbound: Mapping[str, set[str]],
) -> set[str]:
    """Unchanged pages that show something of the ``touched`` pages (changed or gone).

    ``links``/``titles``/``inbound`` describe the site now. When a page appears, disappears or is
    renamed, the pages linking to it (link text, broken or not) and the pages it links
    to (their backlinks) change; when only its links change, the targets it gained or
    lost change (their backlinks).
    """
    out: set[str] = set()
    for slug in touched:
        old = previous.get(slug)
        old_links = set(old.links) if old else set()
        new_links = set(links.get(slug, ()))
        face_changed = old is None or slug not in titles or old.title != titles[slug]
        if face_changed:
            out |= inbound.get(slug, set()) | old_links | new_links
        else:
            out |= old_links ^ new_links
    return {slug for slug in out if slug in titles}


def reframed(chrome: Mapping[str, str], previous: Mapping[str, PageState]) -> set[str]:
    """Pages whose navigation chrome (breadcrumbs, previous/next) changed since the last
    build: a new page re-renders its neighbours in the reading order, a renamed section
    index the pages under it, and nothing else (the sidebar is one file, ``nav.js``)."""
    return {slug for slug, h in chrome.items() if slug in previous and previous[slug].chrome != h}
