"""The build manifest: what the last successful build published, for the next one.

The manifest is what the last successful build published: per page its version,
content hash, title, outgoing links and output hash (plus what listings and the search
index show of it: type, tags, category, date, language, summary), the pages it did not
publish (drafts, archived, failing), the hash of every other file, and when it read the
store. An incremental build reads only the pages written since then (with a margin) and
takes every other page from the manifest; ``shared.site.plan`` decides from it which
pages are rendered again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from shared.json_value import JsonObject
from shared.records import freshness_key
from shared.schema import Page
from shared.site.refs import Refs

FORMAT = 4  # 3: each page's scan of its HTML (``refs``); 4: search terms folded ß as ss
# Pages written up to this long before the last build read the store are read again: a
# writer's clock may be behind ours, and a write dated before our read may commit after
# it. Re-reading a page costs a read; its unchanged hash means it is not rendered again.
READ_MARGIN_SECONDS = 300.0


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
    # The rest of what other pages, listings and the search index show of it (the
    # fields of ``shared.site.entries.Entry`` not above), so an incremental build need
    # not read it: type, tags, category, date…
    shown: Mapping[str, Any] = field(default_factory=dict)
    chrome: str = ""  # nav.chrome_hash: breadcrumbs and previous/next as last rendered
    refs: Refs = field(default_factory=Refs)  # its HTML's addresses and ids (``site.refs``)
    # Per passage (anchor, heading, counted forms): what the search shards need of the
    # page (shared.site.search.PageTerms), so unchanged pages are not read to build them.
    terms: tuple[tuple[str, str, str], ...] = ()

    def to_json(self) -> JsonObject:
        return {
            "v": self.version,
            "h": self.hash,
            "t": self.title,
            "l": list(self.links),
            "o": self.out,
            "g": self.lang,
            "s": self.summary,
            "e": dict(self.shown),
            "c": self.chrome,
            "r": self.refs.to_json(),
            "p": [list(t) for t in self.terms],
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
            shown=dict(data["e"]),
            chrome=str(data.get("c", "")),
            refs=Refs.from_json(data.get("r", {})),
            terms=tuple((str(a), str(h), str(f)) for a, h, f in data.get("p", ())),
        )


@dataclass(frozen=True, slots=True)
class Held:
    """A page the build did not publish: a draft (``info`` is its curator-report row),
    archived, failing the schema or failing to render (``info`` is ``{slug, field,
    error}``). Remembered so an incremental build need not read it again."""

    kind: str  # DRAFT, ARCHIVED, INVALID or UNRENDERED
    info: Mapping[str, Any] | None = None

    def to_json(self) -> JsonObject:
        return {"k": self.kind, "i": dict(self.info) if self.info is not None else None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Held:
        kind, info = str(data["k"]), data["i"]
        if kind not in HELD_KINDS or not (info is None or isinstance(info, dict)):
            raise ValueError(f"bad held page {data!r}")
        return cls(kind, info)


DRAFT, ARCHIVED, INVALID, UNRENDERED = "draft", "archived", "invalid", "unrendered"
HELD_KINDS = (DRAFT, ARCHIVED, INVALID, UNRENDERED)


@dataclass(frozen=True)
class Manifest:
    """What one successful build published (see the module docstring)."""

    build_id: str
    built_at: str
    render_key: str  # renderer version, templates and settings: a change means full build
    location: str
    pages: Mapping[str, PageState] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)  # non-page outputs -> hash
    held: Mapping[str, Held] = field(default_factory=dict)  # pages not published
    read_at: str = ""  # ISO time just before the build read the store
    # The search shards' input (titles and page terms) hash and split prefixes: when the
    # input did not change, the shards are kept instead of built again.
    search: Mapping[str, Any] = field(default_factory=dict)

    def read_since(self) -> datetime | None:
        """Where the next incremental read starts (None: read every page)."""
        try:
            moment = datetime.fromisoformat(self.read_at)
        except ValueError:
            return None
        if moment.tzinfo is None:
            return None
        return moment - timedelta(seconds=READ_MARGIN_SECONDS)

    def to_json(self) -> JsonObject:
        return {
            "format": FORMAT,
            "build_id": self.build_id,
            "built_at": self.built_at,
            "render_key": self.render_key,
            "location": self.location,
            "pages": {slug: state.to_json() for slug, state in self.pages.items()},
            "files": dict(self.files),
            "held": {slug: held.to_json() for slug, held in self.held.items()},
            "read_at": self.read_at,
            "search": dict(self.search),
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
                held={str(s): Held.from_json(h) for s, h in data["held"].items()},
                read_at=str(data["read_at"]),
                search=dict(data.get("search") or {}),
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
