"""The build manifest and the incremental plan: which pages must be rendered again.

The manifest is what the last successful build published: per page its version,
content hash, title, outgoing links and output hash (plus the cached language and
summary), and the hash of every other file. A page is rendered again when it changed,
or when a change touches what it shows of other pages (link text, backlinks).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from shared.freshness import freshness_key
from shared.schema import Page

FORMAT = 1


def page_hash(page: Page) -> str:
    """Hash of everything of a page the site shows: a changed hash means render it again."""
    digest = hashlib.sha256()
    for part in (
        page.slug,
        page.front_matter.model_dump_json(),
        page.content,
        str(page.version),
        page.updated_at.isoformat(),
        freshness_key(page.freshness),  # its stale notice changes without a new version
    ):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:20]


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:20]


@dataclass(frozen=True, slots=True)
class PageState:
    """One published page as the manifest remembers it."""

    version: int
    hash: str
    title: str
    links: tuple[str, ...]
    out: str  # hash of its HTML
    lang: str
    summary: str

    def to_json(self) -> dict[str, Any]:
        return {
            "v": self.version,
            "h": self.hash,
            "t": self.title,
            "l": list(self.links),
            "o": self.out,
            "g": self.lang,
            "s": self.summary,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PageState:
        return cls(
            version=int(data["v"]),
            hash=str(data["h"]),
            title=str(data["t"]),
            links=tuple(str(x) for x in data["l"]),
            out=str(data["o"]),
            lang=str(data["g"]),
            summary=str(data["s"]),
        )


@dataclass(frozen=True)
class Manifest:
    """What one successful build published (see the module docstring)."""

    build_id: str
    built_at: str
    render_key: str  # renderer version, templates and settings: a change means full build
    location: str
    pages: Mapping[str, PageState] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)  # non-page outputs -> hash

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "build_id": self.build_id,
            "built_at": self.built_at,
            "render_key": self.render_key,
            "location": self.location,
            "pages": {slug: state.to_json() for slug, state in self.pages.items()},
            "files": dict(self.files),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Manifest | None:
        """The manifest, or None when absent, of another format or unreadable (full build)."""
        if not data or data.get("format") != FORMAT:
            return None
        try:
            return cls(
                build_id=str(data["build_id"]),
                built_at=str(data["built_at"]),
                render_key=str(data["render_key"]),
                location=str(data["location"]),
                pages={str(s): PageState.from_json(p) for s, p in data["pages"].items()},
                files={str(k): str(v) for k, v in data["files"].items()},
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            return None


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
