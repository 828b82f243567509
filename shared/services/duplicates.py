"""``biblioteca duplicates`` and ``POST /wiki_duplicates``: bring the stored signatures up
to date with the change log, compare what changed with the rest, list the groups.

The first run (or one whose cursor the change log no longer covers) signs every active
and draft page and compares candidates found by LSH bands (shared shingles, shared code
references) and by nearest page vectors. A later run signs only the pages written since
its cursor and compares them with the candidates the store finds for them: the band
lookup and the chunk index's ``nearest``, each reading what matches, not every page.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from shared.api.models import (
    DuplicateGroup,
    DuplicatePage,
    DuplicatePassage,
    DuplicatesResponse,
)
from shared.dedup import codec
from shared.dedup.compare import BOTH, Finding, Signal, Thresholds, compare
from shared.dedup.signature import Signature, band_keys, page_vector, signature_of
from shared.ports import Embedder, Store
from shared.records import PageRecord, SearchFilter, StoredFinding, StoredSignature, Vector
from shared.text.code_paths import clean_path, path_key
from shared.workers import cpus, forked

COMPARED = ("active", "draft")  # an archived page is out of the wiki: never a duplicate
CROWDED_BAND = 50  # a band shared by more pages is boilerplate (a footer), not a duplicate
NEIGHBOURS = 8  # nearest pages by meaning compared with each page, at most
# Below this cosine no kind is found by meaning (a translation starts higher): nearer
# pages are compared, farther ones are not worth reading.
MEANING_FLOOR = 0.75
# A first run signs in worker processes from this many pages (forking them costs tens
# of milliseconds), sent this many at a time (each send is a pickle and a pipe write).
POOL_FROM_PAGES = 200
SIGNING_CHUNK = 32


@dataclass
class Run:
    """What one refresh did (``--json`` leaves it out; the bench reads it)."""

    full: bool
    signed: int = 0
    compared: int = 0
    found: int = 0
    removed: int = 0
    candidates: set[str] = field(default_factory=set)


def _vectors(store: Store, slug: str) -> list[Vector]:
    vectors = list(store.chunks.vectors_for(slug).values())
    if not vectors:
        return []
    # A page reindexed halfway holds two embedders' vectors: keep the common size.
    size = Counter(len(v) for v in vectors).most_common(1)[0][0]
    return [v for v in vectors if len(v) == size]


@dataclass(frozen=True, slots=True)
class _Signing:
    """What a page's signature is computed from: read from the store, sent to a worker."""

    slug: str
    version: int
    title: str
    status: str
    content: str
    vector: npt.NDArray[np.float32] | None

    def signature(self) -> Signature:
        return signature_of(
            self.slug,
            version=self.version,
            title=self.title,
            status=self.status,
            content=self.content,
            vector=self.vector,
        )


def _signing(store: Store, page: PageRecord) -> _Signing:
    fm = page.front_matter
    return _Signing(
        page.slug,
        page.version,
        str(fm.get("title") or page.slug),
        str(fm.get("status") or "active"),
        page.content,
        page_vector(_vectors(store, page.slug)),
    )


def sign(store: Store, page: PageRecord) -> Signature:
    """The signature of ``page`` as stored now (its chunk vectors averaged)."""
    return _signing(store, page).signature()


def _signature(signing: _Signing) -> Signature:
    return signing.signature()  # a module-level function: the worker processes run it


def _signed(store: Store, pages: Sequence[PageRecord]) -> dict[str, Signature]:
    """Every page's signature: signed in worker processes while this one reads the next
    pages' vectors, where a pool pays (``POOL_FROM_PAGES``) and can be had; in line
    otherwise. The same signatures either way."""
    with forked(cpus() if len(pages) >= POOL_FROM_PAGES else 0) as pool:
        readings = (_signing(store, p) for p in pages)
        if pool is None:
            return {r.slug: r.signature() for r in readings}
        try:
            signed = pool.map(_signature, readings, chunksize=SIGNING_CHUNK)
            return {s.slug: s for s in signed}
        except BrokenProcessPool:  # a worker died (out of memory): sign here
            return {p.slug: sign(store, p) for p in pages}


