"""Creating and updating pages: validation at the door, then one atomic write.

Chunks are computed (and embedded) before the write and stored in the same write
as the page, so a page is searchable as soon as the call returns and a failure
leaves nothing half-written. So is the version's revision: who wrote it (``actor``),
what it changed, and its text (``Revision``); every write names its actor.

Writers of one page in one process take turns (``PageTurns``, one per process: the
wiring's ``Wiring.turns``, handed to each update): each embeds its text first,
concurrently, then reads, merges and writes while holding the page's turn, so within a
process no update loses a race. An update without ``expected_version`` that
still loses one (a write from another process or instance landed between its read and
its write) is applied again to a fresh read, after a jittered pause, until its
deadline: last writer wins, nothing is lost.
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal

from shared.api.models import WikiCreateRequest, WikiUpdateRequest, WriteResponse
from shared.clock import now
from shared.config import Role
from shared.errors import (
    Conflict,
    InvalidInput,
    NotFound,
    PayloadTooLarge,
    Unavailable,
    VersionConflict,
)
from shared.ports import Embedder, Store
from shared.records import Chunk, PageRecord, Proposal, Revision, Vector
from shared.schema import FRONT_MATTER_KEYS, FrontMatter, Page, parse_front_matter
from shared.services.freshness import check_page
from shared.services.indexing import build_chunks
from shared.services.roles import check_create, check_update
from shared.text.slugs import derive_slug, with_suffix

_RETRIES = 5
# An unversioned update keeps retrying a lost race (and waiting for its page's turn) this
# long: well inside the function's 120 s timeout, and far more than 50 writers of one page
# need (bench/README.md, "50 writers of one page").
UPDATE_DEADLINE_S = 30.0


class PageTurns:
    """One lock per page being written in this process: its writers take turns.

    Racing on the store's version check alone made N writers of one page cost up to
    N²/2 attempts (each round one wins, the rest read again after a pause), and 50
    writers took 6-30 s on a busy machine. In turn, each write reads the version it then
    writes, so none loses to a writer of the same process. Locks live only while some
    writer holds or waits for them (a weak map), so the map stays as small as the writes
    in flight.
    """

    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[str, threading.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._guard = threading.Lock()

    def of(self, slug: str) -> threading.Lock:
        with self._guard:
            lock = self._locks.get(slug)
            if lock is None:
                lock = threading.Lock()
                self._locks[slug] = lock
            return lock


@dataclasses.dataclass(frozen=True, slots=True)
class RaceRetry:
    """How an unversioned update that lost a race tries again.

    Each pause is drawn between 0 and a cap that doubles from ``first_pause_s`` up to
    ``max_pause_s`` ("full jitter"): racers spread out instead of colliding again in
    step. Past ``deadline_s`` the update gives up with a 503 and writes nothing.
    """

    deadline_s: float = UPDATE_DEADLINE_S
    first_pause_s: float = 0.01
    max_pause_s: float = 0.5
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    jitter: Callable[[], float] = random.random

    def pause(self, attempt: int) -> float:
        cap = min(self.max_pause_s, self.first_pause_s * 2.0**attempt)
        return cap * self.jitter()


@dataclasses.dataclass(frozen=True, slots=True)
class WriteResult:
    """What a write did: ``created``, ``updated`` or ``unchanged``, and the page it left."""

    status: Literal["created", "updated", "unchanged"]
    page: Page

    def response(self) -> WriteResponse:
        """The write's response body (``wiki_create``, ``wiki_update``, the agents' tools)."""
        return WriteResponse.of(self.status, self.page)


def to_record(page: Page, store: Store) -> PageRecord:
    """The record to write, with its freshness checked against the code index (one read)."""
    front_matter = page.front_matter.dump()
    return PageRecord(
        slug=page.slug,
        front_matter=front_matter,
        content=page.content,
        version=page.version,
        created_at=page.created_at,
        updated_at=page.updated_at,
        freshness=check_page(front_matter, page.content, store.code, at=page.updated_at),
    )


def changed_keys(
    before: Mapping[str, Any] | None,
    before_content: str | None,
    after: Mapping[str, Any],
    after_content: str,
) -> tuple[str, ...]:
    """What a version changed: ``content`` first, then the front-matter keys whose value
    differs, in the schema's order (on a first version, every key that holds a value)."""
    old = dict(before or {})
    keys = [k for k in FRONT_MATTER_KEYS if k in after or k in old]
    if before is None:
        metadata = [k for k in keys if after.get(k) not in (None, [], "")]
    else:
        metadata = [k for k in keys if old.get(k) != after.get(k)]
    return (*(["content"] if before_content != after_content else []), *metadata)


