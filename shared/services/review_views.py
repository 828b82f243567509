"""What the curator's review commands hand back, typed: the queue's rows, ``show``'s view
of a page or proposal, and a bulk accept's outcome. Plain dicts at run time (they are
printed as JSON in this order), checked by mypy where they are built and read."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from shared.gates.grounding import GroundingJson
from shared.json_value import JsonObject, JsonValue


class ProposalRow(TypedDict):
    """An open proposal in a listing (``proposals``, ``status``, the curator report)."""

    id: str
    slug: str
    actor: str
    created_at: str
    base_version: int
    changes: list[str]


class DraftRow(TypedDict):
    """A draft in the review queue."""

    slug: str
    title: str
    created_at: str
    archived_answer: bool


class Waiting(TypedDict):
    """The review queue: drafts, oldest first, and open proposals."""

    drafts: list[DraftRow]
    proposals: list[ProposalRow]


class MergeView(TypedDict):
    """What ``show`` adds for a merge proposal: the page merged in, at the version read."""

    other: str | None
    other_version: int | None


class MergeProposed(TypedDict):
    """What ``biblioteca merge`` recorded: the proposal and what KEEP would gain."""

    status: str
    proposal: str
    keep: str
    other: str
    changes: list[str]


class ProposalView(TypedDict):
    """A proposal as ``show`` presents it: who, against which version, and its diff."""

    id: str
    status: str
    actor: str
    created_at: str
    base_version: int
    page_moved_on: bool
    changes: list[str]
    reason: NotRequired[str]
    closed_by: NotRequired[str]
    # Always set, after ``reason`` and ``closed_by``: the order ``--json`` prints.
    diff: NotRequired[str]
    invalid: NotRequired[str]  # the page changed so that the proposal no longer applies
    merge: NotRequired[MergeView]


class FreshnessView(TypedDict):
    state: str
    missing: list[str]


class Shown(TypedDict):
    """``show``: everything a curator reads before deciding (front matter as stored)."""

    slug: str
    title: JsonValue
    type: JsonValue
    status: JsonValue
    version: int
    created_at: str
    updated_at: str
    generated: JsonValue
    archived_answer: bool
    sources: list[JsonValue]
    grounding: GroundingJson
    freshness: FreshnessView
    history: list[JsonObject]  # each a RevisionEntry's body, newest first
    content: str
    proposal: NotRequired[ProposalView]


class BulkRow(TypedDict):
    """One proposal a bulk accept applied."""

    proposal: str
    slug: str
    version: int


class BulkRefused(TypedDict):
    """One proposal a bulk accept left open, and why."""

    proposal: str
    slug: str
    error: str


class BulkBody(TypedDict):
    by: str
    accepted: list[BulkRow]
    refused: list[BulkRefused]
