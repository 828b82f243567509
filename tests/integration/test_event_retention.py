"""Events (utility hits, gap signals, outcomes) are kept BIBLIOTECA_TRACE_DAYS, like traces:
a TTL field on Firestore, a bounded sweep on each write on SQLite."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from shared.store.sqlite import events as sqlite_events

SQLITE_ONLY = pytest.mark.parametrize("store_env", ["sqlite"], indirect=True)
FIRESTORE_ONLY = pytest.mark.parametrize(
    "store_env", [pytest.param("firestore", marks=pytest.mark.firestore)], indirect=True
)


@SQLITE_ONLY
def test_sqlite_each_write_sweeps_a_bounded_batch_of_expired_events(store: Any) -> None:
    """250 events past their days: each write deletes at most SWEEP_BATCH of them."""
    old = (datetime.now(UTC) - timedelta(days=store.events.retention_days + 1)).isoformat()
    with store.db.write() as conn:
        conn.executemany(
            "INSERT INTO events (kind, at, data) VALUES ('utility_hit', ?, '{}')",
            [(old,)] * 250,
        )
    count = "SELECT COUNT(*) FROM events"
    store.events.record("utility_hit", {"question": "nueva"})
    assert store.db.connection().execute(count).fetchone()[0] == 251 - sqlite_events.SWEEP_BATCH
    for _ in range(3):
        store.events.record("utility_hit", {"question": "otra"})
    assert store.db.connection().execute(count).fetchone()[0] == 4  # only the kept ones
    assert [e["question"] for e in store.events.recent("utility_hit", 10)][-1] == "nueva"


@FIRESTORE_ONLY
def test_firestore_each_event_carries_its_ttl_field(store: Any) -> None:
    """expire_at is the recording time plus the retention (the TTL policy deletes it)."""
    from shared.store.firestore.events import COLLECTION

    store.events.retention_days = 45
    store.events.record("utility_hit", {"question": "hola"})
    [doc] = list(store.db.collection(COLLECTION).stream())
    data = doc.to_dict()
    assert data["expire_at"] - data["at"] == timedelta(days=45)
