"""The review of many proposals at once: listing what waits by author, and a curator's
accept of every open proposal of one author (``biblioteca accept --by enrich:sources``).

Each proposal goes through the one ``review.accept`` (its checks, its conflict when the
page moved on); a proposal that cannot be applied is reported and left open, and the
others are applied all the same. One exception, because the enrichers make several
proposals against one version (sources, related, description each): a proposal that
changes metadata only, and whose keys the page has not changed since the version it
was made against, is applied to the page as it is now (``rebased``): accepting the
sources of a page does not leave its description in conflict.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from shared.clock import now
from shared.errors import BibliotecaError, Conflict
from shared.json_value import JsonObject
from shared.ports import Embedder, Store
from shared.records import PageRecord, Proposal
from shared.services import review
from shared.services.review_views import BulkBody, BulkRefused, BulkRow, ProposalRow
from shared.services.wiki import update_validated


def by_actor(proposal: Proposal, actor: str | None) -> bool:
    """Whether ``proposal`` is ``actor``'s: the exact name, or any ``actor:…`` (``--by
    enrich`` names every enricher)."""
    return actor is None or proposal.actor == actor or proposal.actor.startswith(f"{actor}:")


def open_proposals(store: Store, actor: str | None = None) -> list[ProposalRow]:
    """The open proposals, oldest first, of ``actor`` (every author: None)."""
    return [
        review.proposal_row(p) for p in store.proposals.list(status="open") if by_actor(p, actor)
    ]


@dataclass(slots=True)
class BulkAccepted:
    """What a bulk accept did: each applied proposal's write, each refused one's reason."""

    actor: str
    accepted: list[BulkRow] = field(default_factory=list)
    refused: list[BulkRefused] = field(default_factory=list)

    def body(self) -> BulkBody:
        return {"by": self.actor, "accepted": self.accepted, "refused": self.refused}


def accept_by(actor: str, store: Store, embedder: Embedder, *, curator: str) -> BulkAccepted:
    """Accept every open proposal of ``actor`` (``by_actor``), oldest first, as ``curator``.

    Two proposals of one author for one page: the first applied moves the page on, so
    the second is refused (its diff is against the old version) and stays open for
    ``show``: never applied over the newer text."""
    if not actor.strip():
        from shared.errors import InvalidInput

        raise InvalidInput("--by needs an author, e.g. enrich:sources", field="by")
    done = BulkAccepted(actor)
    for proposal in store.proposals.list(status="open"):
        if not by_actor(proposal, actor):
            continue
        try:
            page = store.pages.get(proposal.slug)
            if (
                page is not None
                and page.version != proposal.base_version
                and rebased(proposal, page, store)
            ):
                version = _apply_rebased(proposal, page, store, embedder, curator)
            else:
                version = _version(review.accept(proposal.id, store, embedder, actor=curator))
        except BibliotecaError as exc:
            done.refused.append(
                {"proposal": proposal.id, "slug": proposal.slug, "error": exc.message}
            )
            continue
        done.accepted.append({"proposal": proposal.id, "slug": proposal.slug, "version": version})
    return done


def rebased(proposal: Proposal, page: PageRecord, store: Store) -> bool:
    """Whether ``proposal`` applies unchanged to ``page`` as it is now: metadata only, and
    each key it writes holds the value it held in the version the proposal was made on."""
    if proposal.content is not None or proposal.status != "open":
        return False
    base = store.revisions.get(proposal.slug, proposal.base_version)
    if base is None:
        return False
    return all(base.front_matter.get(k) == page.front_matter.get(k) for k in proposal.metadata)


def _apply_rebased(
    proposal: Proposal, page: PageRecord, store: Store, embedder: Embedder, curator: str
) -> int:
    """Apply a rebased proposal to the page as it is; the version written."""
    written = update_validated(
        page.slug,
        proposal.metadata,
        None,
        page.version,
        store,
        embedder,
        actor=proposal.actor,
        note=f"accepted {proposal.id} (by {curator}), made on v{proposal.base_version}",
        field="",
        known=page,
    )
    closed = replace(
        proposal,
        status="accepted",
        closed_at=now(),
        closed_by=curator,
        version=written.page.version,
    )
    if not store.proposals.close(closed):
        raise Conflict(f"proposal {proposal.id} was closed by someone else meanwhile")
    return written.page.version


def _version(written: JsonObject) -> int:
    """The page's version in an accept's body (the contract's ``version``)."""
    version = written["version"]
    assert isinstance(version, int)
    return version
