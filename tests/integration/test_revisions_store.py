"""A page's memory on both stores: revisions with their actors, diff, revert, retention,
and the review of proposals and archived answers (``shared.services.history``/``review``)."""

from __future__ import annotations

from typing import Any

import pytest

from shared.api.models import WikiUpdateRequest
from shared.bootstrap import open_store, reset
from shared.config import get_settings
from shared.errors import Conflict, InvalidInput, NotFound
from shared.schema import parse_front_matter
from shared.services import history, review
from shared.services.archive import archive_answer
from shared.services.wiki import create_validated, update_validated
from tests.fixtures.embedder import HashingEmbedder

EMBEDDER = HashingEmbedder()


def _page(store: Any, slug: str, actor: str, **front: Any) -> None:
    create_validated(
        slug,
        parse_front_matter({"title": slug.title(), "type": "guide", **front}),
        f"# {slug}\n\nPrimera versión.",
        store,
        EMBEDDER,
        actor=actor,
    )


def test_two_actors_then_a_revert_make_three_revisions_with_the_reverted_content(
    store: Any,
) -> None:
    """Written by ana, changed by an agent, reverted by the curator: three revisions,
    newest first, each naming its actor and what it changed; the page is version 1 again
    (text and tags) as version 3."""
    _page(store, "pool", "ana", tags=["db"])
    update_validated(
        "pool", {"tags": ["db", "ops"]}, "# pool\n\nTexto del agente.", 1, store, EMBEDDER,
        actor="mcp:claude-code",
    )  # fmt: skip
    reverted = history.revert("pool", 1, store, EMBEDDER, actor="cli:curator")

    assert (reverted.status, reverted.page.version) == ("updated", 3)
    page = store.pages.get("pool")
    assert (page.content, list(page.front_matter["tags"])) == ("# pool\n\nPrimera versión.", ["db"])
    found = history.history("pool", store).body()["revisions"]
    assert [(r["version"], r["actor"]) for r in found] == [
        (3, "cli:curator"),
        (2, "mcp:claude-code"),
        (1, "ana"),
    ]
    assert found[0]["changed"] == ["content", "tags"]
    assert found[0]["note"] == "reverted to version 1"
    assert found[1]["changed"] == ["content", "tags"]
    assert found[2]["changed"][:3] == ["content", "title", "type"]
    assert store.revisions.get("pool", 3).content == "# pool\n\nPrimera versión."


def test_diff_defaults_to_the_last_two_versions_and_names_them(store: Any) -> None:
    """diff SLUG is the unified diff of the newest version against the one before, front
    matter first; diff SLUG 1 3 compares those; a version that never was is named."""
    _page(store, "diffs", "ana")
    update_validated("diffs", {"tags": ["x"]}, "# diffs\n\nSegunda.", None, store, EMBEDDER,
                     actor="ana")  # fmt: skip
    text = history.diff("diffs", store)
    assert "--- diffs v1 (front matter)" in text
    assert "+++ diffs v2" in text
    assert '+tags: ["x"]' in text
    assert "-Primera versión." in text
    assert "+Segunda." in text
    assert history.diff("diffs", store, 2, 2) == ""
    with pytest.raises(InvalidInput, match="versions 1 to 2, not 7"):
        history.diff("diffs", store, 1, 7)


def test_unchanged_writes_keep_no_revision_and_history_of_an_unknown_page_is_404(
    store: Any,
) -> None:
    """A write that changes nothing keeps no revision; an unknown slug is not_found."""
    _page(store, "quieta", "ana")
    update_validated("quieta", {}, None, None, store, EMBEDDER, actor="otro")
    assert [r["version"] for r in history.history("quieta", store).body()["revisions"]] == [1]
    with pytest.raises(NotFound):
        history.history("nadie", store)


