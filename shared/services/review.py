"""The curator's review of what waits: drafts (archived answers, proposed pages) and
proposals (agents' changes to published pages), with one vocabulary: show, accept, reject.

The rules live here, not in the MCP tools or the command line:

- An agent's ``propose_page`` is a draft, whatever status it asked for, ``generated``
  by the agent when it does not say who wrote it.
- An agent's ``propose_update`` of an ``active`` page changes nothing readers see: it is
  checked as the update would be (version, schema), then kept as a ``Proposal``. A draft
  or an archived page is edited at once, as before: nobody reads it yet, and the curator
  reads the draft whole when promoting it.
- ``accept`` promotes a draft (a new version with ``status: active``) or applies a
  proposal as a new version, attributed to its author with a note naming the curator.
  A proposal made against version N of a page now at M > N is a ``Conflict``: the curator
  sees the page moved on (``show`` diffs it) and the proposal stays open, never applied
  over the newer text.
- An accepted archived answer reads as a page (``shared.retrieval.answer_page``): no framing, and
  each ``[n]`` a link to the page it cited.
- ``reject`` archives a draft (the archive then refuses the same question:
  ``rejected-before``) or closes a proposal with its reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from shared.api.models import ProposeResponse, WikiCreateRequest, WikiUpdateRequest, WriteResponse
from shared.clock import now
from shared.errors import Conflict, InvalidInput, NotFound, VersionConflict, proposal_closed
from shared.gates.grounding import check_grounding
from shared.gates.staleness import state_of
from shared.json_value import JsonObject
from shared.ports import Embedder, Store
from shared.records import PageRecord, Proposal, is_proposal_id, new_proposal_id
from shared.retrieval.answer_page import as_page
from shared.schema import Generated
from shared.services import history as memory
from shared.services import merge as merging
from shared.services.review_views import ProposalRow, ProposalView, Shown, Waiting
from shared.services.wiki import (
    PageTurns,
    WriteResult,
    create_validated,
    merge_update,
    to_page,
    update_validated,
)

# -- proposing --------------------------------------------------------------------------


def propose_page(
    request: WikiCreateRequest, store: Store, embedder: Embedder, *, actor: str, proposer: str
) -> WriteResponse:
    """The agents' ``propose_page``: a new page that waits for a curator as a draft,
    whatever status it asked for; ``generated`` says ``proposer`` wrote it when it does
    not say who did."""
    front_matter = request.front_matter.model_copy(
        update={
            "status": "draft",
            "generated": request.front_matter.generated or Generated(by=proposer, at=now()),
        }
    )
    return create_validated(
        None, front_matter, request.content, store, embedder, actor=actor
    ).response()


def propose_update(
    request: WikiUpdateRequest,
    store: Store,
    embedder: Embedder,
    *,
    actor: str,
    turns: PageTurns | None = None,
) -> ProposeResponse:
    """The agents' ``propose_update``: a proposal for an ``active`` page, else the edit
    (taking its page's turn among ``turns``, the process's: ``update_validated``)."""
    if "status" in request.update_metadata:
        raise InvalidInput(
            "a proposal never changes a page's status: promoting or archiving is the "
            "curator's call; leave status out",
            field="update_metadata.status",
        )
    record = store.pages.get(request.slug)
    if record is None:
        raise NotFound(f"no page with slug '{request.slug}'", field="slug")
    if record.front_matter.get("status") != "active":
        written = update_validated(
            request.slug,
            request.update_metadata,
            request.content,
            request.expected_version,
            store,
            embedder,
            actor=actor,
            known=record,
            turns=turns,
        )
        assert written.status != "created"  # an update never creates
        return ProposeResponse.of(written.status, written.page)
    if request.expected_version is not None and record.version != request.expected_version:
        raise VersionConflict(
            f"page '{request.slug}' is at version {record.version}, not "
            f"{request.expected_version}: read it again and retry",
            field="expected_version",
        )
    merged = merge_update(record, request.update_metadata, request.content, "update_metadata")
    current = merged.current or to_page(record)
    if merged.unchanged:
        return ProposeResponse.of("unchanged", current)
    proposal = Proposal(
        id=new_proposal_id(),
        slug=record.slug,
        base_version=record.version,
        content=request.content,
        metadata=dict(request.update_metadata),
        actor=actor,
        created_at=now(),
    )
    store.proposals.add(proposal)
    return ProposeResponse.of("proposed", current, proposal=proposal.id)


# -- finding what is reviewed -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Target:
    """What a review command names: a page (a draft, usually) or a proposal."""

    page: PageRecord
    proposal: Proposal | None = None


def find(target: str, store: Store) -> Target:
    """The page or proposal ``target`` names (``NotFound`` naming it otherwise)."""
    if is_proposal_id(target):
        proposal = store.proposals.get(target)
        if proposal is None:
            raise NotFound(f"no proposal '{target}'", field="target")
        page = store.pages.get(proposal.slug)
        if page is None:  # pages are archived, never deleted: a store edited by hand
            raise NotFound(f"proposal {target} is for '{proposal.slug}', which is gone")
        return Target(page, proposal)
    page = store.pages.get(target)
    if page is None:
        raise NotFound(f"no page or proposal '{target}'", field="target")
    return Target(page)


def is_archived_answer(front_matter: Mapping[str, Any]) -> bool:
    """A draft the archive wrote: machine-written, and the question it answered kept."""
    sources = front_matter.get("sources") or []
    asked = any(isinstance(s, dict) and s.get("type") == "query" for s in sources)
    return bool(front_matter.get("generated")) and asked


def cited_pages(front_matter: Mapping[str, Any]) -> list[str]:
    """The wiki pages a draft cites, in order: its ``[k]`` cites the k-th."""
    return [
        str(s["ref"])
        for s in front_matter.get("sources") or []
        if isinstance(s, dict) and s.get("type") == "wiki" and s.get("ref")
    ]


# -- show -------------------------------------------------------------------------------


def show(target: str, store: Store, *, history_limit: int = 10) -> Shown:
    """Everything a curator reads before deciding: the whole text, sources, grounding,
    freshness and history of the page; for a proposal, also its diff against the page
    as it is now (and whether the page moved on since it was proposed)."""
    found = find(target, store)
    page = found.page
    fm = page.front_matter
    out: Shown = {
        "slug": page.slug,
        "title": fm.get("title"),
        "type": fm.get("type"),
        "status": fm.get("status"),
        "version": page.version,
        "created_at": page.created_at.isoformat(),
        "updated_at": page.updated_at.isoformat(),
        "generated": fm.get("generated"),
        "archived_answer": is_archived_answer(fm),
        "sources": list(fm.get("sources") or []),
        "grounding": check_grounding(page.content, store.code).body(),
        "freshness": {
            "state": state_of(page.freshness),
            "missing": list(page.freshness.missing) if page.freshness else [],
        },
        "history": [
            memory.entry(r).body() for r in store.revisions.history(page.slug, limit=history_limit)
        ],
        "content": page.content,
    }
    if found.proposal is not None:
        view = _proposal_view(found.proposal, page)
        if found.proposal.merge is not None:
            view["merge"] = merging.view(found.proposal)
        out["proposal"] = view
    return out


def _proposal_view(proposal: Proposal, page: PageRecord) -> ProposalView:
    view: ProposalView = {
        "id": proposal.id,
        "status": proposal.status,
        "actor": proposal.actor,
        "created_at": proposal.created_at.isoformat(),
        "base_version": proposal.base_version,
        "page_moved_on": page.version != proposal.base_version,
        "changes": _changes(proposal),
    }
    if proposal.reason:
        view["reason"] = proposal.reason
    if proposal.closed_by:
        view["closed_by"] = proposal.closed_by
    try:
        merged = merge_update(page, proposal.metadata, proposal.content, "update_metadata")
    except InvalidInput as exc:  # the page changed so that the proposal no longer fits
        view["diff"] = ""
        view["invalid"] = exc.message
        return view
    view["diff"] = memory.unified(
        page.slug,
        (f"v{page.version}", page.front_matter, page.content),
        (proposal.id, merged.front_matter.dump(), merged.content),
    )
    return view


# -- accept -----------------------------------------------------------------------------


def accept(
    target: str,
    store: Store,
    embedder: Embedder,
    *,
    actor: str,
    version: int | None = None,
) -> JsonObject:
    """Promote a draft or apply a proposal (see the module docstring); the write's body,
    plus ``proposal`` when one was applied. ``version``: the page's version the curator
    read (``show``); refused, with nothing written, when the page is no longer there."""
    found = find(target, store)
    if version is not None and found.page.version != version:
        raise Conflict(
            f"'{found.page.slug}' is at version {found.page.version}, not {version}, since "
            f"you read it: nothing was accepted. Show {target} again, then accept it "
            "with the version shown",
            field="version",
        )
    if found.proposal is not None and found.proposal.merge is not None:
        return merging.accept(found.proposal, found.page, store, embedder, actor=actor)
    if found.proposal is not None:
        return _accept_proposal(found.proposal, found.page, store, embedder, actor)
    page = found.page
    status = page.front_matter.get("status")
    if status != "draft":
        raise InvalidInput(
            f"'{page.slug}' is {status}, not a draft: accept takes a draft or a proposal",
            field="target",
        )
    content = None
    note = "accepted the draft"
    if is_archived_answer(page.front_matter):
        cited = cited_pages(page.front_matter)
        titles = {
            slug: str(record.front_matter.get("title") or slug)
            for slug in dict.fromkeys(cited)
            if (record := store.pages.get(slug)) is not None
        }
        content = as_page(page.content, cited, titles)
        note = "accepted the archived answer as a page"
    result = _write(page, {"status": "active"}, content, store, embedder, actor=actor, note=note)
    return result.response().body()


def _accept_proposal(
    proposal: Proposal, page: PageRecord, store: Store, embedder: Embedder, actor: str
) -> JsonObject:
    if proposal.status != "open":
        raise Conflict(f"proposal {proposal.id} is already {proposal.status}", field="target")
    if page.version != proposal.base_version:
        raise _moved_on(proposal, page.version)
    # Closed in the page write's own commit, and only if still open: an accept racing a
    # reject either writes the page and closes it accepted, or writes nothing at all.
    closed = replace(proposal, status="accepted", closed_at=now(), closed_by=actor)
    result = _write(
        page,
        proposal.metadata,
        proposal.content,
        store,
        embedder,
        actor=proposal.actor,
        note=f"accepted {proposal.id} (by {actor})",
        expected=proposal.base_version,
        proposal=proposal,
        closes=closed,
    )
    if result.status == "unchanged" and not store.proposals.close(
        replace(closed, version=result.page.version)
    ):  # nothing to write, so nothing to close it with: closed alone, still exactly once
        raise proposal_closed(proposal.id)
    return {**result.response().body(), "proposal": proposal.id}


def _moved_on(proposal: Proposal, version: int) -> Conflict:
    return Conflict(
        f"page '{proposal.slug}' moved on since proposal {proposal.id} was made (it was "
        f"version {proposal.base_version}, it is {version} now): nothing was applied. "
        f"Read the difference with `biblioteca show {proposal.id}`, then reject it or "
        "ask its author to propose again against the page as it is",
        field="target",
    )


def _write(
    page: PageRecord,
    metadata: Mapping[str, Any],
    content: str | None,
    store: Store,
    embedder: Embedder,
    *,
    actor: str,
    note: str,
    expected: int | None = None,
    proposal: Proposal | None = None,
    closes: Proposal | None = None,
) -> WriteResult:
    """One versioned write of a review step: against the version read, so a write that
    slipped in meanwhile is a conflict the curator hears about, never overwritten."""
    try:
        return update_validated(
            page.slug,
            metadata,
            content,
            expected if expected is not None else page.version,
            store,
            embedder,
            actor=actor,
            note=note,
            field="",
            known=page,
            closes=closes,
        )
    except VersionConflict as exc:
        if proposal is not None:
            latest = store.pages.get(page.slug)
            raise _moved_on(proposal, latest.version if latest else page.version) from exc
        raise Conflict(
            f"'{page.slug}' changed while it was being reviewed: show it again and retry",
            field="target",
        ) from exc


# -- reject -----------------------------------------------------------------------------


def reject(
    target: str,
    store: Store,
    embedder: Embedder,
    *,
    actor: str,
    reason: str | None = None,
) -> JsonObject:
    """Archive a draft, or close a proposal with ``reason``."""
    found = find(target, store)
    why = " ".join((reason or "").split())[:500] or None
    if found.proposal is not None and found.proposal.merge is not None:
        return merging.reject(found.proposal, store, actor=actor, reason=why)
    if found.proposal is not None:
        proposal = found.proposal
        if proposal.status != "open":
            raise Conflict(f"proposal {proposal.id} is already {proposal.status}", field="target")
        closed = replace(proposal, status="rejected", closed_at=now(), closed_by=actor, reason=why)
        if not store.proposals.close(closed):
            raise Conflict(f"proposal {proposal.id} was closed by someone else meanwhile")
        return {"status": "rejected", "proposal": proposal.id, "slug": proposal.slug, "reason": why}
    page = found.page
    status = page.front_matter.get("status")
    if status != "draft":
        raise InvalidInput(
            f"'{page.slug}' is {status}, not a draft: reject takes a draft or a proposal "
            "(to unpublish a page, update its status to archived)",
            field="target",
        )
    note = f"rejected: {why}" if why else "rejected"
    result = _write(page, {"status": "archived"}, None, store, embedder, actor=actor, note=note)
    return {**result.response().body(), "status": "rejected", "reason": why}


# -- what waits -------------------------------------------------------------------------


def waiting(store: Store) -> Waiting:
    """The review queue: drafts, oldest first, and open proposals (status, the report)."""
    drafts = sorted(store.pages.list(status="draft"), key=lambda r: (r.created_at, r.slug))
    proposals = store.proposals.list(status="open")
    return {
        "drafts": [
            {
                "slug": d.slug,
                "title": str(d.front_matter.get("title", "")),
                "created_at": d.created_at.isoformat(),
                "archived_answer": is_archived_answer(d.front_matter),
            }
            for d in drafts
        ],
        "proposals": [proposal_row(p) for p in proposals],
    }


def proposal_row(proposal: Proposal) -> ProposalRow:
    return {
        "id": proposal.id,
        "slug": proposal.slug,
        "actor": proposal.actor,
        "created_at": proposal.created_at.isoformat(),
        "base_version": proposal.base_version,
        "changes": _changes(proposal),
    }


def _changes(proposal: Proposal) -> list[str]:
    """What a proposal changes: ``content`` and the front-matter keys it writes."""
    return sorted([*(["content"] if proposal.content is not None else []), *proposal.metadata])
