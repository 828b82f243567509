"""Gaps on both stores, grouped by the real local embedder, closed by a new page."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from shared.providers.local_embedder import shared_local_embedder
from shared.records import FeedbackRecord
from shared.schema import parse_front_matter
from shared.services.gaps import find_gaps
from shared.services.wiki import create_validated
from tests.fixtures.embedder import HashingEmbedder

SINCE = datetime(2000, 1, 1, tzinfo=UTC)


def _hit(store: Any, question: str, slugs: list[str], confidence: str, best: float) -> None:
    store.events.record(
        "utility_hit",
        {
            "question": question,
            "mode": "help",
            "origin": "ask",
            "slugs": slugs,
            "confidence": confidence,
            "best_fused": best,
        },
    )


def _missing(store: Any, question: str, slug: str, reason: str = "missing") -> None:
    """A reader's 👎 kept in the feedback store, as ``POST /feedback`` keeps it."""
    store.feedback.record(
        FeedbackRecord(
            id=f"fb-{reason}-{slug}",
            rating="down",
            reason=reason,  # type: ignore[arg-type]
            comment=None,
            answer_id=None,
            slug=slug,
            question=question,
            origin="http",
            at=datetime.now(UTC) - timedelta(minutes=1),
        )
    )


def test_spanish_and_english_questions_are_one_gap_ranked_first(store: Any) -> None:
    """'¿cómo subo un archivo?' and 'how do I upload a file?' group; CORS and paella apart."""
    _hit(store, "¿cómo subo un archivo?", [], "low", 0.1)
    _hit(store, "how do I upload a file?", ["guia-x"], "low", 0.25)
    _hit(store, "¿cómo configuro CORS?", ["cors"], "high", 0.35)
    _hit(store, "receta de paella", [], "low", 0.05)
    _hit(store, "¿qué es FastAPI?", ["intro"], "high", 0.9)  # answered well: no gap

    _missing(store, "How can I upload files?", "guia-x")
    _missing(store, "¿Dónde está la guía de despliegue?", "guia-x", reason="outdated")  # no gap

    report = find_gaps(store, shared_local_embedder(), since=SINCE)

    body = report.body()
    assert body["signals"] == 5
    first = body["open"][0]
    assert first["count"] == 3
    assert set(first["samples"]) == {
        "¿cómo subo un archivo?",
        "how do I upload a file?",
        "How can I upload files?",
    }
    assert first["pages"] == [{"slug": "guia-x", "count": 2}]
    assert first["why"] == {"low_confidence": 1, "refused": 1, "feedback_missing": 1}
    assert sorted(len(g["samples"]) for g in body["open"]) == [1, 1, 3]
    assert body["wanted_pages"][0]["asked"] == 3
    assert body["closed"] == []


def test_a_gap_closes_when_asked_again_and_answered_from_a_newer_page(store: Any) -> None:
    """After a page is written, the same question answered confidently from it closes
    the gap; the report says which page and when. A confident answer from an old page
    does not."""
    create_validated(
        "vieja",
        parse_front_matter({"title": "Vieja", "type": "guide"}),
        "Nada.",
        store,
        HashingEmbedder(),
        actor="test",
    )
    _hit(store, "¿cómo subo un archivo?", [], "low", 0.1)
    _hit(store, "how do I upload a file?", ["vieja"], "high", 0.8)  # old page: still open
    assert [
        g["status"] for g in find_gaps(store, shared_local_embedder(), since=SINCE).body()["open"]
    ] == ["open"]

    create_validated(
        "subir-archivos",
        parse_front_matter({"title": "Subir archivos", "type": "guide"}),
        "Usa UploadFile.",
        store,
        HashingEmbedder(),
        actor="test",
    )
    _hit(store, "¿cómo subo un archivo?", ["subir-archivos"], "high", 0.8)

    body = find_gaps(store, shared_local_embedder(), since=SINCE).body()
    assert body["open"] == []
    [closed] = body["closed"]
    assert closed["status"] == "closed"
    assert closed["closed"]["slug"] == "subir-archivos"
    assert closed["closed"]["question"] == "¿cómo subo un archivo?"