def refresh(
    store: Store,
    *,
    thresholds: Thresholds | None = None,
    signals: frozenset[Signal] = BOTH,
    full: bool = False,
) -> Run:
    """Bring the stored signatures and findings up to date (see the module docstring)."""
    index = store.duplicates
    cursor = None if full else codec.change_cursor(index.cursor())
    changes = store.chunks.changes_since(cursor)
    if cursor is None or not changes.complete:
        return _full(store, changes.cursor, thresholds, signals)
    run = Run(full=False)
    if not changes.slugs:
        return run
    fresh: dict[str, Signature] = {}
    removed: set[str] = set()
    for slug in sorted(changes.slugs):
        page = store.pages.get(slug)
        if page is None or page.front_matter.get("status") not in COMPARED:
            removed.add(slug)
        else:
            fresh[slug] = sign(store, page)
    candidates: set[str] = set()
    for signature in fresh.values():
        candidates |= index.sharing(signature.bands())
        candidates |= _nearest(store, signature)
    candidates -= set(fresh) | removed
    others = _decoded(index.signatures(candidates))
    if others is None:
        # Signed by an older rule: every page is signed again once, so like meets like.
        return _full(store, changes.cursor, thresholds, signals)
    pairs = {
        tuple(sorted((a.slug, b.slug)))
        for a in fresh.values()
        for b in [*others.values(), *fresh.values()]
        if a.slug != b.slug
    }
    every = {**others, **fresh}
    findings = _compared(pairs, every, thresholds, signals)
    index.save(
        signatures=[codec.stored_signature(s) for s in fresh.values()],
        removed=removed,
        findings=[_stored(f, every, store) for f in findings],
        touched=set(fresh) | removed,
        cursor=codec.stored_cursor(changes.cursor),
    )
    run.signed, run.removed, run.compared = len(fresh), len(removed), len(pairs)
    run.found, run.candidates = len(findings), candidates
    return run


def _decoded(
    stored: Iterable[StoredSignature], *, partial: bool = False
) -> dict[str, Signature] | None:
    """``stored`` decoded by slug; one an older rule signed is left out (``partial``) or
    makes the whole None (the caller signs every page again)."""
    out: dict[str, Signature] = {}
    for one in stored:
        signature = codec.signature_from(one)
        if signature is not None:
            out[one.slug] = signature
        elif not partial:
            return None
    return out


def _nearest(store: Store, signature: Signature) -> set[str]:
    """Pages whose chunks are nearest the page's meaning (the chunk index's own search:
    on Firestore a vector query reading ``limit`` documents)."""
    if signature.vector is None:
        return set()
    embedders = store.chunks.embedders()
    named = [e for e in embedders if e.endswith(f"@{len(signature.vector)}")]
    if len(named) != 1:
        return set()
    hits = store.chunks.nearest(
        signature.vector, embedder=named[0], filters=SearchFilter(), limit=NEIGHBOURS * 3
    )
    near: list[str] = []
    for hit in hits:
        if hit.cosine >= MEANING_FLOOR and hit.slug != signature.slug and hit.slug not in near:
            near.append(hit.slug)
    return set(near[:NEIGHBOURS])


def _full(
    store: Store,
    cursor: str,
    thresholds: Thresholds | None,
    signals: frozenset[Signal],
) -> Run:
    pages = [p for p in store.pages.list() if p.front_matter.get("status") in COMPARED]
    signatures = _signed(store, pages)
    pairs = candidate_pairs(signatures.values())
    findings = _compared(pairs, signatures, thresholds, signals)
    stored = store.duplicates.signatures(None)
    removed = {s.slug for s in stored} - set(signatures)
    store.duplicates.save(
        signatures=[codec.stored_signature(s) for s in signatures.values()],
        removed=removed,
        findings=[_stored(f, signatures, store) for f in findings],
        touched=None,
        cursor=codec.stored_cursor(cursor),
    )
    return Run(
        full=True,
        signed=len(signatures),
        compared=len(pairs),
        found=len(findings),
        removed=len(removed),
    )


def candidate_pairs(signatures: Iterable[Signature]) -> set[tuple[str, str]]:
    """The pairs worth comparing among ``signatures``: sharing an LSH band (not a
    crowded one), or among each other's nearest by meaning (pure, in memory)."""
    listed = list(signatures)
    buckets: dict[str, list[str]] = defaultdict(list)
    for signature in listed:
        for band in signature.bands():
            buckets[band].append(signature.slug)
    pairs: set[tuple[str, str]] = set()
    for slugs in buckets.values():
        if 1 < len(slugs) <= CROWDED_BAND:
            pairs.update(_ordered(a, b) for i, a in enumerate(slugs) for b in slugs[i + 1 :])
    pairs |= _meaning_pairs(listed)
    return pairs


