"""A proposal as JSON-ready data and back: the one shape both stores keep."""

from __future__ import annotations

from datetime import datetime
from typing import NotRequired, TypedDict

from shared.json_value import JsonObject
from shared.records import Proposal, ProposalStatus


class MergeData(TypedDict):
    other: str
    other_version: int | None


class ProposalData(TypedDict):
    """A proposal as both stores keep it (older ones may lack a key: read with defaults)."""

    id: str
    slug: str
    base_version: int
    content: str | None
    metadata: JsonObject  # front-matter keys and the values the proposal writes
    actor: str
    created_at: str
    status: ProposalStatus
    closed_at: str | None
    closed_by: str | None
    reason: str | None
    version: int | None
    merge: NotRequired[MergeData]


def proposal_data(proposal: Proposal) -> ProposalData:
    """A proposal as JSON-ready data (both stores keep this shape)."""
    data: ProposalData = {
        "id": proposal.id,
        "slug": proposal.slug,
        "base_version": proposal.base_version,
        "content": proposal.content,
        "metadata": dict(proposal.metadata),
        "actor": proposal.actor,
        "created_at": proposal.created_at.isoformat(),
        "status": proposal.status,
        "closed_at": proposal.closed_at.isoformat() if proposal.closed_at else None,
        "closed_by": proposal.closed_by,
        "reason": proposal.reason,
        "version": proposal.version,
    }
    if proposal.merge is not None:
        data["merge"] = {"other": proposal.merge, "other_version": proposal.merge_version}
    return data


def proposal_from(data: ProposalData) -> Proposal:
    closed = data.get("closed_at")
    merge = data.get("merge")
    return Proposal(
        id=str(data["id"]),
        slug=str(data["slug"]),
        base_version=int(data["base_version"]),
        content=data.get("content"),
        metadata=dict(data.get("metadata") or {}),
        actor=str(data.get("actor") or "unknown"),
        created_at=datetime.fromisoformat(str(data["created_at"])),
        status=data.get("status", "open"),
        closed_at=datetime.fromisoformat(closed) if closed else None,
        closed_by=data.get("closed_by"),
        reason=data.get("reason"),
        version=data.get("version"),
        merge=merge.get("other") if merge else None,
        merge_version=merge.get("other_version") if merge else None,
    )
