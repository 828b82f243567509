"""Revisions and proposals in Firestore.

A page's revisions are documents of its own subcollection ``pages/{slug}/revisions``
(id ``v`` and the zero-padded version), written by ``FirestorePages`` in the page's
own commit: one more document per write, none per question. Reading the newest N is
one query ordered by ``version`` (a single-field index, no composite one to deploy).
The retention deletes, in the same commit, the one revision that falls out of it.
Proposals are documents of ``proposals`` (id = the proposal's id), closed with a
last-update-time precondition so two curators cannot both close one.
"""

from __future__ import annotations

from typing import Any

from google.api_core import exceptions as gexc
from google.cloud.firestore_v1.base_query import FieldFilter

from shared.records import Proposal, ProposalStatus, Revision
from shared.store.firestore.db import Database, plain_utc
from shared.store.proposals import proposal_data, proposal_from

PAGES = "pages"
REVISIONS = "revisions"
PROPOSALS = "proposals"


def revision_id(version: int) -> str:
    return f"v{version:010d}"


def revision_document(revision: Revision) -> dict[str, Any]:
    return {
        "slug": revision.slug,
        "version": revision.version,
        "at": revision.at,
        "actor": revision.actor,
        "changed": list(revision.changed),
        "front_matter": dict(revision.front_matter),
        "content": revision.content,
        "note": revision.note,
    }


def keep(db: Database, batch: Any, revision: Revision, retain: int) -> None:
    """Into a page's commit: its revision, and the delete of the one past ``retain``
    (0 keeps all). Lowering the retention leaves the older ones until they are read
    past: ``history`` never shows more than it asks for, so they only cost storage."""
    revisions = db.collection(PAGES).document(revision.slug).collection(REVISIONS)
    batch.set(revisions.document(revision_id(revision.version)), revision_document(revision))
    if retain > 0 and revision.version > retain:
        batch.delete(revisions.document(revision_id(revision.version - retain)))


def _revision(data: dict[str, Any]) -> Revision:
    return Revision(
        slug=str(data["slug"]),
        version=int(data["version"]),
        at=plain_utc(data["at"]),
        actor=str(data.get("actor") or "unknown"),
        changed=tuple(str(c) for c in data.get("changed") or []),
        front_matter=dict(data.get("front_matter") or {}),
        content=str(data.get("content", "")),
        note=data.get("note"),
    )


class FirestoreRevisions:
    """``RevisionLog`` on Firestore."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def _collection(self, slug: str) -> Any:
        return self._db.collection(PAGES).document(slug).collection(REVISIONS)

    def history(self, slug: str, *, limit: int = 20) -> list[Revision]:
        if limit <= 0:
            return []
        query = self._collection(slug).order_by("version", direction="DESCENDING").limit(limit)
        with self._db.guard(f"reading the history of '{slug}'"):
            return [_revision(doc.to_dict() or {}) for doc in query.stream(**self._db.options)]

    def get(self, slug: str, version: int) -> Revision | None:
        with self._db.guard(f"reading version {version} of '{slug}'"):
            snapshot = self._collection(slug).document(revision_id(version)).get(**self._db.options)
        return _revision(snapshot.to_dict() or {}) if snapshot.exists else None


def open_proposal(db: Database, proposal_id: str) -> Any:
    """The snapshot of a proposal that is still open; None once it is closed (or gone)."""
    snapshot = db.collection(PROPOSALS).document(proposal_id).get(**db.options)
    if not snapshot.exists or (snapshot.to_dict() or {}).get("status") != "open":
        return None
    return snapshot


class FirestoreProposals:
    """``ProposalStore`` on Firestore."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def _ref(self, proposal_id: str) -> Any:
        return self._db.collection(PROPOSALS).document(proposal_id)

    def add(self, proposal: Proposal) -> None:
        with self._db.guard(f"recording proposal {proposal.id}"):
            self._ref(proposal.id).create(proposal_data(proposal), **self._db.options)

    def get(self, proposal_id: str) -> Proposal | None:
        with self._db.guard(f"reading proposal {proposal_id}"):
            snapshot = self._ref(proposal_id).get(**self._db.options)
        return proposal_from(snapshot.to_dict()) if snapshot.exists else None

    def list(
        self,
        *,
        status: ProposalStatus | None = "open",
        slug: str | None = None,
        actor: str | None = None,
    ) -> list[Proposal]:
        query = self._db.collection(PROPOSALS)
        # Equality filters only, sorted here: single-field indexes serve them.
        for name, value in (("status", status), ("slug", slug), ("actor", actor)):
            if value is not None:
                query = query.where(filter=FieldFilter(name, "==", value))
        with self._db.guard("listing proposals"):
            found = [proposal_from(d.to_dict()) for d in query.stream(**self._db.options)]
        return sorted(found, key=lambda p: (p.created_at, p.id))

    def close(self, closed: Proposal) -> bool:
        client = self._db.client()
        with self._db.guard(f"closing proposal {closed.id}"):
            snapshot = self._ref(closed.id).get(**self._db.options)
            if not snapshot.exists or (snapshot.to_dict() or {}).get("status") != "open":
                return False
            try:
                self._ref(closed.id).update(
                    proposal_data(closed),
                    option=client.write_option(last_update_time=snapshot.update_time),
                    **self._db.options,
                )
            except (gexc.FailedPrecondition, gexc.Aborted):
                return False  # closed by someone else between the read and the write
        return True