def _ordered(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def _meaning_pairs(signatures: Sequence[Signature], block: int = 1024) -> set[tuple[str, str]]:
    with_vectors = [s for s in signatures if s.vector is not None]
    if len(with_vectors) < 2:
        return set()
    size = Counter(len(s.vector) for s in with_vectors if s.vector is not None).most_common(1)
    kept = [s for s in with_vectors if s.vector is not None and len(s.vector) == size[0][0]]
    matrix: npt.NDArray[np.float32] = np.stack([s.vector for s in kept if s.vector is not None])
    k = min(NEIGHBOURS, len(kept) - 1)
    pairs: set[tuple[str, str]] = set()
    for start in range(0, len(kept), block):
        scores = matrix[start : start + block] @ matrix.T
        for row in range(scores.shape[0]):
            scores[row, start + row] = -np.inf
        top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        for row, columns in enumerate(top):
            a = kept[start + row].slug
            pairs.update(
                _ordered(a, kept[int(c)].slug)
                for c in columns
                if scores[row, int(c)] >= MEANING_FLOOR
            )
    return pairs


def _compared(
    pairs: Iterable[tuple[str, ...]],
    signatures: Mapping[str, Signature],
    thresholds: Thresholds | None,
    signals: frozenset[Signal],
) -> list[Finding]:
    out: list[Finding] = []
    for a, b in pairs:
        if a in signatures and b in signatures:
            out.extend(
                compare(signatures[a], signatures[b], thresholds=thresholds, signals=signals)
            )
    return out


def _stored(finding: Finding, signatures: Mapping[str, Signature], store: Store) -> StoredFinding:
    pages = [
        {"slug": s.slug, "title": s.title, "lang": s.lang, "status": s.status}
        for s in (signatures[finding.a], signatures[finding.b])
    ]
    return codec.stored_finding(finding, pages, _truth(finding, store))


def _truth(finding: Finding, store: Store) -> str | None:
    """For a conflict whose values are paths: which one the code index holds."""
    if finding.kind != "conflict":
        return None
    values: dict[str, str] = {}
    for passage in finding.passages:
        for value in passage.text.split(" = ", 1)[-1].split(", "):
            path, problem = clean_path(value)
            if problem is None and "/" in path:
                values[path] = passage.slug
    if not values:
        return None

    keys = {path_key(p): p for p in values}
    found = store.code.lookup(list(keys)).found
    true = [keys[k] for k in keys if k in found]
    if len(true) != 1:
        return None
    return f"the code index has {true[0]}: '{values[true[0]]}' states it"


def listing(store: Store, *, min_score: float = 0.0) -> DuplicatesResponse:
    """The groups found, best first, without the pairs a curator dismissed."""
    dismissed = store.duplicates.dismissed()
    groups = []
    for stored in store.duplicates.findings():
        if (stored.a, stored.b) in dismissed:
            continue
        data = codec.finding_data(stored)
        if float(data["score"]) < min_score:
            continue
        groups.append(
            DuplicateGroup(
                kind=data["kind"],
                score=float(data["score"]),
                pages=[DuplicatePage(**p) for p in data["pages"]],
                passages=[DuplicatePassage(**p) for p in data["passages"]],
                note=data.get("note"),
            )
        )
    groups.sort(key=lambda g: (-g.score, g.kind, [p.slug for p in g.pages]))
    return DuplicatesResponse(groups=groups)


def find_duplicates(store: Store, *, min_score: float = 0.0) -> DuplicatesResponse:
    """Refresh, then list (the CLI's and the HTTP function's one call)."""
    refresh(store)
    return listing(store, min_score=min_score)


# -- at the door: would a new text duplicate a page readers see? -----------------------


def duplicate_of(title: str, content: str, store: Store, embedder: Embedder) -> str | None:
    """The active page ``content`` would copy (the same text, lightly edited, or the
    same meaning in the same language), or None. Candidates are the stored signatures
    sharing a band with it and the chunk index's nearest pages; a candidate the index
    never signed is signed now. Costs one embedding and reads bounded like a run's."""
    vector = embedder.embed_documents([f"{title}\n\n{content}"])[0]
    probe = signature_of("", version=0, title=title, status="draft", content=content, vector=vector)
    candidates = store.duplicates.sharing(band_keys("p", probe.minhash)) | _nearest(store, probe)
    if not candidates:
        return None
    signed = _decoded(store.duplicates.signatures(candidates), partial=True) or {}
    best: tuple[float, str] | None = None
    for slug in sorted(candidates):
        page = store.pages.get(slug)
        if page is None or page.front_matter.get("status") != "active":
            continue
        other = signed.get(slug)
        if other is None or other.version != page.version:
            other = sign(store, page)
        for finding in compare(probe, other):
            if finding.kind == "copy" and (best is None or finding.score > best[0]):
                best = (finding.score, slug)
    return best[1] if best else None
