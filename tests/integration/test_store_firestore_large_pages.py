"""Pages too big for one Firestore commit: chunks staged first, published by one commit.

The emulator refuses requests over 4 MiB (production: 10 MiB), so a 512 KiB page
with 768-d vectors really takes the two-phase path here.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np
import pytest

from shared.errors import VersionConflict
from shared.records import Chunk, SearchFilter
from shared.retrieval.chunking import split_markdown
from shared.store.firestore import FirestoreStore
from shared.store.firestore.pages import FirestorePages
from tests.integration.test_page_store_contract import page

pytestmark = pytest.mark.firestore
EMBEDDER = "gemini:test@768"


@pytest.fixture
def fresh(firestore_emulator: str, monkeypatch: pytest.MonkeyPatch) -> FirestoreStore:
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", firestore_emulator)
    return FirestoreStore(f"test-large-{time.monotonic_ns()}")


def big_page(slug: str, sections: int, seed: int = 7) -> tuple[Any, list[Chunk]]:
    """A page of ``sections`` prose sections (~560 chars each), chunked as the service does."""
    paragraph = ("Una frase de prosa en español para llenar la página. " * 10).strip()
    content = "\n\n".join(f"## Sección {i}\n\n{paragraph} {i}" for i in range(sections))
    pieces = split_markdown("Grande", content)
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(len(pieces), 768)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chunks = [
        Chunk(slug, i, p.heading, p.text, f"{seed}-{i}", vectors[i], EMBEDDER)
        for i, p in enumerate(pieces)
    ]
    return dataclasses.replace(page(slug), content=content[: 512 * 1024]), chunks


def staged(store: FirestoreStore, slug: str) -> bool:
    """Whether the page's chunks were published through the staging path."""
    return bool(store.db.collection("pages").document(slug).get().get("chunk_key"))


def near(store: FirestoreStore, chunk: Chunk) -> list[tuple[str, int]]:
    hits = store.chunks.nearest(chunk.vector, embedder=EMBEDDER, filters=SearchFilter(), limit=1)
    return [(h.slug, h.ordinal) for h in hits]


def test_a_512_kib_page_with_768_d_vectors_is_stored_whole(fresh: FirestoreStore) -> None:
    """Over the emulator's 4 MiB commit: every chunk is stored and searchable."""
    record, chunks = big_page("grande", 900)

    fresh.pages.create(record, chunks)

    assert staged(fresh, "grande")
    assert len(record.content.encode()) > 500 * 1024
    assert len(fresh.chunks.vectors_for("grande")) == len(chunks)
    assert near(fresh, chunks[-1]) == [("grande", len(chunks) - 1)]
    assert fresh.pages.get("grande") == record


def test_replacing_a_staged_page_leaves_none_of_its_old_chunks(fresh: FirestoreStore) -> None:
    """Staged -> one commit -> staged again: each write's chunks replace the last exactly."""
    record, chunks = big_page("vuelta", 500)
    fresh.pages.create(record, chunks)
    small, few = big_page("vuelta", 3, seed=8)

    was_staged = staged(fresh, "vuelta")
    fresh.pages.update(dataclasses.replace(small, version=2), few, expected_version=1)
    after_small = fresh.chunks.vectors_for("vuelta")
    small_staged = staged(fresh, "vuelta")
    again, more = big_page("vuelta", 500, seed=9)
    fresh.pages.update(dataclasses.replace(again, version=3), more, expected_version=2)

    assert (was_staged, small_staged, staged(fresh, "vuelta")) == (True, False, True)
    assert set(after_small) == {c.hash for c in few}
    assert set(fresh.chunks.vectors_for("vuelta")) == {c.hash for c in more}
    assert near(fresh, more[-1]) == [("vuelta", len(more) - 1)]


def test_staged_chunks_stay_invisible_until_the_page_commit(fresh: FirestoreStore) -> None:
    """Between staging and the page commit, no search sees the new chunks."""
    record, chunks = big_page("oculta", 500)
    seen: list[list[tuple[str, int]]] = []

    class Watching(FirestorePages):
        def _put_chunks(self, batch: Any, page: Any, chunks: Any, key: str) -> None:
            seen.append(near(fresh, chunks[0]))  # staged already, not yet published
            super()._put_chunks(batch, page, chunks, key)

    Watching(fresh.db).create(record, chunks)

    assert staged(fresh, "oculta")
    assert seen == [[]]
    assert near(fresh, chunks[0]) == [("oculta", 0)]


def test_a_staged_update_that_loses_a_race_discards_its_chunks(fresh: FirestoreStore) -> None:
    """A conflict at the publishing commit: VersionConflict, old chunks intact, staged gone."""
    small, few = big_page("carrera", 3)
    fresh.pages.create(small, few)
    record, chunks = big_page("carrera", 500, seed=11)
    other = fresh.pages

    class Raced(FirestorePages):
        def _put_chunks(self, batch: Any, page: Any, chunks: Any, key: str) -> None:
            other.update(dataclasses.replace(small, version=2), None, expected_version=1)
            super()._put_chunks(batch, page, chunks, key)

    with pytest.raises(VersionConflict):
        Raced(fresh.db).update(dataclasses.replace(record, version=2), chunks, expected_version=1)

    assert set(fresh.chunks.vectors_for("carrera")) == {c.hash for c in few}
    assert fresh.pages.get("carrera").version == 2


def test_a_staged_page_passages_are_read_by_key(fresh: FirestoreStore) -> None:
    """Chunks published from staging keep keyed ids; reading them by key still finds them."""
    record, chunks = big_page("grande", 900)
    fresh.pages.create(record, chunks)
    assert staged(fresh, "grande")
    keys = {("grande", 0), ("grande", len(chunks) - 1), ("grande", len(chunks) + 5)}

    found = fresh.chunks.chunks_by_key(keys)

    assert sorted(found) == [("grande", 0), ("grande", len(chunks) - 1)]
    assert found[("grande", 0)].text == chunks[0].text
