"""Which published pages cite a code path, in their ``code`` sources or in their text.

The paths of every active page are indexed once per change of the store (the chunk
index's fingerprint moves with every page write), so a question costs one small read.
"""

from __future__ import annotations

import threading
import weakref
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from shared.api.models import CitingPage, PagesCitingResponse
from shared.gates.staleness import state_of
from shared.ports import Store
from shared.records import PageRecord
from shared.site.paths import page_url
from shared.text.code_paths import cited_paths, normalize_path, path_key

Where = Literal["sources", "content"]
_PLACES: tuple[Where, ...] = ("sources", "content")


@dataclass(frozen=True, slots=True)
class Citing:
    """A page that cites the path asked about: which of its paths match, and where."""

    record: PageRecord
    cites: list[str]  # as the page spells them
    where: list[Where]


@dataclass
class _Index:
    """Every cited path of the active pages: by each '/'-suffix of its key, and whole."""

    pages: dict[str, PageRecord] = field(default_factory=dict)
    spelled: dict[tuple[str, str], tuple[str, set[Where]]] = field(default_factory=dict)
    by_suffix: defaultdict[str, set[tuple[str, str]]] = field(
        default_factory=lambda: defaultdict(set)
    )
    by_key: defaultdict[str, set[tuple[str, str]]] = field(default_factory=lambda: defaultdict(set))

    def add(self, record: PageRecord, path: str, where: Where) -> None:
        key = path_key(path)
        if not key:
            return
        entry = (record.slug, key)
        self.spelled.setdefault(entry, (path, set()))[1].add(where)
        self.by_key[key].add(entry)
        for suffix in _suffixes(key):
            self.by_suffix[suffix].add(entry)


def _suffixes(key: str) -> Iterable[str]:
    """``a/b/c.py`` -> ``a/b/c.py``, ``b/c.py``, ``c.py``."""
    segments = key.split("/")
    return ("/".join(segments[i:]) for i in range(len(segments)))


def page_paths(record: PageRecord) -> Iterable[tuple[str, Where]]:
    """The code paths a page cites: each ``code`` source's ref (a file URL read as its
    repository path) and every path its text cites by the archive gate's rules."""
    for source in record.front_matter.get("sources") or []:
        if isinstance(source, dict) and source.get("type") == "code":
            ref = str(source.get("ref", ""))
            for path in cited_paths(ref) or [normalize_path(ref)]:
                yield path, "sources"
    for path in cited_paths(record.content):
        yield path, "content"


def _build(records: Iterable[PageRecord]) -> _Index:
    index = _Index()
    for record in records:
        index.pages[record.slug] = record
        for path, where in page_paths(record):
            index.add(record, path, where)
    return index


class _Cached:
    def __init__(self) -> None:
        self.fingerprint: str | None = None
        self.index = _Index()
        self.lock = threading.Lock()


class CitationCache:
    """A process's path indexes, one per store it reads (the composition root holds it:
    ``Wiring.citations``)."""

    def __init__(self) -> None:
        self._cached: weakref.WeakKeyDictionary[object, _Cached] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def of(self, chunks: object) -> _Cached:
        with self._lock:
            return self._cached.setdefault(chunks, _Cached())

    def clear(self) -> None:
        with self._lock:
            self._cached.clear()


def _current(store: Store, cache: CitationCache) -> _Index:
    """The index as of the store's fingerprint: rebuilt only when a page was written."""
    chunks = store.chunks
    cached = cache.of(chunks)
    fingerprint = chunks.fingerprint()
    with cached.lock:
        if cached.fingerprint != fingerprint:
            # Read the fingerprint before the pages: a write in between only costs a rebuild.
            cached.index = _build(store.pages.list(status="active"))
            cached.fingerprint = fingerprint
        return cached.index


def pages_citing(path: str, store: Store, cache: CitationCache) -> list[Citing]:
    """The active pages citing ``path`` (normalized), by slug.

    A page matches when one of its paths ends with ``path`` on a '/' boundary
    (``services/wiki.py`` finds ``shared/services/wiki.py``) or ``path`` ends with one of
    its paths (a page citing ``services/wiki.py`` is about ``shared/services/wiki.py``,
    the rule by which the archive gate resolves a cited path); case is ignored.
    """
    index = _current(store, cache)
    key = path_key(path)
    entries = set(index.by_suffix.get(key, ()))
    for suffix in _suffixes(key):
        if "/" in suffix:  # a page's one-segment ref is a name, not a path that ends this one
            entries |= index.by_key.get(suffix, set())
    found: dict[str, tuple[list[str], set[Where]]] = {}
    for slug, entry_key in sorted(entries):
        spelling, places = index.spelled[(slug, entry_key)]
        cites, where = found.setdefault(slug, ([], set()))
        cites.append(spelling)
        where |= places
    return [
        Citing(
            record=index.pages[slug],
            cites=cites,
            where=[w for w in _PLACES if w in where],
        )
        for slug, (cites, where) in sorted(found.items())
    ]


def citing_report(
    path: str, store: Store, cache: CitationCache, site_url: str | None
) -> PagesCitingResponse:
    """The agents' ``pages_citing``: each page citing ``path``, with what it cites, where,
    its freshness and its address on the published site."""
    found = pages_citing(path, store, cache)
    # Read now, not from the citations cache: a recheck after index_code changes a
    # page's freshness without a page write (the cache's fingerprint does not move).
    fresh = store.pages.freshness_of([c.record.slug for c in found]) if found else {}
    pages = [
        CitingPage(
            slug=c.record.slug,
            title=str(c.record.front_matter.get("title", "")),
            type=str(c.record.front_matter.get("type", "")),
            cites=c.cites,
            where=c.where,
            freshness=state_of(fresh.get(c.record.slug)),
            url=page_url(site_url, c.record.slug),
        )
        for c in found
    ]
    return PagesCitingResponse(path=path, pages=pages)
