"""``biblioteca drafts``: the curator's queue as a table and as JSON, on both stores."""

from __future__ import annotations

import json
from typing import Any

import pytest

from shared.cli import main
from shared.config import get_settings
from tests.fixtures.wiring import archive_wired
from tests.functions.test_archive import answer


def _printed(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """What ``biblioteca ARGS`` prints, without what the test's own service calls logged
    before it (their JSON log lines go to stdout when an earlier test, as a function
    does, routed the log there)."""
    capsys.readouterr()
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_no_drafts(store: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """An empty queue says so and exits 0."""
    assert _printed(capsys, "drafts").strip() == "no drafts waiting"


def test_drafts_are_listed_with_their_provenance(
    store: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Archived answers appear with slug, title, creation time and the model that wrote them."""
    settings = get_settings()
    made = [
        archive_wired(
            question=f"¿Cómo configuro {topic}?",
            answer=answer(),
            sources=["guide—a", "guide—b"],
            store=store,
            settings=settings,
            model="gemini:gemini-2.5-flash",
        )
        for topic in ("CORS", "HTTPS")
    ]
    assert all(m["archived"] for m in made)

    listing = json.loads(_printed(capsys, "drafts", "--json"))
    assert listing["count"] == 2
    assert [r["slug"] for r in listing["drafts"]] == [m["slug"] for m in made]  # oldest first
    assert listing["drafts"][0]["title"] == "Cómo configuro CORS"
    assert listing["drafts"][0]["generated_by"] == "gemini:gemini-2.5-flash"

    table = _printed(capsys, "drafts").splitlines()
    assert table[0].split() == ["SLUG", "TITLE", "CREATED", "BY"]
    assert made[1]["slug"] in table[2]
    assert table[-1].startswith("2 draft(s)")


def test_promoted_drafts_leave_the_queue(store: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """After wiki_update status active, a page is no longer a draft."""
    from shared.bootstrap import build_embedder
    from shared.services.wiki import update_validated

    settings = get_settings()
    made = archive_wired(
        question="¿Cómo pruebo WebSockets?",
        answer=answer(),
        sources=["guide—a", "guide—b"],
        store=store,
        settings=settings,
    )
    update_validated(
        made["slug"], {"status": "active"}, None, 1, store, build_embedder(settings), actor="test"
    )
    assert json.loads(_printed(capsys, "drafts", "--json"))["count"] == 0
    assert store.pages.get(made["slug"]).front_matter["status"] == "active"
