"""The values the ports carry: pages and chunks as stored, revisions, proposals, traces,
feedback, the code index's answers, the site's outputs and the models' answers.

Plain frozen dataclasses, literals and aliases, with no behaviour and no I/O; the
``Protocol``s that take and return them are in ``shared.ports``.
"""

from __future__ import annotations

import collections.abc
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, NotRequired, TypeAlias, TypedDict, cast

import numpy as np
import numpy.typing as npt

from shared.json_value import JsonObject

Vector = npt.NDArray[np.float32]


# -- pages -----------------------------------------------------------------------------


FreshnessState = Literal["fresh", "stale", "unknown"]


@dataclass(frozen=True, slots=True)
class Freshness:
    """Whether the code paths a page cites still exist in the code index.

    Kept beside the front matter, not in it: the server derives it (an author never
    writes it) and recomputes it after ``index_code`` without a new page version.
    ``cited`` is what was checked (so a recheck needs no page text); ``suggestions``
    maps a missing path to the indexed path it was probably moved to; ``outside`` are
    the cited paths not found whose top-level folder no indexed repository has (another
    project's code, an example layout): not judged, so neither missing nor found.
    """

    state: FreshnessState
    checked_at: datetime
    cited: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    suggestions: Mapping[str, str] = field(default_factory=dict)
    outside: tuple[str, ...] = ()


def freshness_key(freshness: Freshness | None) -> str:
    """What a page shows of its freshness (its stale notice), as text for a hash."""
    if freshness is None or freshness.state != "stale":
        return ""
    return "\n".join(f"{p}\t{freshness.suggestions.get(p, '')}" for p in freshness.missing)


def stale_notice(freshness: Freshness | None) -> list[dict[str, str | None]]:
    """The missing paths a stale page's notice names, each with its suggestion (or None)."""
    if freshness is None or freshness.state != "stale":
        return []
    return [{"path": p, "moved_to": freshness.suggestions.get(p)} for p in freshness.missing]


@dataclass(frozen=True, slots=True)
class PageRecord:
    """A page exactly as stored: the front matter is raw and validated by the reader."""

    slug: str
    front_matter: Mapping[str, Any]
    content: str
    version: int
    created_at: datetime
    updated_at: datetime
    freshness: Freshness | None = None  # None: never checked (written before it existed)
    # The actor of the version's revision, kept on the page by the store (the site's
    # "edited by" costs no read); None: written before revisions were kept.
    updated_by: str | None = None


@dataclass(frozen=True, slots=True)
class Origin:
    """Where an imported page came from: the docs tree (``tree_identity.tree_name``) and the
    file's path in it. Kept beside the page, never in its front matter: the import
    records it, no caller writes it, and ``import --sync`` reads it."""

    tree: str
    path: str


@dataclass(frozen=True, slots=True)
class CitingRecord:
    """A page found by the path index, as stored: what a freshness recheck needs, without
    its text (what ``pages_citing`` answers of it is ``shared.api.models.CitingPage``)."""

    slug: str
    version: int
    freshness: Freshness


@dataclass(frozen=True, slots=True)
class Chunk:
    """One searchable piece of a page, written in the same write as the page."""

    slug: str
    ordinal: int
    heading: str  # heading path, "Intro › Instalación"
    text: str
    hash: str  # of the embedder and the text: an equal hash means the vector is reusable
    vector: Vector
    embedder: str  # e.g. "local:use-m3@512"; the dimension is len(vector)


@dataclass(frozen=True, slots=True)
class Revision:
    """One version of a page as it was written: who wrote it, when, what it changed, and
    its whole text and front matter (what ``diff`` and ``revert`` read).

    Written by ``PageStore.create``/``update`` in the page's own transaction (commit), so
    a version and its revision exist together or not at all. ``changed`` names
    ``content`` and the front-matter keys whose value differs from the version before
    (every key set, on a page's first version); ``note`` says why, when a review step
    wrote it ("accepted p-…", "reverted to 3", "rejected: …")."""

    slug: str
    version: int
    at: datetime
    actor: str
    changed: tuple[str, ...]
    front_matter: Mapping[str, Any]
    content: str
    note: str | None = None


ProposalStatus = Literal["open", "accepted", "rejected"]


PROPOSAL_PREFIX = "p-"  # one id scheme for every proposal: an agent's, a merge's


def new_proposal_id() -> str:
    return f"{PROPOSAL_PREFIX}{secrets.token_hex(6)}"


def is_proposal_id(target: str) -> bool:
    return target.startswith(PROPOSAL_PREFIX)


