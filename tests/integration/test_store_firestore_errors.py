"""The Firestore adapter's failure paths: vendor errors arrive as our error tree.

Real failures only: an emulator host nobody listens on, a write that really slips
in between the read and the commit, a page too big for one commit.
"""

from __future__ import annotations

import dataclasses
import socket
import time
from typing import Any

import numpy as np
import pytest

from shared.errors import NotFound, PayloadTooLarge, Unavailable, VersionConflict
from shared.records import Chunk, SearchFilter
from shared.retrieval.chunking import split_markdown
from shared.store.firestore import FirestoreStore
from shared.store.firestore.pages import FirestorePages
from tests.integration.test_page_store_contract import chunks_of, page, unit

pytestmark = pytest.mark.firestore


@pytest.fixture
def unreachable(monkeypatch: pytest.MonkeyPatch) -> FirestoreStore:
    """A store whose emulator host refuses connections, with a 1 s budget per call."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again when the block ends: nobody listens
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", f"127.0.0.1:{port}")
    return FirestoreStore("test-unreachable", timeout=1.0)


@pytest.fixture
def fresh(firestore_emulator: str, monkeypatch: pytest.MonkeyPatch) -> FirestoreStore:
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", firestore_emulator)
    return FirestoreStore(f"test-errors-{time.monotonic_ns()}")


def test_constructing_the_store_does_no_io(unreachable: FirestoreStore) -> None:
    """Building the store against a dead host succeeds: the client is made on first use."""
    assert unreachable.db._client is None


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.pages.get("any"),
        lambda s: s.pages.create(page("any"), []),
        lambda s: s.pages.list(status="active"),
        lambda s: s.chunks.nearest(unit(1), embedder="e", filters=SearchFilter(), limit=3),
        lambda s: s.chunks.embedders(),
        lambda s: s.events.record("utility_hit", {"q": "x"}),
    ],
    ids=["get", "create", "list", "nearest", "embedders", "record"],
)
def test_an_unreachable_store_is_unavailable(unreachable: FirestoreStore, call: Any) -> None:
    """Every port raises Unavailable (503) from the vendor error, within its time budget."""
    started = time.monotonic()

    with pytest.raises(Unavailable) as caught:
        call(unreachable)

    assert caught.value.status == 503
    assert type(caught.value.__cause__).__module__.startswith("google.")
    assert time.monotonic() - started < 10


def test_a_write_between_read_and_commit_is_a_version_conflict(fresh: FirestoreStore) -> None:
    """A concurrent write after the version check fails the whole commit: VersionConflict."""
    fresh.pages.create(page("between"), chunks_of("between", unit(1), unit(0, 1)))
    other = fresh.pages

    class Interleaved(FirestorePages):
        fired = False

        def _chunk_ref(self, slug: str, ordinal: int, key: str = "") -> Any:
            if not self.fired:  # runs after the read, before the commit
                self.fired = True
                other.update(page(slug, version=2, title="Sneaked in"), None, expected_version=1)
            return super()._chunk_ref(slug, ordinal, key)

    with pytest.raises(VersionConflict) as caught:
        Interleaved(fresh.db).update(
            page("between", version=2, title="Mine"),
            chunks_of("between", unit(1, 1)),
            expected_version=1,
        )

    assert caught.value.field == "expected_version"
    assert fresh.pages.get("between").front_matter["title"] == "Sneaked in"
    assert len(fresh.chunks.vectors_for("between")) == 2  # nothing of the loser was written


def test_a_page_with_too_many_chunks_to_publish_is_refused_whole(fresh: FirestoreStore) -> None:
    """More chunks than one commit can even flip: PayloadTooLarge on ``content``, no write."""
    many = [Chunk("huge", i, "h", "x", f"h{i}", unit(1), "e@8") for i in range(12_000)]

    with pytest.raises(PayloadTooLarge) as caught:
        fresh.pages.create(page("huge"), many)

    assert caught.value.field == "content"
    assert fresh.pages.get("huge") is None
    assert fresh.chunks.vectors_for("huge") == {}


def test_a_page_of_more_than_500_chunks_is_one_commit(fresh: FirestoreStore) -> None:
    """Over 500 chunk writes with the page in one commit (the old per-commit cap is gone)."""
    paragraph = ("Una frase de prosa en español para llenar la página. " * 9).strip()
    content = "\n\n".join(f"## Sección {i}\n\n{paragraph}" for i in range(540))
    pieces = split_markdown("Grande", content)
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(len(pieces), 512)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chunks = [
        Chunk("grande", i, p.heading, p.text, f"h{i}", vectors[i], "local@512")
        for i, p in enumerate(pieces)
    ]

    fresh.pages.create(dataclasses.replace(page("grande"), content=content), chunks)

    assert len(chunks) > 500
    assert len(fresh.chunks.vectors_for("grande")) == len(chunks)


def test_an_update_that_finds_no_page_is_not_found(fresh: FirestoreStore) -> None:
    """NotFound comes from the read, before any write is attempted."""
    with pytest.raises(NotFound):
        fresh.pages.update(page("never", version=2), [], expected_version=1)
