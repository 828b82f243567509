"""A question's dense side runs on the snapshot's compressed vectors: no vector query.

Run on both stores: the snapshot holds every active chunk's vector as 4-bit codes, follows
writes of other processes through the change log like the lexical side, survives a
cold start through the stored snapshot, ranks as the store's exact search does, and
without it (too large for the instance) the store's own vector search answers, logged.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from shared.cli import main
from shared.records import ChunkHit, SearchFilter, Vector
from shared.retrieval import hybrid
from shared.retrieval.snapshot import decode_all
from tests.fixtures.files import write as write_file
from tests.integration.test_chunk_changes import INDEX, Spy, other_store
from tests.integration.test_page_store_contract import EMBEDDER, chunks_of, page, unit

EVERYTHING = SearchFilter()


def spread(i: int) -> Vector:
    """A unit vector of its own for page ``i`` (its neighbours differ by a small angle)."""
    angle = i * 0.07
    return unit(float(np.cos(angle)), float(np.sin(angle)), 0.1 * (i % 3))


def fill(store: Any, pages: int, **fields: Any) -> None:
    for i in range(pages):
        slug = f"p{i:03d}"
        store.pages.create(page(slug, **fields), chunks_of(slug, spread(i), spread(i + 40)))


def no_vector_query(chunks: Any, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Replace the store's vector search by one that counts its calls and finds nothing."""
    calls: list[int] = []

    def nearest(*args: Any, **kwargs: Any) -> list[ChunkHit]:
        calls.append(1)
        return []

    monkeypatch.setattr(chunks, "nearest", nearest)
    return calls


def dense_keys(store: Any, probe: Vector, limit: int = 10) -> list[tuple[str, int]]:
    state = INDEX.snapshot(store.chunks)
    found = hybrid.retrieve(
        store.chunks,
        "pregunta",
        probe,
        embedder=EMBEDDER,
        filters=EVERYTHING,
        limit=limit,
        state=state,
    ).dense
    return [(h.slug, h.ordinal) for h in found[:limit]]


def exact_keys(store: Any, probe: Vector, limit: int = 10) -> list[tuple[str, int]]:
    hits = store.chunks.nearest(probe, embedder=EMBEDDER, filters=EVERYTHING, limit=limit)
    return [(h.slug, h.ordinal) for h in hits]