@dataclass(frozen=True, slots=True)
class Proposal:
    """A change an agent proposed to an ``active`` page, waiting for a curator.

    ``base_version`` is the page version it was written against: accepting it once the
    page moved on is a conflict, never an overwrite. ``metadata`` is the proposed
    ``update_metadata`` (validated when proposed), ``content`` the new body or None."""

    id: str  # "p-" and 12 hex digits
    slug: str
    base_version: int
    content: str | None
    metadata: Mapping[str, Any]
    actor: str
    created_at: datetime
    status: ProposalStatus = "open"
    closed_at: datetime | None = None
    closed_by: str | None = None
    reason: str | None = None  # why it was rejected
    version: int | None = None  # the page version it became, when accepted
    # A merge (``biblioteca merge``): the page folded into ``slug``, and its version then.
    merge: str | None = None
    merge_version: int | None = None


@dataclass(frozen=True, slots=True)
class Failure:
    """A change (a page at a version) whose enrichment failed ``attempts`` times; ``dead``
    once it reached ``shared.enrich.ledger.MAX_ATTEMPTS`` (never retried again, counted by
    ``status``)."""

    slug: str
    version: int
    attempts: int
    error: str
    at: datetime
    next_at: float  # epoch seconds: when the local worker may try again
    dead: bool


# -- the stored nav -----------------------------------------------------------------------


class NavPageItem(TypedDict):
    """A page of a stored nav, by the slug it was imported as (``title`` when the nav
    names it)."""

    slug: str
    title: NotRequired[str]


class NavLinkItem(TypedDict):
    """An outside link of a stored nav."""

    title: str
    url: str


class NavSectionItem(TypedDict):
    """A section of a stored nav and what it holds, in order."""

    title: str
    items: list[NavItem]


NavItem: TypeAlias = "NavPageItem | NavLinkItem | NavSectionItem"


class StoredNav(TypedDict):
    """The navigation an import keeps for the site (``SiteState.save_nav``): its
    order and sections. Read defensively (``shared.site.nav``): it is stored JSON."""

    items: list[NavItem]


def stored_nav(blob: JsonObject | None) -> StoredNav | None:
    """A nav as the store read it back: its items as they were saved (the site's reader
    checks each one), None when it holds no list of items."""
    if blob is None or not isinstance(blob.get("items"), list):
        return None
    return cast("StoredNav", blob)


# -- retrieval -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """The ``ask`` filters; None means any. Only ``active`` pages are ever searched."""

    page_type: str | None = None
    category: str | None = None
    tag: str | None = None


@dataclass(frozen=True, slots=True)
class ChunkHit:
    """A chunk found by the dense search, with its cosine similarity to the query."""

    slug: str
    title: str
    heading: str
    text: str
    ordinal: int
    cosine: float


@dataclass(frozen=True, slots=True)
class IndexedChunk:
    """An active chunk as the lexical ranking sees it: its text and its page's filter fields."""

    slug: str
    ordinal: int
    title: str
    heading: str
    text: str
    page_type: str | None
    category: str | None
    tags: tuple[str, ...]
    # Read for the dense side of the snapshot (``shared.retrieval.dense``) only: the stored
    # vector and who made it; not compared (an array has no truth value).
    embedder: str = ""
    vector: Vector | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ChunkChanges:
    """The pages whose chunks changed after a cursor (docs/scale.md).

    ``cursor`` is what to pass next time; ``complete`` is False when the log cannot say
    what changed since the cursor given (none given, or one older than the log keeps):
    the caller then reads every active chunk, having taken ``cursor`` first."""

    cursor: str
    slugs: frozenset[str]
    complete: bool


@dataclass(frozen=True, slots=True)
class StoredSnapshot:
    """A saved image of the in-memory lexical index: the change-log cursor it is up to
    date with, and its bytes (``shared.retrieval.snapshot``)."""

    cursor: str
    payload: bytes | bytearray  # a bytearray when read in parts (held once, not joined)


# -- the code index (grounding gate) ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeyLookup:
    """The answer of the code index's one read: which keys exist, whether any path does,
    and the top-level folders of every repository indexed (``root_names``).

    ``roots`` None: the index does not record them (a Firestore index written before it
    did, until its next put); freshness then judges every cited path, as it used to."""

    found: frozenset[str]
    indexed_paths: int
    roots: frozenset[str] | None = None
    # The asked keys the index holds or once held (a replace-mode put moves the keys of
    # removed paths to a "seen" set); None: it does not remember, and roots decide.
    seen: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class PathChanges:
    """What one put of a repository's paths changed (the freshness recheck's input)."""

    indexed: int  # the repository's distinct paths now indexed
    added: tuple[str, ...]
    removed: tuple[str, ...]
    total_before: int  # every repository's paths, before and after
    total_after: int
    roots_changed: bool = False  # the union of every repository's top-level folders


