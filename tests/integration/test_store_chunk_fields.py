"""What a chunk stores beside its text: the page fields the filters read, and nothing more."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np

from shared.records import SearchFilter
from shared.store.sqlite import FILENAME, SqliteStore
from tests.integration.test_page_store_contract import EMBEDDER, chunks_of, page, unit

# The chunks table as the first round created it: with source_types, NOT NULL.
_OLD_CHUNKS = """
CREATE TABLE chunks (
    slug TEXT NOT NULL, ordinal INTEGER NOT NULL, heading TEXT NOT NULL, text TEXT NOT NULL,
    hash TEXT NOT NULL, vector BLOB NOT NULL, embedder TEXT NOT NULL, dim INTEGER NOT NULL,
    title TEXT NOT NULL, type TEXT, category TEXT, tags TEXT NOT NULL, status TEXT NOT NULL,
    source_types TEXT NOT NULL, PRIMARY KEY (slug, ordinal)
);
"""


def stored_chunk_fields(store: Any, slug: str) -> set[str]:
    """The fields of one stored chunk, read past the adapter (a row, or a document)."""
    if isinstance(store, SqliteStore):
        row = store.db.connection().execute("SELECT * FROM chunks WHERE slug = ?", (slug,))
        return {column[0] for column in row.description}
    from google.cloud.firestore_v1.base_query import FieldFilter

    query = store.db.collection("chunks").where(filter=FieldFilter("slug", "==", slug))
    docs = query.stream()
    return set(next(iter(docs)).to_dict())


def test_chunks_carry_no_source_types(store: Any) -> None:
    """Nothing reads the page's source types from a chunk, so no chunk stores them."""
    store.pages.create(page("p1"), chunks_of("p1", unit(1)))
    fields = stored_chunk_fields(store, "p1")
    assert {"title", "type", "category", "status"} <= fields
    assert "source_types" not in fields


def test_tags_are_kept_once_per_page_where_the_filters_allow(store: Any) -> None:
    """SQLite keeps a page's tags on the page alone (its chunks are read with them);
    Firestore's vector pre-filter reads only the chunk document, so each keeps the copy.
    Either way a tag changed by a metadata-only write filters the search at once."""
    store.pages.create(page("p1", tags=("uno",)), chunks_of("p1", unit(1), unit(0, 1)))
    fields = stored_chunk_fields(store, "p1")
    assert ("tags" in fields) == (not isinstance(store, SqliteStore))
    [chunk, _] = store.chunks.active_chunks_of(["p1"])
    assert chunk.tags == ("uno",)
    store.pages.update(page("p1", version=2, tags=("dos",)), None, expected_version=1)

    def tagged(tag: str) -> list[str]:
        hits = store.chunks.nearest(
            unit(1), embedder=EMBEDDER, filters=SearchFilter(tag=tag), limit=5
        )
        return [h.slug for h in hits]

    assert tagged("uno") == []
    assert tagged("dos") == ["p1", "p1"]
    assert [c.tags for c in store.chunks.active_chunks()] == [("dos",), ("dos",)]
    assert {k: c.tags for k, c in store.chunks.chunks_by_key({("p1", 1)}).items()} == {
        ("p1", 1): ("dos",)
    }


def test_a_file_of_the_first_round_opens_and_takes_writes(tmp_path: Path) -> None:
    """An old file's chunks table loses its NOT NULL source_types column on first open; its
    chunks stay searchable and new pages are written."""
    folder = tmp_path / "data"
    folder.mkdir()
    with sqlite3.connect(folder / FILENAME) as old:
        old.executescript(_OLD_CHUNKS)
        vector = np.asarray(unit(1), dtype=np.float32).tobytes()
        old.execute(
            "INSERT INTO chunks VALUES (?, 0, 'h', 't', 'x', ?, ?, 8, 'Old', 'guide', NULL,"
            " ?, 'active', ?)",
            ("old", vector, EMBEDDER, json.dumps([]), json.dumps(["doc"])),
        )
    store = SqliteStore(folder)
    store.pages.create(page("new"), chunks_of("new", unit(0, 1)))
    hits = store.chunks.nearest(unit(1), embedder=EMBEDDER, filters=SearchFilter(), limit=5)
    assert [h.slug for h in hits] == ["old", "new"]
    assert "source_types" not in stored_chunk_fields(store, "new")


def test_chunks_by_key_reads_the_active_chunks_asked_for(store: Any) -> None:
    """The passages' texts by (slug, ordinal): only active chunks, only those asked for."""
    store.pages.create(page("a"), chunks_of("a", unit(1), unit(0, 1), unit(1, 1)))
    store.pages.create(page("d", status="draft"), chunks_of("d", unit(1)))
    keys = {("a", 0), ("a", 2), ("a", 9), ("d", 0), ("nada", 0)}

    found = store.chunks.chunks_by_key(keys)

    assert sorted(found) == [("a", 0), ("a", 2)]
    assert found[("a", 2)].text == "text 2 of a"
    assert found[("a", 2)].heading == "a › part 2"
    assert (found[("a", 0)].title, found[("a", 0)].tags) == ("Title of a", ("python",))
    assert store.chunks.chunks_by_key(set()) == {}
