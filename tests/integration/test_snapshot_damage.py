"""A damaged stored index snapshot counts as no snapshot on both stores: the index is read
from the chunks instead, and every ``ask`` keeps working (was: a 500 until replaced)."""

from __future__ import annotations

from typing import Any

import pytest

from shared.records import StoredSnapshot
from tests.integration.test_chunk_changes import assert_up_to_date, other_store, write
from tests.unit.test_snapshot_damage import DAMAGE

FIRESTORE_ONLY = pytest.mark.parametrize(
    "store_env", [pytest.param("firestore", marks=pytest.mark.firestore)], indirect=True
)
SQLITE_ONLY = pytest.mark.parametrize("store_env", ["sqlite"], indirect=True)


@pytest.mark.parametrize("kind", ["meta-is-a-list", "count-a-string", "truncated"])
def test_a_damaged_payload_is_read_around(store: Any, kind: str) -> None:
    """A cold reader finds the damaged payload and reads every chunk instead."""
    write(store, "uno", "los certificados se rotan")
    cursor = store.chunks.changes_since(None).cursor  # the snapshot would be up to date
    store.chunks.save_snapshot(StoredSnapshot(cursor, DAMAGE[kind]()))
    reader = other_store()
    assert reader.chunks.load_snapshot() is not None
    assert_up_to_date(reader)


@FIRESTORE_ONLY
@pytest.mark.parametrize(
    "head",
    [
        {"id": "x", "parts": "many", "cursor": "c"},
        {"id": "x", "parts": 10**9, "cursor": "c"},
        {"id": 3, "parts": 1, "cursor": "c"},
        {"parts": 1, "cursor": "c"},
        {"id": "x", "parts": 1, "cursor": ["c"]},
    ],
    ids=["parts-text", "parts-huge", "id-number", "no-id", "cursor-list"],
)
def test_firestore_a_damaged_head_is_no_snapshot(store: Any, head: dict[str, Any]) -> None:
    """The head's fields of the wrong type, missing or out of range: None, no reads past it."""
    from shared.store.firestore import snapshots

    write(store, "uno", "texto")
    store.db.collection(snapshots.HEAD).document(snapshots.HEAD_ID).set(head)
    assert store.chunks.load_snapshot() is None
    assert_up_to_date(other_store())


@FIRESTORE_ONLY
def test_firestore_a_part_of_the_wrong_type_is_no_snapshot(store: Any) -> None:
    from shared.store.firestore import snapshots

    write(store, "uno", "texto")
    store.db.collection(snapshots.PARTS).document("x-0").set({"bytes": "text, not bytes"})
    store.db.collection(snapshots.HEAD).document(snapshots.HEAD_ID).set(
        {"id": "x", "parts": 1, "cursor": "c"}
    )
    assert store.chunks.load_snapshot() is None
    assert_up_to_date(other_store())


@SQLITE_ONLY
def test_sqlite_a_row_of_the_wrong_types_is_no_snapshot(store: Any) -> None:
    write(store, "uno", "texto")
    with store.db.write() as conn:
        conn.execute("INSERT OR REPLACE INTO index_snapshot VALUES (1, 42, 'text, not a blob')")
    assert store.chunks.load_snapshot() is None
    assert_up_to_date(other_store())