# -- events (utility hits, archive and rebuild outcomes) -------------------------------


# What kind of page a page is; the rule that tells is ``shared.text.kinds.page_kind``.
Kind = Literal["guide", "reference", "tutorial", "changelog", "landing"]

EventKind = Literal["utility_hit", "archive_outcome", "rebuild_outcome", "import_outcome"]

# -- answer traces and feedback (the curator's side of ``ask``) ------------------------


Rating = Literal["up", "down"]

FeedbackReason = Literal["incorrect", "outdated", "missing", "unclear", "other"]


@dataclass(frozen=True, slots=True)
class TracedSource:
    """A page an answer was given, its relevance, and its version when the answer was
    written (None: the page was gone by then)."""

    slug: str
    score: float
    version: int | None = None


@dataclass(frozen=True, slots=True)
class AnswerTrace:
    """What produced one help-mode answer, kept until ``expires_at`` for its feedback."""

    answer_id: str
    question: str
    answer: str
    sources: tuple[TracedSource, ...]
    model: str
    confidence: str
    origin: str  # the door it came by: ask, mcp
    created_at: datetime
    expires_at: datetime
    # A follow-up's conversation: the earlier questions, oldest first, and the standalone
    # question it was read as (None when it was asked on its own).
    thread: tuple[str, ...] = ()
    standalone: str | None = None


@dataclass(frozen=True, slots=True)
class FeedbackRecord:
    """One vote on an answer (``answer_id``) or a report on a page (``slug``).

    ``id`` is the same for every repeat of one client on one answer (or page), so a repeat
    replaces the vote instead of adding one. ``trace`` is the answer's trace as it was when
    the vote came: it outlives the trace's retention."""

    id: str
    rating: Rating
    reason: FeedbackReason | None
    comment: str | None
    answer_id: str | None
    slug: str | None
    question: str | None
    origin: str  # http (the widget, any caller of /feedback) or mcp (report_issue)
    at: datetime
    trace: AnswerTrace | None = None


# -- site build state ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Lease:
    """Who holds the rebuild lease and until when (seconds since the epoch)."""

    owner: str
    expires_at: float


# -- publishing the site ---------------------------------------------------------------


# Publication stages: what a reader reaches first is written last (GCS has no swap).
STAGE_PAGES = 0  # pages and static files
STAGE_LISTINGS = 1  # type listings, sitemap, search index
STAGE_INDEX = 2  # index.html


@dataclass(frozen=True, slots=True)
class Output:
    """One file of the site: its path under the root, its bytes, and its stage."""

    path: str
    data: bytes
    stage: int = STAGE_PAGES


@dataclass(frozen=True)
class Publication:
    """What one build changes: files to write, unchanged files to keep, files to delete."""

    build_id: str
    full: bool
    writes: Sequence[Output]
    keep: Sequence[str] = field(default_factory=tuple)
    delete: Sequence[str] = field(default_factory=tuple)


# -- model providers -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Generation:
    """A model's answer; ``finish`` says why it stopped (``stop``, ``safety``…)."""

    text: str
    model: str
    finish: str = "stop"
    usage: Mapping[str, int] = field(default_factory=dict)


# Text as it is written, piece by piece; the generator's return value is the whole
# ``Generation`` (``answer = yield from stream``).
TextStream = collections.abc.Generator[str, None, Generation]

# How well the wiki's passages answer a question: "low" makes the answer say so first.
Confidence = Literal["high", "low"]


@dataclass(frozen=True, slots=True)
class Passage:
    """A numbered source handed to an answerer: cited in the answer as ``[number]``."""

    number: int
    slug: str
    title: str
    heading: str
    text: str
    relevance: float  # 0..1, the ranking key ``ask`` reports as ``sources[].score``
    anchor: str = ""  # the id the site gives the passage's heading ("" : the page's top)
    kind: Kind | None = None  # its page's kind (``shared.text.kinds``), as retrieval read it


# -- duplicates ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredSignature:
    """A page's duplicate-finding signature as the store keeps it: the band keys it is
    found under (indexed) and the encoded signature (``shared.dedup.codec``)."""

    slug: str
    bands: tuple[str, ...]
    data: bytes


@dataclass(frozen=True, slots=True)
class StoredFinding:
    """One duplicate pair a run found (``a`` < ``b``), encoded (``shared.dedup.codec``)."""

    a: str
    b: str
    kind: str
    data: bytes

    @property
    def key(self) -> str:
        return f"{self.a}|{self.b}|{self.kind}"