def revision_of(
    record: PageRecord,
    actor: str,
    previous: PageRecord | None,
    note: str | None = None,
) -> Revision:
    """The revision a write of ``record`` keeps (``previous``: the version it replaces)."""
    return Revision(
        slug=record.slug,
        version=record.version,
        at=record.updated_at,
        actor=actor,
        changed=changed_keys(
            None if previous is None else previous.front_matter,
            None if previous is None else previous.content,
            record.front_matter,
            record.content,
        ),
        front_matter=dict(record.front_matter),
        content=record.content,
        note=note,
    )


def to_page(record: PageRecord, field: str = "") -> Page:
    """Validate a stored record with the one schema (``InvalidInput`` names the field)."""
    return Page(
        slug=record.slug,
        front_matter=parse_front_matter(dict(record.front_matter), field),
        content=record.content,
        version=record.version,
        created_at=record.created_at,
        updated_at=record.updated_at,
        freshness=record.freshness,
        updated_by=record.updated_by,
    )


def read_page(slug: str, store: Store, *, unpublished: bool = False) -> Page:
    """The page ``slug``; a draft or archived page only when ``unpublished`` (a caller that
    may write reads what it may write), else ``NotFound`` as if it did not exist."""
    record = store.pages.get(slug)
    page = None if record is None else to_page(record)
    if page is None or (page.status != "active" and not unpublished):
        raise NotFound(f"no published page with slug '{slug}'", field="slug")
    return page


# -- create ---------------------------------------------------------------------------


def create_page(
    request: WikiCreateRequest,
    store: Store,
    embedder: Embedder,
    *,
    actor: str,
    role: Role = "writer",
) -> WriteResult:
    """``wiki_create``: derive the slug if needed, write page and chunks at once; an
    agent's token creates drafts only (``shared.services.roles``)."""
    check_create(role, request.front_matter.status)
    return create_validated(
        request.slug, request.front_matter, request.content, store, embedder, actor=actor
    )


def create_validated(
    explicit_slug: str | None,
    front_matter: FrontMatter,
    content: str,
    store: Store,
    embedder: Embedder,
    *,
    actor: str,
) -> WriteResult:
    """Write a new page from already validated parts (shared with import and archive),
    its first revision attributed to ``actor``."""
    moment = now()
    base = explicit_slug or derive_slug(front_matter.type, front_matter.title)
    page = Page(
        slug=base,
        front_matter=front_matter,
        content=content,
        version=1,
        created_at=moment,
        updated_at=moment,
    )
    chunks = build_chunks(page, embedder, {})
    candidates = [base] if explicit_slug else _free_slugs(base, store)
    record = to_record(page, store)
    for slug in candidates:
        page = page.model_copy(update={"slug": slug})
        written = dataclasses.replace(record, slug=slug)
        try:
            store.pages.create(
                written,
                [dataclasses.replace(c, slug=slug) for c in chunks],
                revision_of(written, actor, None),
            )
        except Conflict:
            if explicit_slug:
                raise
            continue
        return WriteResult("created", page)
    raise Conflict(f"could not find a free slug for '{base}'", field="slug")  # pragma: no cover


def _free_slugs(base: str, store: Store) -> list[str]:
    """Derived-slug candidates, skipping the ones already taken (a race is caught on write)."""
    n = 1
    while True:
        slug = base if n == 1 else with_suffix(base, n)
        if store.pages.get(slug) is None:
            return [slug, *(with_suffix(base, m) for m in range(n + 1, n + 1 + _RETRIES))]
        n += 1


# -- update ---------------------------------------------------------------------------


