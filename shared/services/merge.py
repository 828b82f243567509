"""``biblioteca merge KEEP OTHER``: a merge is a proposal on KEEP, reviewed with the
review vocabulary (``show``, ``accept``, ``reject``; ``shared.services.review`` hands a
proposal carrying ``merge`` to this module).

- Proposing checks the pair (not one page twice, both pages there, KEEP not archived
  nor redirecting, OTHER not already merged) and records what KEEP would gain from OTHER
  (``shared.dedup.merge``) against both pages' versions.
- Accepting writes KEEP's new version (attributed to who proposed the merge, the note
  naming the curator) and then archives OTHER with ``redirect_to: KEEP``; either page
  having moved on since is a conflict and nothing is written. ``revert`` of each page
  undoes it (KEEP to its version before, OTHER to its own).
- Rejecting closes the proposal and remembers the pair as dismissed: ``duplicates``
  never lists it again.
"""

from __future__ import annotations

from dataclasses import replace

from shared.clock import now
from shared.dedup.merge import merged_content, merged_metadata
from shared.errors import Conflict, InvalidInput, NotFound, VersionConflict
from shared.json_value import JsonObject
from shared.ports import Embedder, Store
from shared.records import PageRecord, Proposal, new_proposal_id
from shared.services.review_views import MergeProposed, MergeView
from shared.services.wiki import WriteResult, merge_update, update_validated


def _page(store: Store, slug: str, field: str) -> PageRecord:
    page = store.pages.get(slug)
    if page is None:
        raise NotFound(f"no page with slug '{slug}'", field=field)
    return page


def check_pair(keep: str, other: str, store: Store) -> tuple[PageRecord, PageRecord]:
    """Both pages, when ``other`` may be merged into ``keep`` (else a 400 naming why)."""
    if keep == other:
        raise InvalidInput(f"'{keep}' cannot be merged into itself", field="other")
    kept, merged = _page(store, keep, "keep"), _page(store, other, "other")
    target = kept.front_matter.get("redirect_to")
    if target:
        raise InvalidInput(
            f"'{keep}' already redirects to '{target}': merging into it would make a chain "
            f"of redirects; merge into '{target}' instead",
            field="keep",
        )
    if kept.front_matter.get("status") == "archived":
        raise InvalidInput(f"'{keep}' is archived: merge into a page readers see", field="keep")
    already = merged.front_matter.get("redirect_to")
    if already:
        raise InvalidInput(
            f"'{other}' was already merged into '{already}'"
            + (" (a cycle)" if already == keep else ""),
            field="other",
        )
    if merged.front_matter.get("status") == "archived":
        raise InvalidInput(f"'{other}' is archived: there is nothing to merge", field="other")
    return kept, merged


def propose(
    keep: str, other: str, store: Store, *, actor: str, reason: str | None = None
) -> MergeProposed:
    """Record the proposal to merge ``other`` into ``keep`` (nothing is written yet)."""

    kept, merged = check_pair(keep, other, store)
    metadata = merged_metadata(keep, kept.front_matter, other, merged.front_matter)
    content = merged_content(kept.content, merged.content)
    merge_update(kept, metadata, content, "update_metadata")  # refused now, not at accept
    why = " ".join((reason or "").split())[:500] or None
    proposal = Proposal(
        id=new_proposal_id(),
        slug=keep,
        base_version=kept.version,
        content=content,
        metadata=metadata,
        actor=actor,
        created_at=now(),
        reason=why,
        merge=other,
        merge_version=merged.version,
    )
    store.proposals.add(proposal)
    return {
        "status": "proposed",
        "proposal": proposal.id,
        "keep": keep,
        "other": other,
        "changes": sorted([*(["content"] if content is not None else []), *metadata]),
    }


def view(proposal: Proposal) -> MergeView:
    """What ``show`` adds for a merge proposal."""
    return {"other": proposal.merge, "other_version": proposal.merge_version}


def accept(
    proposal: Proposal, page: PageRecord, store: Store, embedder: Embedder, *, actor: str
) -> JsonObject:
    """Apply the merge (see the module docstring); the body names both writes."""
    assert proposal.merge is not None
    if proposal.status != "open":
        raise Conflict(f"proposal {proposal.id} is already {proposal.status}", field="target")
    other = _page(store, proposal.merge, "target")
    _unmoved(proposal, page, other)
    check_pair(page.slug, other.slug, store)
    kept, archived = _merge_writes(proposal, page, other, store, embedder, actor=actor)
    closed = replace(
        proposal, status="accepted", closed_at=now(), closed_by=actor, version=kept.page.version
    )
    if not store.proposals.close(closed):
        raise Conflict(f"proposal {proposal.id} was closed by someone else meanwhile")
    return {
        **kept.response().body(),
        "proposal": proposal.id,
        "merged": {"slug": other.slug, "version": archived.page.version},
    }


def _unmoved(proposal: Proposal, page: PageRecord, other: PageRecord) -> None:
    """Both pages still at the versions the merge was proposed against, or a Conflict."""
    moved = [
        f"'{slug}' is at version {now_at}, the merge was proposed at {then}"
        for slug, now_at, then in (
            (page.slug, page.version, proposal.base_version),
            (other.slug, other.version, proposal.merge_version),
        )
        if now_at != then
    ]
    if moved:
        raise Conflict(
            f"{'; '.join(moved)}: nothing was merged. Reject {proposal.id} and propose the "
            "merge again against the pages as they are",
            field="target",
        )


def _merge_writes(
    proposal: Proposal,
    page: PageRecord,
    other: PageRecord,
    store: Store,
    embedder: Embedder,
    *,
    actor: str,
) -> tuple[WriteResult, WriteResult]:
    """The two writes of a merge: the kept page with the merged text, the other archived
    as a redirect to it."""
    note = f"accepted {proposal.id} (by {actor}): merged '{other.slug}'"
    try:
        kept = update_validated(
            page.slug,
            proposal.metadata,
            proposal.content,
            proposal.base_version,
            store,
            embedder,
            actor=proposal.actor,
            note=note,
            field="",
            known=page,
        )
        archived = update_validated(
            other.slug,
            {"status": "archived", "redirect_to": page.slug},
            None,
            proposal.merge_version,
            store,
            embedder,
            actor=actor,
            note=f"merged into '{page.slug}' ({proposal.id})",
            field="",
            known=other,
        )
    except VersionConflict as exc:
        raise Conflict(
            f"a page of {proposal.id} changed while it was being merged: show it again",
            field="target",
        ) from exc
    return kept, archived


def reject(proposal: Proposal, store: Store, *, actor: str, reason: str | None) -> JsonObject:
    """Close the proposal and remember the pair as not duplicates."""
    assert proposal.merge is not None
    if proposal.status != "open":
        raise Conflict(f"proposal {proposal.id} is already {proposal.status}", field="target")
    closed = replace(proposal, status="rejected", closed_at=now(), closed_by=actor, reason=reason)
    if not store.proposals.close(closed):
        raise Conflict(f"proposal {proposal.id} was closed by someone else meanwhile")
    store.duplicates.dismiss(proposal.slug, proposal.merge, by=actor, reason=reason)
    return {
        "status": "rejected",
        "proposal": proposal.id,
        "slug": proposal.slug,
        "reason": reason,
        "dismissed": sorted((proposal.slug, proposal.merge)),
    }
