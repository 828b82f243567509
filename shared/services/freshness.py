"""Freshness, the I/O part: checked when a page is written, rechecked after ``index_code``.

A page write costs one ``CodeIndex.lookup`` of its cited paths (plus one ``paths_named``
only when some are missing, for the suggestions). After an index change only the pages
citing a path that changed are read, through the path index the page store keeps
(``PageStore.citing``; every citing page when the indexed top-level folders changed),
and they are checked together in batched lookups. An unreadable
code index never fails a write: the page is ``unknown`` and a WARNING says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from shared import clock
from shared.errors import BibliotecaError
from shared.gates.staleness import assess, file_name, judged, page_cited
from shared.logs import get_logger
from shared.ports import CodeIndex, Store
from shared.records import CitingRecord, Freshness, PathChanges
from shared.text.code_paths import path_key, suffix_keys

BATCH_KEYS = 300  # keys per lookup when rechecking many pages at once

_log = get_logger("freshness")


def check_page(
    front_matter: Mapping[str, Any],
    content: str,
    code: CodeIndex,
    *,
    at: datetime | None = None,
) -> Freshness:
    """The freshness of a page about to be written."""
    moment = at or clock.now()
    cited = page_cited(front_matter, content)
    if not cited:
        return assess((), None, moment)
    return _check_many([cited], code, moment)[0]


def _check_many(
    cited_lists: Sequence[Sequence[str]], code: CodeIndex, at: datetime
) -> list[Freshness]:
    """Each list's freshness, with one lookup per ``BATCH_KEYS`` keys for all of them."""
    keys = sorted({path_key(p) for cited in cited_lists for p in cited})
    found: set[str] = set()
    try:
        total = None
        roots: frozenset[str] | None = None
        seen: set[str] | None = set()
        for start in range(0, max(len(keys), 1), BATCH_KEYS):
            lookup = code.lookup(keys[start : start + BATCH_KEYS])
            found |= lookup.found
            total = lookup.indexed_paths
            roots = lookup.roots  # every lookup reads the same meta: the last is the newest
            seen = None if seen is None or lookup.seen is None else seen | lookup.seen
        if not total:
            return [assess(cited, None, at) for cited in cited_lists]
        held = None if seen is None else frozenset(seen | found)
        names = sorted(
            {
                file_name(p)
                for cited in cited_lists
                for p in cited
                if path_key(p) not in found and judged(p, roots, held)
            }
        )
        candidates = code.paths_named(names) if names else {}
    except BibliotecaError as exc:
        _log.warning("freshness not checked (unknown): the code index cannot be read: %s", exc)
        return [assess(cited, None, at) for cited in cited_lists]
    frozen = frozenset(found)
    return [assess(cited, frozen, at, candidates, roots, held) for cited in cited_lists]


@dataclass(frozen=True, slots=True)
class Recheck:
    """What a recheck did: pages read through the path index, and pages whose freshness moved."""

    read: int
    changed: int

    def body(self) -> dict[str, int]:
        return {"read": self.read, "changed": self.changed}


def affected_keys(changes: PathChanges) -> list[str] | None:
    """The path-index keys an index change touches; None: every citing page, when the
    index became empty or stopped being empty (``unknown`` flips everywhere) or its roots
    changed (a path under a new or gone top-level folder is judged or stops being, and it
    is not among the changed paths' keys). Roots change rarely (a repository's first
    index, a top-level folder added or removed), so the full read of the citing pages
    that costs is rare too."""
    if changes.roots_changed or (changes.total_before == 0) != (changes.total_after == 0):
        return None
    return sorted({k for p in (*changes.added, *changes.removed) for k in suffix_keys(p)})


def recheck_after(changes: PathChanges, store: Store, *, at: datetime | None = None) -> Recheck:
    """Recheck only the pages citing a path ``changes`` added or removed (every citing
    page when ``affected_keys`` says so)."""
    keys = affected_keys(changes)
    if keys is not None and not keys:
        return Recheck(read=0, changed=0)
    return recheck(store.pages.citing(keys), store, at=at)


def recheck(pages: Sequence[CitingRecord], store: Store, *, at: datetime | None = None) -> Recheck:
    """Recompute and store the freshness of ``pages`` (written only when it moved)."""
    moment = at or clock.now()
    fresh = _check_many([p.freshness.cited for p in pages], store.code, moment)
    updates = [
        (page.slug, page.version, new)
        for page, new in zip(pages, fresh, strict=True)
        if not _same(page.freshness, new)
    ]
    changed = store.pages.set_freshness_many(updates) if updates else 0
    _log.info("freshness rechecked", extra={"read": len(pages), "changed": changed})
    return Recheck(read=len(pages), changed=changed)


def recheck_all(store: Store, *, at: datetime | None = None) -> Recheck:
    """Every page from its text (pages written before freshness existed included): the
    full scan that ``recheck_after`` avoids, and the repair for an old store."""
    records = store.pages.list()
    moment = at or clock.now()
    cited = [page_cited(r.front_matter, r.content) for r in records]
    fresh = _check_many([c for c in cited if c], store.code, moment)
    by_slug = dict(
        zip([r.slug for r, c in zip(records, cited, strict=True) if c], fresh, strict=True)
    )
    updates = []
    for record in records:
        new = by_slug.get(record.slug) or assess((), None, moment)
        if record.freshness is None or not _same(record.freshness, new, cited=True):
            updates.append((record.slug, record.version, new))
    changed = store.pages.set_freshness_many(updates) if updates else 0
    return Recheck(read=len(records), changed=changed)


def _same(old: Freshness, new: Freshness, *, cited: bool = False) -> bool:
    """Nothing but the time of the check moved: not worth a write."""
    return (old.state, old.missing, dict(old.suggestions), old.outside) == (
        new.state,
        new.missing,
        dict(new.suggestions),
        new.outside,
    ) and (not cited or old.cited == new.cited)