def update_page(
    request: WikiUpdateRequest,
    store: Store,
    embedder: Embedder,
    *,
    actor: str,
    turns: PageTurns | None = None,
    role: Role = "writer",
) -> WriteResult:
    """``wiki_update``: merge metadata, keep versions honest, skip writes that change nothing.

    ``embedder`` is asked for vectors only when text changed: a metadata-only update (a
    curator promoting a draft) calls no model. ``turns``: see ``update_validated``. An
    agent's token edits drafts only, and its update is pinned to the version whose status
    was checked: a draft accepted meanwhile is a 409, never an agent's edit of a live page.
    """
    expected, known = request.expected_version, None
    if role == "agent":
        known = store.pages.get(request.slug)
        status = str(known.front_matter.get("status") or "active") if known else None
        check_update(role, request.update_metadata, status)
        if known is not None and expected is None:
            expected = known.version
    return update_validated(
        request.slug,
        request.update_metadata,
        request.content,
        expected,
        store,
        embedder,
        actor=actor,
        known=known,
        turns=turns,
    )


def update_validated(
    slug: str,
    metadata: Mapping[str, Any],
    content: str | None,
    expected_version: int | None,
    store: Store,
    embedder: Embedder,
    *,
    actor: str,
    note: str | None = None,
    field: str = "update_metadata",
    known: PageRecord | None = None,
    retry: RaceRetry = RaceRetry(),  # frozen: one shared default is safe
    turns: PageTurns | None = None,
    closes: Proposal | None = None,
) -> WriteResult:
    """Apply an update; without ``expected_version`` a lost race is retried (see ``RaceRetry``).

    ``actor`` (and ``note``, why) go into the new version's revision. ``field`` prefixes
    the path of a front-matter error (``""`` for imported files); ``known`` is the page as
    the caller just read it (saves reading it again). ``turns`` are the process's page
    turns (``Wiring.turns``) that concurrent writers share; None for a writer alone in
    its process (an import, a review step, a revert), which takes a turn nobody else
    waits for and meets any other writer at the store's version check. ``closes``: the
    accepted proposal this write applies, closed in the write's own commit.
    """
    deadline = retry.clock() + retry.deadline_s
    embedded: dict[str, Vector] = {}  # vectors this update already paid for, by chunk hash
    # The model runs before the page's turn is taken: writers embed side by side, and the
    # turn covers only the read, the merge and the write.
    ahead = known or store.pages.get(slug)
    if ahead is not None and expected_version in (None, ahead.version):
        _embed_ahead(ahead, metadata, content, store, embedder, field, embedded)
    turn = (turns or PageTurns()).of(slug)
    record = known
    attempt = 0
    while True:
        _take(turn, slug, deadline - retry.clock(), retry.deadline_s)
        try:
            record = _current(record or store.pages.get(slug), slug, expected_version)
            try:
                return _apply(
                    record,
                    metadata,
                    content,
                    store,
                    embedder,
                    field,
                    embedded,
                    (actor, note),
                    closes,
                )
            except VersionConflict:
                if expected_version is not None:
                    raise
                record = None  # written meanwhile by another process: apply it to a fresh read
        finally:
            turn.release()
        attempt += 1
        _pause_or_give_up(retry, attempt, deadline, slug)


def _take(turn: threading.Lock, slug: str, wait_s: float, deadline_s: float) -> None:
    """The page's turn among this process's writers, or a 503 past the update's deadline."""
    if not turn.acquire(timeout=max(0.0, wait_s)):
        raise Unavailable(
            f"page '{slug}' had other writers queued for {deadline_s:.0f} s: "
            "nothing was written; retry"
        )


def _current(record: PageRecord | None, slug: str, expected_version: int | None) -> PageRecord:
    """The page as read in its turn: it exists, and is at the version the caller read."""
    if record is None:
        raise NotFound(f"no page with slug '{slug}'", field="slug")
    if expected_version is not None and record.version != expected_version:
        raise VersionConflict(
            f"page '{slug}' is at version {record.version}, not {expected_version}: "
            "read it again and retry",
            field="expected_version",
        )
    return record


def _pause_or_give_up(retry: RaceRetry, attempt: int, deadline: float, slug: str) -> None:
    """Wait before the next attempt of a lost race, or give up if that would pass the
    deadline (a 503: nothing was written)."""
    pause = retry.pause(attempt - 1)
    if retry.clock() + pause > deadline:
        raise Unavailable(
            f"page '{slug}' kept changing under this update for {retry.deadline_s:.0f} s "
            f"({attempt} attempts): nothing was written; retry"
        )
    retry.sleep(pause)


