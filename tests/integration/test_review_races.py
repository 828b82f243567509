"""Accept and reject of one proposal at once, on both stores: a proposal closes exactly
once, and its page is written in the same commit as its close or not at all; ``accept``
pinned to the version the curator read."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

import pytest

from shared.api.models import WikiUpdateRequest
from shared.clock import now
from shared.errors import Conflict
from shared.schema import parse_front_matter
from shared.services import review
from shared.services.wiki import create_validated, update_validated
from tests.fixtures.embedder import HashingEmbedder

EMBEDDER = HashingEmbedder()
ROUNDS = 6


def _page_and_proposal(store: Any, slug: str) -> str:
    create_validated(
        slug,
        parse_front_matter({"title": slug.title(), "type": "guide"}),
        f"# {slug}\n\nTexto de la persona.",
        store,
        EMBEDDER,
        actor="ana",
    )
    request = WikiUpdateRequest.parse(
        {"slug": slug, "expected_version": 1, "content": f"# {slug}\n\nTexto del agente."}
    )
    return str(review.propose_update(request, store, EMBEDDER, actor="mcp:bot").body()["proposal"])


def test_a_proposal_rejected_first_cannot_be_written_by_its_accept(store: Any) -> None:
    """The lost interleaving, made deterministic: the reject closes the proposal after the
    accept read it open; the accept's page write is refused whole (Conflict), the page
    stays at version 1 and the proposal stays rejected."""
    proposal_id = _page_and_proposal(store, "pisada")
    proposal = store.proposals.get(proposal_id)
    page = store.pages.get("pisada")
    rejected = replace(proposal, status="rejected", closed_at=now(), closed_by="cli:b")
    assert store.proposals.close(rejected) is True
    accepted = replace(proposal, status="accepted", closed_at=now(), closed_by="cli:a")
    written = replace(page, content="# pisada\n\nTexto del agente.", version=2)
    with pytest.raises(Conflict, match="closed by someone else"):
        store.pages.update(written, None, expected_version=1, closes=accepted)
    assert store.pages.get("pisada").version == 1
    assert store.proposals.get(proposal_id).status == "rejected"


def _accept_and_reject_at_once(store: Any, proposal_id: str) -> dict[str, str]:
    """Each decision's outcome, "won" or "conflict", both started at one barrier."""
    start = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def run(decision: str) -> None:
        start.wait()
        try:
            if decision == "accept":
                review.accept(proposal_id, store, EMBEDDER, actor="cli:a")
            else:
                review.reject(proposal_id, store, EMBEDDER, actor="cli:b", reason="no")
            outcomes[decision] = "won"
        except Conflict:
            outcomes[decision] = "conflict"

    threads = [threading.Thread(target=run, args=(d,)) for d in ("accept", "reject")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return outcomes


def test_accept_and_reject_raced_close_each_proposal_once_with_its_page(store: Any) -> None:
    """Accept and reject of one proposal started together, several times: exactly one
    wins each time; an accepted proposal's text is live at version 2, a rejected one's
    page is untouched at version 1 (never rejected-but-live)."""
    for n in range(ROUNDS):
        slug = f"carrera-{n}"
        proposal_id = _page_and_proposal(store, slug)
        outcomes = _accept_and_reject_at_once(store, proposal_id)
        assert sorted(outcomes.values()) == ["conflict", "won"], outcomes
        closed = store.proposals.get(proposal_id)
        page = store.pages.get(slug)
        if outcomes["accept"] == "won":
            assert closed.status == "accepted"
            assert (page.version, page.content) == (2, f"# {slug}\n\nTexto del agente.")
        else:
            assert closed.status == "rejected"
            assert (page.version, page.content) == (1, f"# {slug}\n\nTexto de la persona.")


def test_accept_pinned_to_a_version_is_refused_when_the_draft_moved(store: Any) -> None:
    """accept --version 1 of a draft edited to version 2 meanwhile: a 409 naming the
    field, the draft still a draft; --version 2 accepts it."""
    create_validated(
        "borrador",
        parse_front_matter({"title": "Borrador", "type": "guide", "status": "draft"}),
        "# Borrador\n\nLo que leyó la curadora.",
        store,
        EMBEDDER,
        actor="mcp:bot",
    )
    update_validated(
        "borrador", {}, "# Borrador\n\nOtra cosa.", 1, store, EMBEDDER, actor="mcp:bot"
    )
    with pytest.raises(Conflict, match="not 1") as caught:
        review.accept("borrador", store, EMBEDDER, actor="cli:cura", version=1)
    assert caught.value.field == "version"
    assert store.pages.get("borrador").front_matter.get("status") == "draft"
    result = review.accept("borrador", store, EMBEDDER, actor="cli:cura", version=2)
    assert result["version"] == 3
    assert store.pages.get("borrador").front_matter.get("status") == "active"


def test_accept_pinned_to_a_version_is_refused_when_the_proposals_page_moved(
    store: Any,
) -> None:
    """accept PROPOSAL --version 2 when the page is at 1 (the proposal's base): refused."""
    proposal_id = _page_and_proposal(store, "pin")
    with pytest.raises(Conflict, match="not 2"):
        review.accept(proposal_id, store, EMBEDDER, actor="cli:cura", version=2)
    assert store.proposals.get(proposal_id).status == "open"