def test_the_retention_keeps_the_newest_revisions_and_says_why_an_old_one_is_gone(
    store_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BIBLIOTECA_REVISIONS_KEEP=3: after five versions the three newest are kept, in the
    write's own commit; reverting to version 1 is refused naming the setting."""
    monkeypatch.setenv("BIBLIOTECA_REVISIONS_KEEP", "3")
    get_settings.cache_clear()
    reset()
    store = open_store(get_settings())
    _page(store, "larga", "ana")
    for n in range(2, 6):
        update_validated("larga", {}, f"# larga\n\nv{n}", None, store, EMBEDDER, actor="ana")
    assert [r.version for r in store.revisions.history("larga", limit=10)] == [5, 4, 3]
    assert store.revisions.get("larga", 1) is None
    with pytest.raises(NotFound, match="BIBLIOTECA_REVISIONS_KEEP"):
        history.revert("larga", 1, store, EMBEDDER, actor="cli:curator")
    assert store.pages.get("larga").version == 5


def _propose(store: Any, slug: str, version: int, content: str, actor: str) -> dict[str, Any]:
    request = WikiUpdateRequest.parse(
        {"slug": slug, "expected_version": version, "content": content}
    )
    return review.propose_update(request, store, EMBEDDER, actor=actor).body()


def test_a_proposal_accepted_after_its_page_moved_on_is_a_conflict(store: Any) -> None:
    """An agent proposes against v1; a person writes v2; accepting the proposal is refused
    as a conflict, the person's text stays, the proposal stays open, and show says the page
    moved on with the diff against the page as it is now."""
    _page(store, "viva", "ana")
    proposed = _propose(store, "viva", 1, "# viva\n\nTexto del agente.", "mcp:claude-code")
    assert (proposed["status"], proposed["version"]) == ("proposed", 1)
    update_validated("viva", {}, "# viva\n\nTexto de Ana.", 1, store, EMBEDDER, actor="ana")

    with pytest.raises(Conflict, match="moved on") as caught:
        review.accept(proposed["proposal"], store, EMBEDDER, actor="cli:curator")
    assert caught.value.status == 409
    page = store.pages.get("viva")
    assert (page.version, page.content) == (2, "# viva\n\nTexto de Ana.")
    [still] = store.proposals.list()
    assert (still.id, still.status) == (proposed["proposal"], "open")
    shown = review.show(proposed["proposal"], store)
    assert shown["proposal"]["page_moved_on"] is True
    assert "-Texto de Ana." in shown["proposal"]["diff"]
    assert "+Texto del agente." in shown["proposal"]["diff"]


def test_an_accepted_proposal_is_a_new_version_by_its_author_and_closes(store: Any) -> None:
    """Accepted at the version it was made against: a new version, the revision's actor
    the agent and its note the curator; the proposal is closed and cannot close twice."""
    _page(store, "acepta", "ana")
    proposed = _propose(store, "acepta", 1, "# acepta\n\nMejor.", "mcp:claude-code")
    result = review.accept(proposed["proposal"], store, EMBEDDER, actor="cli:curator")
    assert (result["version"], result["proposal"]) == (2, proposed["proposal"])
    last = store.revisions.get("acepta", 2)
    assert (last.actor, last.note) == (
        "mcp:claude-code",
        f"accepted {proposed['proposal']} (by cli:curator)",
    )
    closed = store.proposals.get(proposed["proposal"])
    assert (closed.status, closed.closed_by, closed.version) == ("accepted", "cli:curator", 2)
    assert store.proposals.list() == []
    assert store.proposals.close(closed) is False  # only an open one closes
    with pytest.raises(Conflict, match="already accepted"):
        review.accept(proposed["proposal"], store, EMBEDDER, actor="cli:curator")


def test_reject_closes_a_proposal_with_its_reason_and_archives_a_draft(store: Any) -> None:
    """A rejected proposal is closed with its reason and the page untouched; a rejected
    draft is archived (a new version by the curator, the reason in its note)."""
    _page(store, "intacta", "ana")
    proposed = _propose(store, "intacta", 1, "# intacta\n\nNo.", "mcp:claude-code")
    said = review.reject(proposed["proposal"], store, EMBEDDER, actor="cli:cu", reason="inexacto")
    assert (said["status"], said["reason"]) == ("rejected", "inexacto")
    assert store.proposals.get(proposed["proposal"]).status == "rejected"
    assert store.pages.get("intacta").version == 1

    _page(store, "borrador", "archive", status="draft")
    said = review.reject("borrador", store, EMBEDDER, actor="cli:cu", reason="duplica otra")
    assert said["page"]["status"] == "archived"
    revision = store.revisions.get("borrador", 2)
    assert (revision.actor, revision.note, revision.changed) == (
        "cli:cu",
        "rejected: duplica otra",
        ("status",),
    )
    with pytest.raises(InvalidInput, match="not a draft"):
        review.accept("intacta", store, EMBEDDER, actor="cli:cu")


LONG = (
    "El pool de conexiones se dimensiona con la variable de entorno que lee el servicio al "
    "arrancar; cada instancia abre como mucho ese número de conexiones, y las peticiones que "
    "llegan cuando todas están ocupadas esperan su turno en lugar de abrir otra."
)


def test_an_accepted_archived_answer_reads_as_a_page_with_its_citations_linked(
    store: Any,
) -> None:
    """The archive's draft keeps the answer (numbered by distinct page); accepting it takes
    the framing off (the lead, "Más detalles en: …") and turns each [n] into a link to the
    page it cited, titled; the draft's own revisions say archive, then the curator."""
    _page(store, "guide—pool", "ana")
    _page(store, "guide—limites", "ana")
    answer = (
        f"Según la wiki:\n\n{LONG} [1][2]\n\nCuando se agota, las peticiones esperan [3].\n\n"
        f"{LONG} [2]\n\nMás detalles en: **Pool** [1][2], **Límites** [3]."
    )
    decision = archive_answer(
        question="¿Cómo se dimensiona el pool de conexiones?",
        answer=answer,
        sources=["guide—pool", "guide—pool", "guide—limites"],  # passages [1] [2] [3]
        store=store,
        embedder=EMBEDDER,
        judge=None,
        model="local:extractive",
    ).body()
    assert decision["archived"], decision
    slug = decision["slug"]
    assert "[1][1]" in store.pages.get(slug).content  # [2] was the same page as [1]

    result = review.accept(slug, store, EMBEDDER, actor="cli:curator")
    page = store.pages.get(slug)
    assert result["page"]["status"] == "active"
    for framing in ("Según la wiki", "Más detalles en", "[1]", "[2]", "[3]"):
        assert framing not in page.content
    assert page.content.startswith("El pool de conexiones")
    assert "[[guide—pool|Guide—Pool]]" in page.content
    assert "esperan ([[guide—limites|Guide—Limites]])." in page.content
    assert [r.actor for r in store.revisions.history(slug)] == ["cli:curator", "archive"]