def _embed_ahead(
    record: PageRecord,
    metadata: Mapping[str, Any],
    content: str | None,
    store: Store,
    embedder: Embedder,
    field: str,
    embedded: dict[str, Vector],
) -> None:
    """Embed the chunks an update of ``record`` would write, into ``embedded`` (a write
    in the page's turn then reuses them). Nothing to embed when neither text nor title
    changes; an invalid update fails here as it would in the turn."""
    merged = merge_update(record, metadata, content, field)
    current = merged.current
    if merged.unchanged or not _rechunks(merged, current):
        return
    page = Page(
        slug=record.slug,
        front_matter=merged.front_matter,
        content=merged.content,
        version=record.version + 1,
        created_at=record.created_at,
        updated_at=now(),
    )
    previous = store.chunks.vectors_for(record.slug)
    embedded.update((c.hash, c.vector) for c in build_chunks(page, embedder, previous))


class _Known(Mapping[str, Vector]):
    """The vectors an update already has: its own (embedded ahead), then the page's
    stored ones, read only when a chunk is in neither (a write in the page's turn whose
    text was embedded ahead reads no chunk)."""

    def __init__(self, embedded: Mapping[str, Vector], store: Store, slug: str) -> None:
        self._embedded = embedded
        self._store = store
        self._slug = slug
        self._stored: Mapping[str, Vector] | None = None

    def _all(self) -> Mapping[str, Vector]:
        if self._stored is None:
            self._stored = self._store.chunks.vectors_for(self._slug)
        return self._stored

    def __contains__(self, key: object) -> bool:
        return key in self._embedded or key in self._all()

    def __getitem__(self, key: str) -> Vector:
        return self._embedded[key] if key in self._embedded else self._all()[key]

    def __iter__(self) -> Iterator[str]:
        return iter({**self._all(), **self._embedded})

    def __len__(self) -> int:
        return len({**self._all(), **self._embedded})


def _rechunks(merged: Merged, current: Page | None) -> bool:
    """Whether an update's chunks must be built again (its text or title changed)."""
    return (
        current is None
        or merged.content != current.content
        or merged.front_matter.title != current.title
    )


@dataclasses.dataclass(frozen=True, slots=True)
class Merged:
    """An update applied to a stored page, before any write: the result's front matter
    and body, the page as it validates now (None: stored invalid), and whether it changes
    anything."""

    front_matter: FrontMatter
    content: str
    current: Page | None

    @property
    def unchanged(self) -> bool:
        return (
            self.current is not None
            and self.current.front_matter == self.front_matter
            and self.current.content == self.content
        )


def merge_update(
    record: PageRecord, metadata: Mapping[str, Any], content: str | None, field: str
) -> Merged:
    """``metadata`` and ``content`` over ``record`` (pure; ``InvalidInput`` names the
    field): what an update would write, also what a proposal is checked with."""
    # Keys outside the schema can only come from edits behind the API's back; the
    # schema would refuse them forever, so an update drops them (rebuild reports them).
    stored = {k: v for k, v in record.front_matter.items() if k in FRONT_MATTER_KEYS}
    front_matter = parse_front_matter({**stored, **metadata}, field)
    try:
        current: Page | None = to_page(record)
    except (InvalidInput, PayloadTooLarge):
        current = None  # stored behind the API's back and invalid: this update repairs it
    return Merged(front_matter, record.content if content is None else content, current)


def _apply(
    record: PageRecord,
    metadata: Mapping[str, Any],
    content: str | None,
    store: Store,
    embedder: Embedder,
    field: str,
    embedded: dict[str, Vector],
    by: tuple[str, str | None],
    closes: Proposal | None = None,
) -> WriteResult:
    merged = merge_update(record, metadata, content, field)
    front_matter, new_content, current = merged.front_matter, merged.content, merged.current
    if merged.unchanged:
        assert current is not None
        return WriteResult("unchanged", current)

    page = Page(
        slug=record.slug,
        front_matter=front_matter,
        content=new_content,
        version=record.version + 1,
        created_at=record.created_at,
        updated_at=now(),
    )
    chunks: list[Chunk] | None = None
    if _rechunks(merged, current):
        chunks = build_chunks(page, embedder, _Known(embedded, store, record.slug))
        embedded.update((c.hash, c.vector) for c in chunks)  # a retry re-embeds nothing
    written = to_record(page, store)
    actor, note = by
    store.pages.update(
        written,
        chunks,
        expected_version=record.version,
        revision=revision_of(written, actor, record, note),
        closes=closes,
    )
    return WriteResult("updated", page)
