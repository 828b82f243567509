"""Concurrent archive attempts of one question and answer leave exactly one page, on both stores."""

from __future__ import annotations

import threading
import uuid
from typing import Any

from shared.config import Settings, get_settings
from shared.services.archive import same_text
from tests.fixtures.wiring import archive_wired
from tests.functions.test_archive import answer

ROUNDS = 3
THREADS = 6


def race(store: Any, settings: Settings, q: str, a: str, slugs: list[str]) -> list[Any]:
    """``THREADS`` attempts released at once; their decisions, or the errors they raised."""
    outcomes: list[Any] = []
    barrier = threading.Barrier(THREADS)

    def attempt() -> None:
        barrier.wait()
        try:
            outcomes.append(
                archive_wired(question=q, answer=a, sources=slugs, store=store, settings=settings)
            )
        except BaseException as exc:  # reported by the caller's assert
            outcomes.append(exc)

    threads = [threading.Thread(target=attempt) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def test_racing_duplicates_make_one_page(store: Any) -> None:
    """Six simultaneous identical attempts, three times: one archives, five are duplicates."""
    settings = get_settings()
    archive_wired(  # warm the embedder and the store client before the race
        question="¿Hay docs sobre esto?", answer="x", sources=[], store=store, settings=settings
    )
    for _ in range(ROUNDS):
        q, a = f"¿Cómo se hace {uuid.uuid4().hex}?", answer()
        slugs = [f"guide—a-{uuid.uuid4().hex[:6]}", f"guide—b-{uuid.uuid4().hex[:6]}"]

        outcomes = race(store, settings, q, a, slugs)

        assert all(isinstance(o, dict) for o in outcomes), outcomes
        reasons = sorted(o["reason"] for o in outcomes)
        assert reasons == ["archived"] + ["duplicate"] * (THREADS - 1)
        assert len({o["slug"] for o in outcomes}) == 1
        drafts = store.pages.list(status="draft")
        assert len([p for p in drafts if same_text(p.content) == same_text(a)]) == 1