def test_a_question_ranks_as_the_exact_search_without_a_vector_query(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compressed candidates rescored from the stored vectors give the exact top 10, and
    the store's vector search is never called."""
    fill(store, 30)
    probe = unit(0.9, 0.5, 0.1)
    exact = exact_keys(store, probe)
    calls = no_vector_query(store.chunks, monkeypatch)
    assert dense_keys(store, probe) == exact
    assert calls == []


def test_writes_of_another_process_reach_the_dense_side_from_the_change_log(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page created and one archived elsewhere show in the next question's dense hits,
    without a full read and without a vector query."""
    fill(store, 10)
    INDEX.snapshot(store.chunks)
    writer = other_store()
    target = unit(0, 0, 0, 0, 0, 0, 0, 1)  # an axis no page has yet
    writer.pages.create(page("nueva"), chunks_of("nueva", target, unit(1)))
    writer.pages.update(page("p000", status="archived", version=2), None, expected_version=1)
    spy = Spy(store.chunks, monkeypatch)
    calls = no_vector_query(store.chunks, monkeypatch)
    found = dense_keys(store, target, limit=3)
    assert found[0] == ("nueva", 0)
    assert "p000" not in {slug for slug, _ in dense_keys(store, spread(0), limit=20)}
    assert (spy.full_reads, calls) == (0, [])


def test_a_cold_instance_searches_the_stored_vectors(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stored snapshot carries the codes: a cold instance answers from them and the
    pages written since, with no full read and no vector query."""
    fill(store, 12)
    hybrid.store_snapshot(store.chunks, INDEX)
    stored = store.chunks.load_snapshot()
    assert stored is not None
    decoded = decode_all(stored.payload)
    assert decoded is not None
    assert decoded.dense is not None
    assert len(decoded.dense) == 24
    other_store().pages.create(page("tarde"), chunks_of("tarde", unit(0, 0, 0, 0, 0, 1)))
    cold = other_store()
    spy = Spy(cold.chunks, monkeypatch)
    probe = unit(0.8, 0.6)
    exact = exact_keys(cold, probe)
    calls = no_vector_query(cold.chunks, monkeypatch)
    assert dense_keys(cold, probe) == exact
    assert dense_keys(cold, unit(0, 0, 0, 0, 0, 1), limit=1) == [("tarde", 0)]
    assert (spy.full_reads, calls) == (0, [])


def test_vectors_too_large_for_the_instance_fall_back_to_the_store_search(
    store: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Past ``DENSE_MAX_BYTES`` the snapshot keeps no codes and the store's vector search
    answers the question, with a line in the log saying so."""
    monkeypatch.setattr(hybrid, "DENSE_MAX_BYTES", 0)
    fill(store, 5)
    probe = unit(1, 0.2)
    exact = exact_keys(store, probe)
    with caplog.at_level(logging.INFO, logger="biblioteca"):
        assert INDEX.snapshot(store.chunks).dense is None
        assert dense_keys(store, probe) == exact
    assert "falls back to the store's" in caplog.text
    assert "the store's vector search answers" in caplog.text


def test_the_first_question_after_an_import_builds_nothing(
    store_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``biblioteca import`` leaves the snapshot (both sides) stored: a fresh instance's
    first question reads it, never every chunk, stores no other, queries no vector index."""
    from shared.api.models import AskRequest
    from shared.bootstrap import wiring

    root = tmp_path / "docs"
    write_file(root, "instalar.md", "# Instalar\n\nEjecuta `make run` para instalar.\n")
    write_file(root, "usar.md", "# Usar\n\nLa consulta se escribe en el cuadro de búsqueda.\n")
    assert main(["import", str(root), "--type", "guide"]) == 0
    fresh = other_store()
    stored = fresh.chunks.load_snapshot()
    assert stored is not None
    decoded = decode_all(stored.payload)
    assert decoded is not None
    assert decoded.dense is not None
    assert len(decoded.dense) == len(decoded.index) > 0
    w = wiring()
    spy = Spy(w.store.chunks, monkeypatch)
    calls = no_vector_query(w.store.chunks, monkeypatch)
    reply = w.ask(AskRequest(question="¿Cómo instalo?"), authorized=False)
    w.index.settle()
    assert reply.sources
    assert (spy.full_reads, calls) == (0, [])
    assert w.store.chunks.load_snapshot() == stored  # the import's, not one the ask built


def test_serve_loads_the_snapshot_before_its_first_question(
    store_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``serve``'s worker warm-up (``warm_in_worker``, before any request) loads the stored
    snapshot: the first question after an import then loads none and reads no chunk in bulk."""
    from shared.api.models import AskRequest
    from shared.bootstrap import wiring
    from shared.cli.serve import warm_in_worker

    root = tmp_path / "docs"
    write_file(root, "instalar.md", "# Instalar\n\nEjecuta `make run` para instalar.\n")
    assert main(["import", str(root), "--type", "guide"]) == 0
    warm_in_worker()
    w = wiring()
    loads: list[int] = []
    real_load = w.store.chunks.load_snapshot

    def load_snapshot() -> Any:
        loads.append(1)
        return real_load()

    monkeypatch.setattr(w.store.chunks, "load_snapshot", load_snapshot)
    spy = Spy(w.store.chunks, monkeypatch)
    reply = w.ask(AskRequest(question="¿Cómo instalo?"), authorized=False)
    assert reply.sources
    assert (spy.full_reads, loads) == (0, [])


def test_the_cap_comes_from_the_settings(store_env: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """BIBLIOTECA_DENSE_MAX_MB=0 keeps the codes out of the wiring's index: the store's
    vector search answers instead (a 2 GiB deploy raises it for a larger wiki)."""
    from shared.bootstrap import wiring
    from shared.config import get_settings

    monkeypatch.setenv("BIBLIOTECA_DENSE_MAX_MB", "0")
    get_settings.cache_clear()
    w = wiring()
    assert w.index.dense_max_bytes == 0
    fill(w.store, 4)
    assert w.index.snapshot(w.store.chunks).dense is None
    w.index.close()
